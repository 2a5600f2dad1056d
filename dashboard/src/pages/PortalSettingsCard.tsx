import { useEffect, useState } from 'preact/hooks';
import type { PortalSettingsAnswer } from '../../../modules/portal/index.ts';
import { api } from '../api.ts';
import { OwnerSave } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';
import { ErrorNotice } from '../components/Notice.tsx';
import { useAction } from '../useAction.ts';
import { useApi } from '../useApi.ts';

const CHOICES: Array<[keyof PortalSettingsAnswer, string]> = [
  ['magic_link', 'Buyers may ask for a sign-in link by email'],
  ['subscription_cancel', 'Cancel a subscription at the end of its period, and undo it'],
  ['payment_method_update', 'Update the card a subscription is charged on'],
  ['subscription_update', 'Switch to another plan of the same product'],
];

/** What buyers may do in the hosted customer portal (/portal/<organization>). */
export function PortalSettingsCard({ owner, organizationId }: { owner: boolean; organizationId: string }) {
  const current = useApi<PortalSettingsAnswer>('/portal_settings');
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
          <OwnerSave owner={owner} saved={saved} busy={busy === 'save'} />
        </form>
      )}
    </Card>
  );
}
