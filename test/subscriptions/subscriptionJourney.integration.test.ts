import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionCreationJob } from '../../modules/subscriptions/jobs/subscriptionCreation.ts';
import { invoiceMirrorJob } from '../../modules/subscriptions/jobs/invoiceMirror.ts';
import { dunningEmailsJob } from '../../modules/subscriptions/jobs/dunningEmails.ts';
import { receiptOutboxJob } from '../../modules/receipts/jobs/receiptOutbox.ts';
import { cancelRefundsJob } from '../../modules/subscriptions/jobs/cancelRefunds.ts';
import { startBackgroundJobs } from '../../app/backgroundJobs.ts';
import { GOOD_CARD } from '../checkout/checkoutFixtures.ts';
import { clockApp, waitFor, type ClockApp } from './clockApp.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const DAY = 86_400;
/** 2027-01-31T12:00:00Z: a month-end anchor. */
const T0 = Date.UTC(2027, 0, 31, 12) / 1000;
const FAILS_LATER = { ...GOOD_CARD, number: '4000 0000 0000 0341' };
const silent = { error: (o: unknown, m: string) => console.error(m, o), info: () => undefined };

/**
 * A buyer's whole subscription over HTTP, in a test clock's time, with the jobs `serve` runs:
 * checkout, creation, renewals, retries and their end, each at the right second.
 */
describe('a subscription from checkout through its renewals', () => {
  let harness: ClockApp;
  let seller: { organizationId: string; token: string };
  let jobs: { stop(): Promise<void> } | undefined;

  beforeAll(async () => {
    harness = await clockApp();
    seller = await harness.identity();
    await harness.offerOf(seller.organizationId, 'pro-monthly', 'recurring', { renew: 'P1M' });
    await harness.offerOf(seller.organizationId, 'pro-trial', 'recurring', { renew: 'P1M', trialDays: 14 });
    await harness.startAdvanceJob();
    jobs = await startBackgroundJobs(harness.services, silent, [subscriptionCreationJob, invoiceMirrorJob, dunningEmailsJob, receiptOutboxJob, cancelRefundsJob]);
  });
  // The jobs stop before the stores they read close.
  afterAll(async () => {
    await jobs?.stop();
    await harness.close();
  });

  const call = (method: 'GET' | 'POST', url: string, body?: unknown) => harness.call(method, url, { token: seller.token, ...(body !== undefined ? { body } : {}) });

  /** A clock at T0, a session of `offer` on it paid with `card`, and the subscription it made. */
  async function subscribe(offer: string, card = GOOD_CARD) {
    const clock = (await call('POST', '/api/test_clocks', { frozen_time: T0 })).body.id as string;
    const created = await call('POST', '/api/checkout/sessions', { offer, test_clock: clock });
    const paid = await harness.call('POST', `/api/checkout/sessions/${created.body.session.id}/pay`, { body: { email: 'ada@example.com', name: 'Ada', card } });
    expect(paid.status).toBe(200);
    const id = paid.body.session.subscription.id as string;
    await waitFor('the subscription', () => call('GET', `/api/subscriptions/${id}`), (r) => r.status === 200);
    return { clock, id };
  }

  async function advance(clock: string, to: number) {
    expect((await call('POST', `/api/test_clocks/${clock}/advance`, { frozen_time: to })).status).toBe(200);
    await waitFor('the clock', () => call('GET', `/api/test_clocks/${clock}`), (r) => r.body.status === 'ready', 60_000);
    await harness.settle();
  }

  const subscription = async (id: string) => (await call('GET', `/api/subscriptions/${id}`)).body;
  const invoices = async (id: string) => (await call('GET', `/api/invoices?subscription=${id}&per_page=100`)).body.data as Body[];

  it('renews twelve times a month, anchored on the 31st, each renewal paid, invoiced and receipted', async () => {
    const { clock, id } = await subscribe('pro-monthly');
    expect(await subscription(id)).toMatchObject({ status: 'active', entitled: true, billing_cycle_anchor: T0, current_period_end: Date.UTC(2027, 1, 28, 12) / 1000 });
    await advance(clock, Date.UTC(2028, 0, 31, 12) / 1000);
    const after = await subscription(id);
    expect(after).toMatchObject({ status: 'active', entitled: true, current_period_start: Date.UTC(2028, 0, 31, 12) / 1000, current_period_end: Date.UTC(2028, 1, 29, 12) / 1000 });
    const all = await invoices(id);
    const renewals = all.filter((i) => i.billing_reason === 'subscription_cycle');
    expect(renewals).toHaveLength(12);
    expect(renewals.every((i) => i.status === 'paid' && i.amount_paid === 1900)).toBe(true);
    const periods = renewals.map((i) => new Date(i.lines[0].period.start * 1000).toISOString().slice(0, 10)).sort();
    expect(periods).toEqual([
      '2027-02-28', '2027-03-31', '2027-04-30', '2027-05-31', '2027-06-30', '2027-07-31',
      '2027-08-31', '2027-09-30', '2027-10-31', '2027-11-30', '2027-12-31', '2028-01-31',
    ]);
    // Every renewal's receipt is queued to the buyer.
    const receipts = async () => (await harness.services.store.readAll({ after: null, limit: 100_000, streamPrefixes: ['receipt-'] })).filter((e) => e.type === 'ReceiptQueued');
    const queued = await waitFor('receipts', receipts, (r) => renewals.every((i) => r.some((e) => e.stream === `receipt-${i.id}`)), 20_000);
    expect(queued.length).toBeGreaterThanOrEqual(12);
  });

  it('goes past_due on a card that fails later, retries on the ladder, loses access after the grace, and ends at the last retry', async () => {
    const { clock, id } = await subscribe('pro-monthly', FAILS_LATER);
    const renewal = Date.UTC(2027, 1, 28, 12) / 1000;
    await advance(clock, renewal);
    expect(await subscription(id)).toMatchObject({ status: 'past_due', entitled: true, next_payment_attempt: renewal + DAY });
    await advance(clock, renewal + 7 * DAY - 1);
    expect(await subscription(id)).toMatchObject({ status: 'past_due', entitled: true, next_payment_attempt: renewal + 7 * DAY });
    await advance(clock, renewal + 7 * DAY);
    expect(await subscription(id)).toMatchObject({ status: 'past_due', entitled: false, next_payment_attempt: renewal + 14 * DAY });
    await advance(clock, renewal + 14 * DAY - 1);
    expect((await subscription(id)).status).toBe('past_due');
    await advance(clock, renewal + 14 * DAY);
    expect(await subscription(id)).toMatchObject({ status: 'canceled', entitled: false, ended_at: renewal + 14 * DAY });
    const [owed] = (await invoices(id)).filter((i) => i.billing_reason === 'subscription_cycle');
    expect(owed).toMatchObject({ status: 'uncollectible', attempt_count: 5 });
    expect(owed!.attempts.map((a: Body) => a.decline_code)).toEqual(Array(5).fill('generic_decline'));
    // The buyer was told of each failure.
    const notices = async () => (await harness.services.store.readAll({ after: null, limit: 100_000 })).filter((e) => e.type === 'NoticeQueued' && (e.data as Body).notice?.kind === 'payment_failed');
    await waitFor('dunning emails', notices, (n) => n.length >= 5, 20_000);
  });

  it('cancels at period end and reactivates, then ends at the period end', async () => {
    const { clock, id } = await subscribe('pro-monthly');
    const end = Date.UTC(2027, 1, 28, 12) / 1000;
    expect((await call('POST', `/api/subscriptions/${id}/cancel`, { at_period_end: true })).body).toMatchObject({ cancel_at_period_end: true, cancel_at: end, status: 'active' });
    expect((await call('POST', `/api/subscriptions/${id}/reactivate`)).body).toMatchObject({ cancel_at_period_end: false, cancel_at: null });
    await call('POST', `/api/subscriptions/${id}/cancel`, { at_period_end: true });
    await advance(clock, end + DAY);
    expect(await subscription(id)).toMatchObject({ status: 'canceled', entitled: false, ended_at: end });
    expect((await invoices(id)).filter((i) => i.billing_reason === 'subscription_cycle')).toEqual([]);
  });

  it('moves from a free trial to paid at the trial end', async () => {
    const { clock, id } = await subscribe('pro-trial');
    const trialEnd = T0 + 14 * DAY;
    expect(await subscription(id)).toMatchObject({ status: 'trialing', entitled: true, trial_end: trialEnd, billing_cycle_anchor: trialEnd });
    await advance(clock, trialEnd);
    expect(await subscription(id)).toMatchObject({ status: 'active', entitled: true, current_period_start: trialEnd });
    const [first] = (await invoices(id)).filter((i) => i.billing_reason === 'subscription_cycle');
    expect(first).toMatchObject({ status: 'paid', amount_paid: 1900 });
  });

  it('cancels now with a refund of the unused time, once', async () => {
    const { clock, id } = await subscribe('pro-monthly');
    // 28 days in February's period; 7 used: three quarters of 1900 back.
    await advance(clock, T0 + 7 * DAY);
    const canceled = await call('POST', `/api/subscriptions/${id}/cancel`, { at_period_end: false, refund: 'prorated' });
    expect(canceled.body).toMatchObject({ status: 'canceled', entitled: false, ended_at: T0 + 7 * DAY });
    const [first] = await invoices(id);
    const refunded = await waitFor('the refund', () => call('GET', `/api/invoices/${first!.id}`), (r) => r.body.amount_refunded > 0, 20_000);
    expect(refunded.body.amount_refunded).toBe(1425);
    const refunds = (await harness.services.store.readStream(`invoice-${first!.id}`)).filter((e) => e.type === 'InvoiceRefunded');
    expect(refunds).toHaveLength(1);
  });
});
