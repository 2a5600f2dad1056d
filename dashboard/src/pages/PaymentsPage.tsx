import type { z } from 'zod';
import type { StripeAccountSchema } from '../../../modules/payments/index.ts';
import { useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Badge } from '../components/Badge.tsx';
import { Button } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { CopyField } from '../components/CopyButton.tsx';
import { Field, Input, OtherErrors, useFields } from '../components/Field.tsx';
import { ErrorNotice, Loading, Notice } from '../components/Notice.tsx';
import { SettingsSection } from '../components/Tabs.tsx';
import { formatDateTime } from '../format.ts';
import { useSession } from '../session.ts';
import { useAction } from '../useAction.ts';
import { useApi } from '../useApi.ts';

/** GET /manage/api/payments/stripe: never a secret, the key masked (docs/stripe.md). */
export type StripeAccount = z.infer<typeof StripeAccountSchema>;

const STRIPE_EVENTS = ['payment_intent.succeeded', 'payment_intent.payment_failed', 'charge.refunded', 'charge.dispute.created'];

/** Settings → Payments: the organization's own Stripe account, which live sessions are paid through. */
export function PaymentsPage() {
  const session = useSession();
  const owner = session?.current_organization?.role === 'owner';
  const account = useApi<StripeAccount>('/payments/stripe');
  // The PUT and DELETE answer the new state: shown at once, without asking again.
  const [answer, setAnswer] = useState<StripeAccount | null>(null);
  const [editing, setEditing] = useState(false);
  const { error, run } = useAction<'disconnect'>();
  const current = answer ?? account.data;

  return (
    <SettingsSection current="/dashboard/settings/payments">
      <ErrorNotice error={account.error ?? error} />
      {!current && !account.error && <Loading />}
      {current && (
        <>
          <Card title="Stripe" id="stripe" actions={<Badge status={current.connected ? 'active' : 'draft'}>{current.connected ? 'Connected' : 'Not connected'}</Badge>}>
            {current.connected ? (
              <>
                <dl class="details">
                  <dt>Mode</dt>
                  <dd>{current.mode === 'live' ? 'Live: real money' : 'Test: Stripe test cards only'}</dd>
                  <dt>{current.key_type === 'restricted' ? 'Restricted key' : 'Secret key'}</dt>
                  <dd>
                    <code>{current.secret_key}</code>
                  </dd>
                  <dt>Publishable key</dt>
                  <dd>
                    <code class="break">{current.publishable_key}</code>
                  </dd>
                  <dt>Connected</dt>
                  <dd>{formatDateTime(current.connected_at)}</dd>
                </dl>
                <p class="muted">Live checkout sessions are paid through this account. The secret key and the webhook signing secret are stored encrypted and never shown again.</p>
                {owner && !editing && (
                  <div class="form-actions">
                    <Button onClick={() => setEditing(true)}>Replace the keys</Button>
                    <ConfirmButton
                      label="Disconnect"
                      what="Stripe"
                      onConfirm={() => run('disconnect', async () => setAnswer(await api.delete<StripeAccount>('/payments/stripe')))}
                    />
                  </div>
                )}
              </>
            ) : (
              <p>
                No Stripe account is connected: checkout sessions in <strong>live</strong> mode are refused until one is. Test mode keeps working with the built-in test cards.
              </p>
            )}
            {owner && (!current.connected || editing) && (
              <ConnectForm
                replacing={current.connected}
                onDone={(a) => {
                  setAnswer(a);
                  setEditing(false);
                }}
                onCancel={current.connected ? () => setEditing(false) : undefined}
              />
            )}
            {!owner && <p class="muted">Only owners connect or disconnect Stripe.</p>}
          </Card>
          <Card title="Stripe's webhook" id="stripe-webhook">
            <p>In Stripe's dashboard (Developers → Webhooks), add an endpoint with this URL, then paste its signing secret above:</p>
            <CopyField text={current.webhook_url} label="Webhook URL for Stripe" />
            <p class="muted">Select these events:</p>
            <ul class="plain-list">
              {STRIPE_EVENTS.map((e) => (
                <li key={e}>
                  <code>{e}</code>
                </li>
              ))}
            </ul>
          </Card>
        </>
      )}
    </SettingsSection>
  );
}

const NO_KEYS = { secretKey: '', publishableKey: '', webhookSecret: '' };

function ConnectForm({ replacing, onDone, onCancel }: { replacing: boolean; onDone: (a: StripeAccount) => void; onCancel?: (() => void) | undefined }) {
  const { fields, set, setFields } = useFields(NO_KEYS);
  const { secretKey, publishableKey, webhookSecret } = fields;
  const { busy, error, run } = useAction<'connect'>();
  const submit = async (e: Event) => {
    e.preventDefault();
    await run('connect', async () => {
      const a = await api.put<StripeAccount>('/payments/stripe', { secret_key: secretKey, publishable_key: publishableKey, webhook_secret: webhookSecret });
      // The secrets leave the page's memory once sent.
      setFields(NO_KEYS);
      onDone(a);
    });
  };
  // Write-only: type="password" and no autofill, so a secret is never shown or kept by the browser.
  const secret = { type: 'password', autoComplete: 'off', spellcheck: false } as const;
  return (
    <form onSubmit={submit} noValidate class="stack-form" aria-label={replacing ? 'Replace the Stripe keys' : 'Connect Stripe'}>
      <h3>{replacing ? 'Replace the keys' : 'Connect a Stripe account'}</h3>
      <Field label="Secret or restricted key" name="secret_key" error={error} hint="sk_live_…, sk_test_… or rk_…, from Stripe's Developers → API keys. A restricted key needs write access to PaymentIntents and Refunds, and read access to Charges.">
        {(c) => <Input {...c} {...secret} required maxLength={255} placeholder="sk_live_…" value={secretKey} onValue={set('secretKey')} />}
      </Field>
      <Field label="Publishable key" name="publishable_key" error={error} hint="pk_…, from the same mode as the secret key.">
        {(c) => <Input {...c} required autoComplete="off" spellcheck={false} maxLength={255} placeholder="pk_live_…" value={publishableKey} onValue={set('publishableKey')} />}
      </Field>
      <Field label="Webhook signing secret" name="webhook_secret" error={error} hint="whsec_…, from the endpoint you add in Stripe (the URL is below).">
        {(c) => <Input {...c} {...secret} required maxLength={255} placeholder="whsec_…" value={webhookSecret} onValue={set('webhookSecret')} />}
      </Field>
      <OtherErrors error={error} shown={['secret_key', 'publishable_key', 'webhook_secret']} />
      <div class="form-actions">
        <Button type="submit" variant="primary" busy={busy === 'connect'}>
          {replacing ? 'Save the new keys' : 'Connect Stripe'}
        </Button>
        {onCancel && (
          <Button variant="ghost" onClick={onCancel}>
            Cancel
          </Button>
        )}
      </div>
      {replacing && <Notice>The new keys replace the old ones at once.</Notice>}
    </form>
  );
}
