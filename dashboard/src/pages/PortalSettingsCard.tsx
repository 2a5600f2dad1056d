import { useEffect, useState } from 'preact/hooks';
import type { z } from 'zod';
import type { ManagedProductSchema } from '../../../modules/catalog/index.ts';
import type { PortalSettingsAnswer } from '../../../modules/portal/index.ts';
import { api, type Paged } from '../api.ts';
import { OwnerSave } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';
import { ErrorNotice } from '../components/Notice.tsx';
import { useAction } from '../useAction.ts';
import { useApi } from '../useApi.ts';

type Product = z.infer<typeof ManagedProductSchema>;
type Choice = 'magic_link' | 'subscription_cancel' | 'payment_method_update' | 'subscription_update';

const CHOICES: Array<[Choice, string]> = [
  ['magic_link', 'Buyers may ask for a sign-in link by email'],
  ['subscription_cancel', 'Cancel a subscription at the end of its period, and undo it'],
  ['payment_method_update', 'Update the card a subscription is charged on'],
  ['subscription_update', 'Switch to another plan of the same product'],
];

/** What buyers may do in the hosted customer portal (/portal/<organization>). */
export function PortalSettingsCard({ owner, organizationId }: { owner: boolean; organizationId: string }) {
  const current = useApi<PortalSettingsAnswer>('/portal_settings');
  const products = useApi<Paged<Product>>('/products', { per_page: 100 });
  const [settings, setSettings] = useState<PortalSettingsAnswer | null>(null);
  const { busy, error, run } = useAction<'save'>();
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (current.data) setSettings(current.data);
  }, [current.data]);

  const save = async (e: Event) => {
    e.preventDefault();
    if (!settings) return;
    setSaved(false);
    await run('save', async () => {
      setSettings(await api.put<PortalSettingsAnswer>('/portal_settings', settings));
      setSaved(true);
    });
  };

  return (
    <Card title="Customer portal" id="portal">
      <ErrorNotice error={current.error ?? error} />
      <p class="muted">
        Your buyers see their purchases, receipts and subscriptions at <span class="mono">/portal/{organizationId}</span>, or through a portal session your app makes.
      </p>
      {settings && (
        <form onSubmit={save}>
          <fieldset class="checks">
            <legend>Buyers may</legend>
            {CHOICES.map(([key, label]) => (
              <label key={key} class="check">
                <input type="checkbox" name={key} disabled={!owner} checked={settings[key]} onChange={(ev) => setSettings({ ...settings, [key]: (ev.target as HTMLInputElement).checked })} />
                {label}
              </label>
            ))}
          </fieldset>
          {settings.subscription_update && (products.data?.data.length ?? 0) > 1 && (
            <fieldset class="checks">
              <legend>Or to a plan of these products</legend>
              {products.data!.data
                .filter((p) => p.status === 'active')
                .map((p) => (
                  <label key={p.id} class="check">
                    <input
                      type="checkbox"
                      name="subscription_update_products"
                      value={p.id}
                      disabled={!owner}
                      checked={settings.subscription_update_products.includes(p.id)}
                      onChange={(ev) => {
                        const on = (ev.target as HTMLInputElement).checked;
                        const others = settings.subscription_update_products.filter((id) => id !== p.id);
                        setSettings({ ...settings, subscription_update_products: on ? [...others, p.id] : others });
                      }}
                    />
                    {p.display_name || p.name || p.key}
                  </label>
                ))}
            </fieldset>
          )}
          <OwnerSave owner={owner} saved={saved} busy={busy === 'save'} />
        </form>
      )}
    </Card>
  );
}
