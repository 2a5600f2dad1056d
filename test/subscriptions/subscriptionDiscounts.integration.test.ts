import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundJobs } from '../../app/backgroundJobs.ts';
import { createCoupon, createPromotionCode } from '../../modules/discounts/discountCommands.ts';
import { createApiKey, createUser } from '../../modules/identity/identityCommands.ts';
import { invoiceMirrorJob } from '../../modules/subscriptions/jobs/invoiceMirror.ts';
import { subscriptionCreationJob } from '../../modules/subscriptions/jobs/subscriptionCreation.ts';
import { subscriptionStream } from '../../modules/subscriptions/domain/subscription.ts';
import { createTaxRate, updateTaxRate, updateTaxSettings } from '../../modules/tax/index.ts';
import { subscriptionEventObject } from '../../modules/webhooks/subscriptionObjects.ts';
import { PUBLIC_TYPE_OF } from '../../modules/webhooks/domain/eventTypes.ts';
import type { CouponDuration, CustomerTaxDetails } from '../../platform/domain/index.ts';
import { GOOD_CARD } from '../checkout/checkoutFixtures.ts';
import { clockApp, waitFor, type ClockApp } from './clockApp.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** 2027-01-31T12:00:00Z: a month-end start. */
const T0 = Date.UTC(2027, 0, 31, 12) / 1000;
const day = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d, 12) / 1000;
const silent = { error: (o: unknown, m: string) => console.error(m, o), info: () => undefined };
const BERLIN: CustomerTaxDetails = { address: { country: 'DE', postal_code: '10115', state: null }, business_name: null, tax_id: null, tax_exempt: 'none' };

/**
 * Subscriptions bought with a coupon by a buyer in Germany, from a seller collecting 19% VAT on
 * top, billed on a test clock by the service's own jobs: every renewal priced with priceLines,
 * the discount while in force and the seller's rate at the time of the invoice.
 */
describe('discounts and tax on renewals', () => {
  let harness: ClockApp;
  let seller: { organizationId: string; token: string };
  let other: { organizationId: string; token: string };
  let memberToken: string;
  let jobs: { stop(): Promise<void> } | undefined;
  let rate19: string;

  beforeAll(async () => {
    harness = await clockApp();
    seller = await harness.identity();
    other = await harness.identity();
    const ctx = harness.ctx(seller.organizationId);
    const member = await createUser(ctx, { email: `member-${seller.organizationId}@example.com`, organizationId: seller.organizationId, role: 'member' });
    memberToken = (await createApiKey(ctx, { userId: member.id, organizationId: seller.organizationId })).token;
    await updateTaxSettings(ctx, { organizationId: seller.organizationId, enabled: true, default_tax_behavior: 'exclusive' });
    rate19 = (await createTaxRate(ctx, { organizationId: seller.organizationId, rate: { display_name: 'VAT', description: null, percentage: 19, country: 'DE', state: null, postal_code_prefix: null, jurisdiction: 'DE', active: true } })).id;
    await harness.offerOf(seller.organizationId, 'pro-monthly', 'recurring', { renew: 'P1M' });
    await harness.startAdvanceJob();
    jobs = await startBackgroundJobs(harness.services, silent, [subscriptionCreationJob, invoiceMirrorJob]);
  });
  afterAll(async () => {
    await jobs?.stop();
    await harness.close();
  });

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, token = seller.token) => harness.call(method, url, { token, ...(body !== undefined ? { body } : {}) });
  const subscription = async (id: string) => (await call('GET', `/api/subscriptions/${id}`)).body;
  /** The subscription's invoices, oldest first. */
  const invoices = async (id: string) => ((await call('GET', `/api/invoices?subscription=${id}&per_page=100`)).body.data as Body[]).sort((a, b) => a.number - b.number);

  /**
   * A buyer in Berlin subscribes at T0 on a new clock through the checkout, with a code of a 20%
   * coupon of `duration` (3 months when repeating): the subscription it made.
   */
  async function subscribe(duration: CouponDuration, code: string) {
    const ctx = harness.ctx(seller.organizationId);
    const { id: couponId } = await createCoupon(ctx, { organizationId: seller.organizationId, name: 'Launch', percent_off: 20, duration, ...(duration === 'repeating' ? { duration_in_months: 3 } : {}) });
    await createPromotionCode(ctx, { organizationId: seller.organizationId, coupon: couponId, code });
    const clock = (await call('POST', '/api/test_clocks', { frozen_time: T0 })).body.id as string;
    const created = await call('POST', '/api/checkout/sessions', { offer: 'pro-monthly', test_clock: clock, discount_code: code.toLowerCase() });
    expect(created.status).toBe(201);
    const paid = await harness.call('POST', `/api/checkout/sessions/${created.body.session.id}/pay`, {
      body: { email: 'ada@example.com', name: 'Ada', card: GOOD_CARD, customer_details: { address: { country: 'DE', postal_code: '10115' } } },
    });
    expect(paid.status).toBe(200);
    const id = paid.body.session.subscription.id as string;
    await waitFor('the subscription', () => call('GET', `/api/subscriptions/${id}`), (r) => r.status === 200);
    const coupon = expect.objectContaining({ id: couponId, percent_off: 20, duration });
    return { clock, id, firstTotal: paid.body.invoice.total as number, coupon, discount: { coupon, promotion_code: { id: expect.any(String), code } } };
  }

  async function advance(clock: string, to: number) {
    expect((await call('POST', `/api/test_clocks/${clock}/advance`, { frozen_time: to })).status).toBe(200);
    await waitFor('the clock', () => call('GET', `/api/test_clocks/${clock}`), (r) => r.body.status === 'ready', 60_000);
    await harness.settle();
  }

  /** Every invoice keeps total = lines − discount + tax (exclusive) to the unit, line by line and in sum. */
  function expectReconciled(invoice: Body) {
    const lines = invoice.lines as Array<{ amount: number; discount_amount?: number; tax_amount?: number }>;
    const sum = (f: (l: (typeof lines)[number]) => number) => lines.reduce((s, l) => s + f(l), 0);
    const discount = invoice.total_discount_amounts.reduce((s: number, d: { amount: number }) => s + d.amount, 0);
    expect(invoice.subtotal).toBe(sum((l) => l.amount));
    expect(discount).toBe(sum((l) => l.discount_amount ?? 0));
    expect(invoice.tax ?? 0).toBe(sum((l) => l.tax_amount ?? 0));
    expect(invoice.total).toBe(invoice.subtotal - discount + (invoice.tax ?? 0));
    expect(invoice.amount_paid).toBe(invoice.total);
  }

  it('discounts invoices 1 to 3 of a 3-month repeating 20% coupon with 19% VAT on top, and bills the 4th in full', async () => {
    const { clock, id, firstTotal, coupon, discount } = await subscribe('repeating', 'REP20');
    // 1900 − 380 = 1520, + 19% = 288.8 → 289: 1809.
    expect(firstTotal).toBe(1809);
    expect((await subscription(id)).discount).toEqual({
      object: 'discount',
      subscription: id,
      coupon,
      promotion_code: { id: expect.any(String), code: 'REP20' },
      start: T0,
      end: day(2027, 4, 30),
    });
    await advance(clock, day(2027, 5, 1));
    const all = await invoices(id);
    expect(all.map((i) => [i.billing_reason, i.period.start, i.total])).toEqual([
      ['subscription_create', T0, 1809],
      ['subscription_cycle', day(2027, 2, 28), 1809],
      ['subscription_cycle', day(2027, 3, 31), 1809],
      // The period starting at the coupon's end: 1900 + 361.
      ['subscription_cycle', day(2027, 4, 30), 2261],
    ]);
    all.forEach(expectReconciled);
    for (const renewal of all.slice(1, 3)) {
      expect(renewal.lines).toEqual([expect.objectContaining({ amount: 1900, discount_amount: 380, tax_amount: 289 })]);
      expect(renewal.total_discount_amounts).toEqual([{ amount: 380, discount }]);
      expect(renewal.total_tax_amounts).toEqual([{ amount: 289, inclusive: false, tax_rate: expect.objectContaining({ id: rate19, percentage: 19, country: 'DE' }), percentage: 19, taxability_reason: 'standard_rated', taxable_amount: 1520 }]);
      expect(renewal.customer_details).toEqual(BERLIN);
      expect(renewal.discounts).toEqual([discount]);
    }
    expect(all[3]!.total_discount_amounts).toEqual([]);
    expect(all[3]!.lines).toEqual([expect.objectContaining({ amount: 1900, discount_amount: 0, tax_amount: 361 })]);
    // Gone from the subscription once an invoice started at its end.
    expect((await subscription(id)).discount).toBeNull();
    // The statement states each discount and tax as lines: they add up to what was paid, the checkout's repriced invoice included.
    const statement = (await call('GET', `/api/subscriptions/${id}/statement`)).body;
    expect(statement.totals).toMatchObject({ amount_due: 1809 * 3 + 2261, paid: 1809 * 3 + 2261, credited: 380 * 3, owed: 0 });
    expect(statement.totals.invoiced - statement.totals.credited - statement.totals.credit_applied).toBe(statement.totals.amount_due);
  });

  it('keeps a forever coupon on every renewal', async () => {
    const { clock, id } = await subscribe('forever', 'FOREVER20');
    await advance(clock, day(2027, 6, 1));
    const all = await invoices(id);
    expect(all.map((i) => i.total)).toEqual([1809, 1809, 1809, 1809, 1809]);
    all.forEach(expectReconciled);
    expect((await subscription(id)).discount).toMatchObject({ coupon: { duration: 'forever' }, promotion_code: { code: 'FOREVER20' }, end: null });
    // Each renewal was announced at its priced amount, and invoice.upcoming carries it priced.
    const upcoming = (await harness.services.store.readStream(subscriptionStream(id))).filter((e) => e.type === 'SubscriptionRenewalUpcoming');
    expect(upcoming.map((e) => (e.data as { amount: number }).amount)).toEqual([1809, 1809, 1809, 1809]);
    const draft = (await subscriptionEventObject(harness.services.store, upcoming.at(-1)!))?.object as Body;
    expect(draft).toMatchObject({ billing_reason: 'upcoming', total: 1809, amount_due: 1809, lines: [{ amount: 1900, discount_amount: 380, tax_amount: 289 }] });
  });

  it('uses a once coupon on the checkout\'s invoice only', async () => {
    const { clock, id } = await subscribe('once', 'ONCE20');
    expect((await subscription(id)).discount).toBeNull();
    await advance(clock, day(2027, 3, 1));
    const all = await invoices(id);
    expect(all.map((i) => i.total)).toEqual([1809, 2261]);
    all.forEach(expectReconciled);
  });

  it('taxes each renewal at the rate the seller has when it is made', async () => {
    const { clock, id } = await subscribe('forever', 'RATES20');
    await advance(clock, day(2027, 3, 1));
    // Germany's rate changes: the seller archives 19% and enters 21% (a rate never changes its percentage, as Stripe's).
    const ctx = harness.ctx(seller.organizationId);
    await updateTaxRate(ctx, { organizationId: seller.organizationId, id: rate19, active: false });
    const rate21 = (await createTaxRate(ctx, { organizationId: seller.organizationId, rate: { display_name: 'VAT', description: null, percentage: 21, country: 'DE', state: null, postal_code_prefix: null, jurisdiction: 'DE', active: true } })).id;
    try {
      await advance(clock, day(2027, 4, 1));
      const all = await invoices(id);
      // 1520 at 21% = 319.2 → 319.
      expect(all.map((i) => [i.total, i.total_tax_amounts[0]?.tax_rate?.id])).toEqual([
        [1809, rate19],
        [1809, rate19],
        [1839, rate21],
      ]);
      all.forEach(expectReconciled);
    } finally {
      await updateTaxRate(ctx, { organizationId: seller.organizationId, id: rate21, active: false });
      await updateTaxRate(ctx, { organizationId: seller.organizationId, id: rate19, active: true });
    }
  });

  it('lets a member take the discount off: recorded, announced, and the next invoice at full price', async () => {
    const { clock, id, coupon } = await subscribe('forever', 'REMOVE20');
    const path = `/api/subscriptions/${id}/discount`;
    expect((await call('DELETE', path, undefined, other.token)).status).toBe(404);
    expect((await harness.call('DELETE', path)).status).toBe(401);
    const removed = await call('DELETE', path, undefined, memberToken);
    expect(removed).toEqual({
      status: 200,
      body: { object: 'discount', deleted: true, subscription: id, coupon, promotion_code: { id: expect.any(String), code: 'REMOVE20' }, start: T0, end: null },
    });
    const again = await call('DELETE', path);
    expect(again.status).toBe(404);
    expect(again.body.code).toBe('no_discount');
    await harness.settle();
    expect((await subscription(id)).discount).toBeNull();

    const events = await harness.services.store.readStream(subscriptionStream(id));
    const event = events.find((e) => e.type === 'SubscriptionDiscountRemoved')!;
    expect(event.data).toMatchObject({ discount: { promotion_code: { code: 'REMOVE20' } }, requested_by: 'seller', at: T0 });
    expect(event.metadata.actor).toMatchObject({ type: 'api_key' });
    expect(PUBLIC_TYPE_OF[event.type]).toBe('customer.subscription.updated');
    // The webhook of the creation carries the discount; the removal's carries none.
    const createdObject = await subscriptionEventObject(harness.services.store, events[0]!);
    expect(createdObject?.object).toMatchObject({ discount: { promotion_code: { code: 'REMOVE20' }, start: T0, end: null } });
    expect((await subscriptionEventObject(harness.services.store, event))?.object).toMatchObject({ discount: null });

    await advance(clock, day(2027, 3, 1));
    expect((await invoices(id)).map((i) => i.total)).toEqual([1809, 2261]);
  });
});
