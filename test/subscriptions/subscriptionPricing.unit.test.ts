import { describe, expect, it } from 'vitest';
import {
  nextInvoice,
  subscriptionDecider,
  type InvoiceCreatedData,
  type SubscriptionCommand,
  type SubscriptionCreatedData,
  type SubscriptionEvent,
  type SubscriptionState,
} from '../../modules/subscriptions/domain/subscription.ts';
import { asArray } from '../../platform/domain/decider.ts';
import { DomainError, type AppliedDiscount, type AppliedTax, type CouponDuration, type CustomerTaxDetails } from '../../platform/domain/index.ts';

/** 2026-01-31T10:00:00Z: a month-end start. */
const T0 = Date.UTC(2026, 0, 31, 10) / 1000;
const DAY = 86_400;

const DE: CustomerTaxDetails = { address: { country: 'DE', postal_code: '10115', state: null }, business_name: null, tax_id: null, tax_exempt: 'none' };
const vat = (percentage: number, behavior: 'exclusive' | 'inclusive' = 'exclusive'): AppliedTax => ({
  tax_rate: { id: `txr_de_${percentage}`, display_name: 'VAT', percentage, country: 'DE', state: null, jurisdiction: null },
  percentage,
  behavior,
  taxability_reason: 'standard_rated',
  calculated_by: 'rate_table',
});

function coupon(duration: CouponDuration, extra: Partial<AppliedDiscount['coupon']> = {}): AppliedDiscount {
  return {
    coupon: { id: 'co_launch', name: 'Launch', percent_off: 20, amount_off: null, currency: null, duration, duration_in_months: duration === 'repeating' ? 3 : null, applies_to: null, ...extra },
    promotion_code: { id: 'promo_1', code: 'LAUNCH20' },
  };
}

function created(discount: AppliedDiscount | null, overrides: Partial<SubscriptionCreatedData> = {}) {
  return {
    id: 'sub_1',
    organization_id: 'org_a',
    mode: 'test' as const,
    customer: { email: 'ada@example.com', name: 'Ada', user_id: null },
    offer: { uuid: 'u1', id: 'o1', slug: 'pro', name: 'Pro' },
    plan: { product_id: 'p1', plan_id: 'monthly', plan_name: 'Monthly', renew_interval: 'P1M', invoice_interval: 'P1M' },
    currency: 'EUR',
    lines: [{ name: 'Pro monthly', amount: 1999 }],
    amount: 1999,
    session_id: 'cs_1',
    payment_method: { id: 'pm_card_visa', provider: 'test', card: { brand: 'visa', last4: '4242' }, exp_month: 12, exp_year: 2040 },
    billing_cycle_anchor: T0,
    current_period_start: T0,
    current_period_end: Date.UTC(2026, 1, 28, 10) / 1000,
    trial_start: null,
    trial_end: null,
    first_invoice: { id: 'in_0', number: 1, amount: 1903, paid: true },
    test_clock: null,
    customer_details: DE,
    tax_behavior: 'exclusive' as const,
    ...overrides,
    discount,
  };
}

class Log {
  events: SubscriptionEvent[] = [];
  get state(): SubscriptionState {
    return this.events.reduce(subscriptionDecider.evolve, subscriptionDecider.initialState());
  }
  get active() {
    const s = this.state;
    if (s.status === 'none') throw new Error('no subscription');
    return s;
  }
  run(command: SubscriptionCommand): SubscriptionEvent[] {
    const out = asArray(subscriptionDecider.decide(command, this.state));
    this.events.push(...out);
    return out;
  }
  /** The next period's invoice, made and paid at the period end with `tax`; answers its data. */
  renew(tax: AppliedTax | null, n: number): InvoiceCreatedData {
    const now = this.active.current_period_end;
    const invoiceId = `in_${n}`;
    const expected = nextInvoice(this.state, now, tax)!;
    const out = this.run({ type: 'Renew', invoiceId, number: n, amountCharged: expected.amount_due, outcome: { status: 'succeeded', chargeId: `ch_${n}`, card: null }, settings: { retry_days: [], final_action: 'canceled', grace_days: 0 }, tax, now });
    const made = out.find((e) => e.type === 'SubscriptionInvoiceCreated');
    if (made?.type !== 'SubscriptionInvoiceCreated') throw new Error('no invoice');
    return made.data;
  }
}

function started(discount: AppliedDiscount | null, overrides: Partial<SubscriptionCreatedData> = {}, now = T0): Log {
  const log = new Log();
  log.run({ type: 'CreateSubscription', subscription: created(discount, overrides), now });
  return log;
}

/** Lines − discount + exclusive tax, from the invoice's own lines: the rule an invoice must keep to the unit. */
function reconciles(d: Pick<InvoiceCreatedData, 'lines' | 'pricing' | 'amount_due' | 'credit_applied'>) {
  const lines = d.lines.reduce((s, l) => s + l.amount, 0);
  const discount = d.lines.reduce((s, l) => s + (l.discount_amount ?? 0), 0);
  const tax = d.lines.reduce((s, l) => s + (l.tax_amount ?? 0), 0);
  const exclusive = d.pricing?.tax?.behavior === 'exclusive' ? tax : 0;
  expect(d.pricing).toMatchObject({ subtotal: lines, total_discount: discount, total_tax: tax });
  expect(d.amount_due + d.credit_applied).toBe(lines - discount + exclusive);
  return lines - discount + exclusive;
}

describe('subscription pricing: the discount in force at each period start, and the tax given', () => {
  it('starts the coupon at the creation, with Stripe\'s end for a 3-month repeating one from a month end', () => {
    const log = started(coupon('repeating'));
    expect(log.active.discount).toEqual({ ...coupon('repeating'), start: T0, end: Date.UTC(2026, 3, 30, 10) / 1000 });
    expect(log.events[0]!.data).toMatchObject({ discount: { start: T0, end: Date.UTC(2026, 3, 30, 10) / 1000 }, customer_details: DE, tax_behavior: 'exclusive' });
  });

  it('discounts the renewals that start before the end of a 3-month 20% coupon, with 19% VAT on top, and bills the 4th in full', () => {
    const log = started(coupon('repeating'));
    const second = log.renew(vat(19), 2);
    const third = log.renew(vat(19), 3);
    const fourth = log.renew(vat(19), 4);
    // 1999 − 400 (20%, rounded half away from zero) = 1599; VAT 19% of 1599 = 303.81 → 304.
    for (const d of [second, third]) {
      expect(d.lines).toEqual([expect.objectContaining({ name: 'Pro monthly', amount: 1999, discount_amount: 400, taxable_amount: 1599, tax_amount: 304 })]);
      expect(d.pricing).toEqual({ subtotal: 1999, total_discount: 400, total_tax: 304, discount: coupon('repeating'), tax: vat(19), customer_details: DE });
      expect(reconciles(d)).toBe(1903);
    }
    // Mar 31 → Apr 30 is the last discounted period; the one starting Apr 30 (the coupon's end) is full.
    expect(fourth.period_start).toBe(Date.UTC(2026, 3, 30, 10) / 1000);
    expect(fourth.lines[0]).toMatchObject({ amount: 1999, discount_amount: 0, taxable_amount: 1999, tax_amount: 380 });
    expect(fourth.pricing).toMatchObject({ discount: null, total_discount: 0, total_tax: 380 });
    expect(reconciles(fourth)).toBe(2379);
    expect(log.active.discount).toBeNull();
  });

  it('keeps a forever coupon on every invoice, and prices with whatever rate each renewal was given', () => {
    const log = started(coupon('forever'));
    const rates = [19, 19, 21, 7.7, 0];
    rates.forEach((rate, i) => {
      const d = log.renew(vat(rate), i + 2);
      expect(d.pricing).toMatchObject({ discount: coupon('forever'), total_discount: 400, tax: vat(rate) });
      reconciles(d);
    });
    expect(log.active.discount).toMatchObject({ end: null });
  });

  it('uses up a once coupon on the first invoice (the checkout\'s), so every renewal is full price', () => {
    const log = started(coupon('once'));
    expect(log.events[0]!.data).toMatchObject({ discount: { coupon: { duration: 'once' }, end: null } });
    expect(log.active.discount).toBeNull();
    const d = log.renew(vat(19), 2);
    expect(d.pricing).toMatchObject({ discount: null, total_discount: 0, total_tax: 380 });
  });

  it('counts a trial\'s zero invoice toward a once coupon, and toward a repeating one\'s months', () => {
    const trialEnd = T0 + 14 * DAY;
    const trial = { trial_start: T0, trial_end: trialEnd, billing_cycle_anchor: trialEnd, current_period_end: trialEnd, first_invoice: { id: 'in_0', number: 1, amount: 0, paid: true } };
    const once = started(coupon('once'), trial);
    expect(once.renew(null, 2).pricing).toBeUndefined();
    const repeating = started(coupon('repeating'), trial);
    // Feb 14, Mar 14 and Apr 14 start before Apr 30; May 14 does not: three renewals discounted.
    const priced = [2, 3, 4, 5].map((n) => repeating.renew(null, n).pricing?.total_discount ?? 0);
    expect(priced).toEqual([400, 400, 400, 0]);
  });

  it('prices an amount off in its currency, and nothing of a coupon limited to other products', () => {
    const fixed = started(coupon('forever', { percent_off: null, amount_off: 500, currency: 'EUR' }));
    expect(fixed.renew(null, 2)).toMatchObject({ amount_due: 1499, pricing: { total_discount: 500, tax: null } });
    const other = started(coupon('forever', { applies_to: { products: ['p2'] } }));
    expect(other.renew(null, 2)).toMatchObject({ amount_due: 1999, pricing: { total_discount: 0 } });
    const own = started(coupon('forever', { applies_to: { products: ['p1'] } }));
    expect(own.renew(null, 2)).toMatchObject({ amount_due: 1599 });
  });

  it('takes the tax out of an inclusive price instead of adding it', () => {
    const log = started(null, { tax_behavior: 'inclusive' });
    const d = log.renew(vat(19, 'inclusive'), 2);
    // 1999 includes 19%: 1999 − 1999 / 1.19 = 319.17 → 319; nothing is added.
    expect(d.lines[0]).toMatchObject({ discount_amount: 0, tax_amount: 319 });
    expect(d.amount_due).toBe(1999);
  });

  it('leaves an invoice with neither a discount nor a tax as it always was: no pricing, the lines unchanged', () => {
    const log = started(null);
    const d = log.renew(null, 2);
    expect(d).not.toHaveProperty('pricing');
    expect(d.lines).toEqual([{ name: 'Pro monthly', amount: 1999, period: { start: d.period_start, end: d.period_end } }]);
    expect(d.amount_due).toBe(1999);
  });

  it('prices a plan change invoiced at once with the discount, and carries the priced credit of a downgrade', () => {
    const log = started(coupon('forever'));
    log.renew(vat(19), 2);
    const mid = log.active.current_period_start + 15 * DAY;
    log.run({ type: 'ChangePlan', plan: { ...log.active.plan, plan_id: 'max' }, lines: [{ name: 'Max', amount: 4999 }], behavior: 'always_invoice', now: mid });
    const update = nextInvoice(log.state, mid, vat(19))!;
    expect(update.billing_reason).toBe('subscription_update');
    expect(update.pricing).toMatchObject({ discount: coupon('forever') });
    expect(update.lines.every((l) => l.discount_amount === Math.round(l.amount * 0.2))).toBe(true);
    reconciles(update);
  });

  it('takes the new plan\'s tax behaviour on a plan change, for the invoices after it', () => {
    const log = started(null);
    log.run({ type: 'ChangePlan', plan: { ...log.active.plan, plan_id: 'gross' }, lines: [{ name: 'Gross', amount: 2380 }], behavior: 'none', taxBehavior: 'inclusive', now: T0 + DAY });
    expect(log.active.sub.tax_behavior).toBe('inclusive');
    expect(log.events.at(-1)!.data).toMatchObject({ to: { tax_behavior: 'inclusive' } });
    // A change recorded without one (before taxes) leaves it as it was.
    log.run({ type: 'ChangePlan', plan: { ...log.active.plan, plan_id: 'other' }, lines: [{ name: 'Other', amount: 1000 }], behavior: 'none', now: T0 + 2 * DAY });
    expect(log.active.sub.tax_behavior).toBe('inclusive');
  });

  it('refuses a renewal whose charge was computed with another tax than the command carries', () => {
    const log = started(coupon('forever'));
    const now = log.active.current_period_end;
    const at19 = nextInvoice(log.state, now, vat(19))!.amount_due;
    expect(() => log.run({ type: 'Renew', invoiceId: 'in_x', number: 9, amountCharged: at19, outcome: { status: 'succeeded', chargeId: 'ch', card: null }, settings: { retry_days: [], final_action: 'canceled', grace_days: 0 }, tax: vat(21), now })).toThrow(
      expect.objectContaining({ code: 'renewal_changed' }),
    );
  });
});

describe('the notices before a charge', () => {
  it('state the renewal priced with the discount in force at its start and the tax given', () => {
    const log = started(coupon('repeating'));
    log.renew(vat(19), 2);
    log.renew(vat(19), 3);
    // The renewal of Apr 30 starts at the coupon's end: full price, 19% on top.
    const [upcoming] = log.run({ type: 'NoticeUpcoming', tax: vat(19), now: log.active.current_period_end - 7 * DAY });
    expect(upcoming).toMatchObject({ type: 'SubscriptionRenewalUpcoming', data: { amount: 2379 } });
    const forever = started(coupon('forever'));
    expect(forever.run({ type: 'NoticeUpcoming', tax: vat(19), now: T0 + 20 * DAY })[0]).toMatchObject({ data: { amount: 1903 } });
    expect(started(null).run({ type: 'NoticeUpcoming', now: T0 + 20 * DAY })[0]).toMatchObject({ data: { amount: 1999 } });
  });

  it('state the first invoice after a trial as it will be charged', () => {
    const trialEnd = T0 + 14 * DAY;
    const log = started(coupon('repeating'), { trial_start: T0, trial_end: trialEnd, billing_cycle_anchor: trialEnd, current_period_end: trialEnd, first_invoice: { id: 'in_0', number: 1, amount: 0, paid: true } });
    const [notice] = log.run({ type: 'NoticeTrialWillEnd', tax: vat(19), now: trialEnd - 3 * DAY });
    expect(notice).toMatchObject({ type: 'SubscriptionTrialWillEnd', data: { trial_end: trialEnd, amount: 1903 } });
  });
});

describe('removing a subscription\'s discount', () => {
  it('records who and what, bills the next invoice at full price, and refuses a second removal', () => {
    const log = started(coupon('forever'));
    const removed = log.run({ type: 'RemoveDiscount', now: T0 + DAY });
    expect(removed).toEqual([
      { type: 'SubscriptionDiscountRemoved', data: { discount: { ...coupon('forever'), start: T0, end: null }, requested_by: 'seller', at: T0 + DAY, status: 'active', entitled: true } },
    ]);
    expect(log.active.discount).toBeNull();
    expect(log.renew(vat(19), 2).pricing).toMatchObject({ discount: null, total_discount: 0 });
    let error: unknown;
    try {
      log.run({ type: 'RemoveDiscount', now: T0 + 2 * DAY });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ kind: 'not_found', code: 'no_discount' });
  });

  it('refuses on an ended subscription', () => {
    const log = started(coupon('forever'));
    log.run({ type: 'Cancel', atPeriodEnd: false, refund: 'none', requestedBy: 'seller', now: T0 + DAY });
    expect(() => log.run({ type: 'RemoveDiscount', now: T0 + 2 * DAY })).toThrow(expect.objectContaining({ code: 'subscription_canceled' }));
  });
});
