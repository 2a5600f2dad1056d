import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishOffer, upsertOffer } from '../../modules/checkout/offerCommands.ts';
import { connectStripe, stripeSecrets } from '../../modules/payments/stripeAccountCommands.ts';
import { offerContent } from '../checkout/checkoutFixtures.ts';
import { startFakeStripe, type FakeStripe } from '../helpers/fakeStripe.ts';
import { seedIdentity, startServerProcess, tempDataDir, withServices, type ServerProcess } from '../helpers/serverProcess.ts';

/**
 * The real server process at LOG_LEVEL=debug through a live payment, Stripe's webhooks (good and
 * forged) and a Stripe error: its output holds neither an organization's secret key, nor its
 * webhook signing secret, nor a PaymentIntent's client secret.
 */
describe('logs of a live payment', () => {
  const dataDir = tempDataDir();
  let stripe: FakeStripe;
  let proc: ServerProcess;
  const secrets: string[] = [];
  let organizationId = '';
  let broken = '';
  let account: ReturnType<FakeStripe['account']>;

  beforeAll(async () => {
    stripe = await startFakeStripe();
    account = stripe.account();
    ({ organizationId } = await seedIdentity(dataDir));
    ({ organizationId: broken } = await seedIdentity(dataDir, 'Broken key'));
    // A key Stripe does not know (rolled since): its calls fail, and the failure is logged.
    const unknownKey = 'sk_test_unknownKey0123456789abcdef';
    await withServices(dataDir, async (services, ctx) => {
      const box = stripeSecrets(services);
      await connectStripe(ctx(organizationId), box, { organizationId, secretKey: account.secretKey, publishableKey: account.publishableKey, webhookSecret: account.webhookSecret });
      await connectStripe(ctx(broken), box, { organizationId: broken, secretKey: unknownKey, publishableKey: 'pk_test_unknownKey0123456789', webhookSecret: 'whsec_unknownSecret0123456789' });
      for (const [org, slug] of [[organizationId, 'live-logs'], [broken, 'broken-logs']] as const) {
        const offer = await upsertOffer(ctx(org), { organizationId: org, slug, ...offerContent() });
        await publishOffer(ctx(org), offer.uuid);
      }
    });
    secrets.push(account.secretKey, account.webhookSecret, unknownKey, 'whsec_unknownSecret0123456789');
    proc = await startServerProcess({ dataDir, env: { LOG_LEVEL: 'debug', ...stripe.env } });
  }, 60_000);

  afterAll(async () => {
    if (proc && proc.child.exitCode === null) proc.child.kill('SIGKILL');
    await proc?.exited;
    await stripe?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('never writes a Stripe secret key, webhook secret or client secret', async () => {
    const post = (path: string, body: string, headers: Record<string, string> = {}) =>
      fetch(`${proc.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    const created = (await (await post('/api/checkout/sessions', JSON.stringify({ offer: 'live-logs', mode: 'live' }))).json()) as { session: { id: string } };
    const started = (await (await post(`/api/checkout/sessions/${created.session.id}/payment-intent`, JSON.stringify({ email: 'logs@example.com' }))).json()) as {
      payment_intent: { id: string; client_secret: string };
    };
    secrets.push(started.payment_intent.client_secret);
    const event = stripe.signedEvent(account, 'payment_intent.succeeded', stripe.succeed(started.payment_intent.id));
    expect((await post(`/webhooks/stripe/${organizationId}`, event.body, { 'stripe-signature': event.signature })).status).toBe(200);
    expect((await post(`/webhooks/stripe/${organizationId}`, event.body, { 'stripe-signature': `t=1,v1=${'0'.repeat(64)}` })).status).toBe(400);
    expect((await post(`/api/checkout/sessions/${created.session.id}/payment-intent/settle`, '{}')).status).toBe(200);

    const other = (await (await post('/api/checkout/sessions', JSON.stringify({ offer: 'broken-logs', mode: 'live' }))).json()) as { session: { id: string } };
    const failed = await post(`/api/checkout/sessions/${other.session.id}/payment-intent`, '{}');
    expect(failed.status).toBe(502);
    expect(await failed.json()).toMatchObject({ code: 'payment_provider_error' });

    await proc.stop();
    const logs = proc.output();
    // The test can fail: the process logged these requests, and the provider's error.
    expect(logs).toContain('/payment-intent');
    expect(logs).toContain('payment provider error');
    for (const secret of secrets) {
      const at = logs.indexOf(secret);
      expect(at, `found ${secret} in the logs: …${logs.slice(Math.max(0, at - 200), at + 100)}…`).toBe(-1);
    }
  }, 60_000);
});
