import { describe, expect, it } from 'vitest';
import { DEFAULT_PORTAL_SETTINGS } from '../../modules/portal/domain/portalSettings.ts';
import { renderPortal, type PortalSubscription } from '../../modules/portal/http/renderPortal.ts';
import { discountWords } from '../../modules/portal/portalContents.ts';
import { subscriptionDecider, type Active, type SubscriptionCommand } from '../../modules/subscriptions/domain/subscription.ts';
import { asArray } from '../../platform/domain/decider.ts';
import type { AppliedDiscount, CouponDuration } from '../../platform/domain/index.ts';

/** 2027-01-31T12:00:00Z. */
const T0 = Date.UTC(2027, 0, 31, 12) / 1000;

function coupon(duration: CouponDuration, off: { percent_off: number } | { amount_off: number; currency: string }): AppliedDiscount {
  return {
    coupon: { id: 'co_1', name: 'Launch', percent_off: null, amount_off: null, currency: null, ...off, duration, duration_in_months: duration === 'repeating' ? 3 : null, applies_to: null },
    promotion_code: null,
  };
}

/** A subscription made at T0 with `discount`; `firstInvoice: false` for one whose first invoice is still to come. */
function subscribed(discount: AppliedDiscount, firstInvoice = true): Active {
  const command: SubscriptionCommand = {
    type: 'CreateSubscription',
    subscription: {
      id: 'sub_1',
      organization_id: 'org_a',
      mode: 'test',
      customer: { email: 'ada@example.com', name: 'Ada', user_id: null },
      offer: { uuid: 'u1', id: 'o1', slug: 'pro', name: 'Pro' },
      plan: { product_id: 'p1', plan_id: 'monthly', plan_name: 'Monthly', renew_interval: 'P1M', invoice_interval: 'P1M' },
      currency: 'EUR',
      lines: [{ name: 'Pro', amount: 1900 }],
      amount: 1900,
      session_id: 'cs_1',
      payment_method: null,
      billing_cycle_anchor: T0,
      current_period_start: T0,
      current_period_end: Date.UTC(2027, 1, 28, 12) / 1000,
      trial_start: null,
      trial_end: null,
      first_invoice: firstInvoice ? { id: 'in_0', number: 1, amount: 1520, paid: true } : null,
      test_clock: null,
      discount,
    },
    now: T0,
  };
  const state = asArray(subscriptionDecider.decide(command, subscriptionDecider.initialState())).reduce(subscriptionDecider.evolve, subscriptionDecider.initialState());
  if (state.status === 'none') throw new Error('not created');
  return state;
}

describe("the portal's words for a subscription's discount", () => {
  it('says until when a repeating coupon lasts, and nothing of an end for a forever one', () => {
    expect(discountWords(subscribed(coupon('repeating', { percent_off: 20 })))).toBe('20% off until 30 Apr 2027');
    expect(discountWords(subscribed(coupon('forever', { percent_off: 12.5 })))).toBe('12.5% off');
    expect(discountWords(subscribed(coupon('forever', { amount_off: 500, currency: 'EUR' })))).toBe('€5.00 off');
  });

  it('shows a once coupon only while its invoice is still to come', () => {
    expect(discountWords(subscribed(coupon('once', { percent_off: 20 })))).toBeNull();
    expect(discountWords(subscribed(coupon('once', { percent_off: 20 }), false))).toBe('20% off your next invoice');
  });

  it('puts the words on the subscription page, escaped, and leaves them off an ended subscription', () => {
    const sub: PortalSubscription = {
      id: 'sub_1',
      product: 'Pro',
      status: 'active',
      entitled: true,
      mode: 'test',
      amount: 1900,
      currency: 'EUR',
      interval: 'a month',
      currentPeriodEnd: T0,
      cancelAt: null,
      ended: false,
      card: null,
      discount: '20% off until 30 Apr 2027',
      plans: [],
      invoices: [],
    };
    const view = {
      seller: { name: 'Acme', address: [], logoUrl: null },
      portalPath: '/portal/org_a',
      customer: { email: 'ada@example.com', name: 'Ada' },
      csrf: 'csrf',
      settings: DEFAULT_PORTAL_SETTINGS,
      returnUrl: null,
      notice: null,
      purchases: [],
    };
    expect(renderPortal({ ...view, subscriptions: [sub] }, 'n')).toContain('<p class="meta" id="discount-sub_1">20% off until 30 Apr 2027</p>');
    expect(renderPortal({ ...view, subscriptions: [{ ...sub, discount: '<b>' }] }, 'n')).toContain('id="discount-sub_1">&lt;b&gt;</p>');
    expect(renderPortal({ ...view, subscriptions: [{ ...sub, ended: true }] }, 'n')).not.toContain('id="discount-sub_1"');
    expect(renderPortal({ ...view, subscriptions: [{ ...sub, discount: null }] }, 'n')).not.toContain('id="discount-sub_1"');
  });
});
