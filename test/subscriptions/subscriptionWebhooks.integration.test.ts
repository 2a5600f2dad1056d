import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../helpers/receiver.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { eventPayloadSchema } from '../../modules/webhooks/http/webhookSchemas.ts';
import { subscribe, verified, WEBHOOK_ENV } from '../webhooks/webhookFixtures.ts';
import { DAY, importPlans, SubscriptionLog } from './subscriptionFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Event webhooks of a subscription's life, each object with `entitled` and the per-subscription `sequence`. */
describe('subscription event webhooks', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: WEBHOOK_ENV });
  });
  afterAll(() => server.close({ remove: true }));

  it('sends created, updated (entitled, sequence), invoice.created, invoice.payment_failed and deleted, in order', { timeout: 60_000 }, async () => {
    const org = await server.identity();
    const plans = await importPlans(server, org.organizationId);
    const r = await startReceiver();
    try {
      const types = ['customer.subscription.created', 'customer.subscription.updated', 'customer.subscription.deleted', 'invoice.created', 'invoice.payment_failed', 'invoice.paid'];
      const endpoint = await subscribe(server, org.organizationId, r.url, types);
      await server.settle();
      const bodies = () => r.calls.map((c) => verified(endpoint.secret, c));

      // Renewed a month on, in its own time: nothing of it is ever due for the service's clock.
      const start = Math.floor(server.services.clock() / 1000);
      const now = start + 31 * DAY;
      const sub = await SubscriptionLog.create(server, org.organizationId, { plan: plans.terms('basic'), amount: 1000, at: start });
      const invoiceId = await sub.bill(now, { decline: 'insufficient_funds' });
      await sub.act({ type: 'Cancel', atPeriodEnd: false, refund: 'none', requestedBy: 'seller', now });

      await expect.poll(() => bodies().some((b) => b.type === 'customer.subscription.deleted'), { timeout: 20_000 }).toBe(true);
      await expect.poll(() => bodies().filter((b) => b.type === 'customer.subscription.updated').length, { timeout: 20_000 }).toBe(2);
      await expect.poll(() => bodies().some((b) => b.type === 'invoice.payment_failed'), { timeout: 20_000 }).toBe(true);
      const received = bodies();
      // Each payload is what the OpenAPI document's webhooks section says it is.
      for (const b of received) expect(eventPayloadSchema(b.type).safeParse(b).error).toBeUndefined();
      const of = (type: string) => received.filter((b) => b.type === type).map((b) => b.data.object as Body);

      expect(of('customer.subscription.created')).toEqual([expect.objectContaining({ id: sub.id, object: 'subscription', status: 'active', entitled: true, sequence: 1 })]);
      // SubscriptionInvoiceCreated (2), then the attempt (3, not announced), then the failure (4).
      const updated = of('customer.subscription.updated');
      expect(updated.map((o) => [o.sequence, o.status, o.entitled])).toEqual([
        [2, 'active', true],
        [4, 'past_due', true],
      ]);
      expect(updated[0]).toMatchObject({ latest_invoice: { id: invoiceId, status: 'open' }, next_payment_attempt: now });
      expect(updated[1]).toMatchObject({ next_payment_attempt: now + DAY });
      expect(of('customer.subscription.deleted')).toEqual([expect.objectContaining({ id: sub.id, status: 'canceled', entitled: false, sequence: 5 })]);

      // An invoice event carries the sequence of the subscription event of the same step.
      expect(of('invoice.created')).toEqual([expect.objectContaining({ id: invoiceId, object: 'invoice', subscription: sub.id, billing_reason: 'subscription_cycle', status: 'open', amount_due: 1000, sequence: 2 })]);
      expect(of('invoice.payment_failed')).toEqual([
        expect.objectContaining({ id: invoiceId, attempt_count: 1, attempts: [expect.objectContaining({ outcome: 'failed', decline_code: 'insufficient_funds' })], sequence: 4 }),
      ]);
      // The checkout's invoice is the checkout's to announce: no invoice.created for it.
      expect(of('invoice.created')).toHaveLength(1);
      // The checkout's own invoice.paid has no session in this log (its session stream is not written), so only what a subscription made is here.
      expect(of('invoice.paid')).toEqual([]);
    } finally {
      await r.close();
    }
  });

  it('sends a renewal’s invoice.paid built from the invoice stream', { timeout: 60_000 }, async () => {
    const org = await server.identity();
    const plans = await importPlans(server, org.organizationId);
    const r = await startReceiver();
    try {
      const endpoint = await subscribe(server, org.organizationId, r.url, ['invoice.paid']);
      await server.settle();
      const start = Math.floor(server.services.clock() / 1000);
      const sub = await SubscriptionLog.create(server, org.organizationId, { plan: plans.terms('basic'), amount: 1000, at: start });
      const invoiceId = await sub.bill(start + 31 * DAY);
      await expect.poll(() => r.calls.length, { timeout: 20_000 }).toBe(1);
      const body = verified(endpoint.secret, r.calls[0]!);
      expect(eventPayloadSchema('invoice.paid').safeParse(body).error).toBeUndefined();
      // Created (1), invoice created (2), attempted (3), paid (4).
      expect(body.data.object).toMatchObject({ id: invoiceId, status: 'paid', subscription: sub.id, session_id: null, amount_paid: 1000, payment: { brand: 'visa', last4: '4242' }, sequence: 4 });
    } finally {
      await r.close();
    }
  });

  it('sends invoice.upcoming with the renewal to come, and trial_will_end', { timeout: 60_000 }, async () => {
    const org = await server.identity();
    const plans = await importPlans(server, org.organizationId);
    const r = await startReceiver();
    try {
      const endpoint = await subscribe(server, org.organizationId, r.url, ['invoice.upcoming', 'customer.subscription.trial_will_end']);
      await server.settle();
      const start = Math.floor(server.services.clock() / 1000);
      const paying = await SubscriptionLog.create(server, org.organizationId, { plan: plans.terms('basic'), amount: 1000, at: start });
      const trial = await SubscriptionLog.create(server, org.organizationId, { plan: plans.terms('basic'), amount: 1000, at: start, trialDays: 14 });
      await paying.act({ type: 'NoticeUpcoming', now: start + 20 * DAY });
      await trial.act({ type: 'NoticeTrialWillEnd', now: start + 11 * DAY });
      await expect.poll(() => r.calls.length, { timeout: 20_000 }).toBe(2);
      const bodies = r.calls.map((c) => verified(endpoint.secret, c));
      for (const b of bodies) expect(eventPayloadSchema(b.type).safeParse(b).error).toBeUndefined();
      const upcoming = bodies.find((b) => b.type === 'invoice.upcoming')!.data.object;
      const periodEnd = (await server.fetch(`/api/subscriptions/${paying.id}`, { token: org.token }).then((x) => x.json())).current_period_end as number;
      expect(upcoming).toMatchObject({ id: null, object: 'invoice', status: 'draft', billing_reason: 'upcoming', subscription: paying.id, amount_due: 1000, next_payment_attempt: periodEnd, period: { start: periodEnd }, sequence: 2 });
      expect(upcoming.lines).toEqual([{ name: 'basic', amount: 1000, period: upcoming.period }]);
      expect(bodies.find((b) => b.type === 'customer.subscription.trial_will_end')!.data.object).toMatchObject({ id: trial.id, status: 'trialing', entitled: true, trial_end: start + 14 * DAY, sequence: 2 });
    } finally {
      await r.close();
    }
  });
});
