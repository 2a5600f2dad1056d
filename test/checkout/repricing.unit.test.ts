import { describe, expect, it } from 'vitest';
import { checkoutSessionDecider, type CheckoutSessionEvent } from '../../modules/checkout/domain/checkoutSession.ts';
import { invoiceDecider, type InvoiceEvent } from '../../modules/checkout/domain/invoice.ts';
import { evolveSessionView } from '../../modules/checkout/domain/sessionView.ts';
import { deciderSpec } from '../../platform/domain/specification.ts';
import { discountTerms, priceLines, type AppliedDiscount, type PricingRecord } from '../../platform/domain/index.ts';

const T0 = 1_000_000;
const created: CheckoutSessionEvent = {
  type: 'CheckoutSessionCreated',
  data: {
    id: 'cs_1',
    organization_id: 'org_a',
    offer: { uuid: 'u1', id: 'key1', slug: 'pro', name: 'Pro plan' },
    plan: { product_id: 'p1', plan_id: 'pl1', plan_name: 'monthly' },
    lines: [{ name: 'Monthly', amount: 1900, product_id: 'p1' }],
    total: 1900,
    currency: 'EUR',
    mode: 'test',
    customer: null,
    metadata: {},
    promo: null,
    promo_tier: null,
    tax_behavior: 'exclusive',
    expires_at: T0 + 1800,
    created_at: T0,
  },
};
const started: CheckoutSessionEvent = { type: 'CheckoutSessionStarted', data: { invoice_id: 'in_1', customer: null, started_at: T0 + 10 } };
const attempted: CheckoutSessionEvent = { type: 'CheckoutSessionPaymentAttempted', data: { attempt_id: 'pa_1', attempted_at: T0 + 20 } };
const declined: CheckoutSessionEvent = {
  type: 'CheckoutSessionPaymentDeclined',
  data: { attempt_id: 'pa_1', code: 'card_declined', decline_code: 'generic_decline', card: null, declined_at: T0 + 21 },
};
const completed: CheckoutSessionEvent = {
  type: 'CheckoutSessionCompleted',
  data: { attempt_id: 'pa_1', invoice_id: 'in_1', card: { brand: 'visa', last4: '4242' }, completed_at: T0 + 21 },
};

const launch: AppliedDiscount = {
  coupon: { id: 'co_1', name: 'Launch', percent_off: 20, amount_off: null, currency: null, duration: 'once', duration_in_months: null, applies_to: null },
  promotion_code: { id: 'promo_1', code: 'LAUNCH20' },
};
const priced = priceLines([{ name: 'Monthly', amount: 1900 }], 'EUR', discountTerms(launch), { percentage: 19, behavior: 'exclusive' });
const pricing: PricingRecord = { subtotal: priced.subtotal, total_discount: priced.total_discount, total_tax: priced.total_tax, discount: launch, tax: null, customer_details: null };
const lines = priced.lines.map(({ discountable: _d, ...l }) => ({ ...l, product_id: 'p1' }));
const reprice = (now: number) => ({ type: 'RepriceSession' as const, lines, total: priced.total, pricing, now });
const repriced: CheckoutSessionEvent = { type: 'CheckoutSessionRepriced', data: { lines, total: priced.total, pricing, repriced_at: T0 + 15 } };

describe('RepriceSession', () => {
  const spec = deciderSpec(checkoutSessionDecider);
  it('records the new price on an open session, before and after its start', () => {
    spec.given([created]).when(reprice(T0 + 15)).then([repriced]);
    spec.given([created, started]).when(reprice(T0 + 15)).then([repriced]);
  });
  it('records nothing when the price is unchanged, whatever the key order of its pricing', () => {
    spec.given([created, repriced]).when(reprice(T0 + 16)).then([]);
    const reordered = { ...reprice(T0 + 16), pricing: Object.fromEntries(Object.entries(pricing).reverse()) as PricingRecord };
    spec.given([created, repriced]).when(reordered).then([]);
    spec.given([created]).when({ type: 'RepriceSession', lines: created.data.lines, total: 1900, pricing: { ...pricing, total_discount: 0, discount: null }, now: T0 + 16 }).then([
      { type: 'CheckoutSessionRepriced', data: { lines: created.data.lines, total: 1900, pricing: { ...pricing, total_discount: 0, discount: null }, repriced_at: T0 + 16 } },
    ]);
  });
  it('refuses while a payment is in flight, and allows it again after the decline', () => {
    spec.given([created, started, attempted]).when(reprice(T0 + 25)).thenThrows('payment_in_progress');
    spec.given([created, started, attempted, declined]).when(reprice(T0 + 25)).then([{ ...repriced, data: { ...repriced.data, repriced_at: T0 + 25 } }]);
  });
  it('refuses a price computed from a pricing that changed since', () => {
    spec.given([created, repriced]).when({ ...reprice(T0 + 20), total: 1, basis: null }).thenThrows('pricing_changed');
    spec.given([created, repriced]).when({ ...reprice(T0 + 20), total: 1, basis: pricing }).then([{ ...repriced, data: { ...repriced.data, total: 1, repriced_at: T0 + 20 } }]);
  });
  it('refuses a completed, an expired and an unknown session', () => {
    spec.given([created, started, attempted, completed]).when(reprice(T0 + 30)).thenThrows('session_completed');
    spec.given([created]).when(reprice(T0 + 1800)).thenThrows('session_expired');
    spec.given([]).when(reprice(T0)).thenThrows('not_found');
  });
  it('folds the new lines, total and pricing into the state and the view', () => {
    const state = [created, repriced].reduce(checkoutSessionDecider.evolve, checkoutSessionDecider.initialState());
    expect(state.status === 'open' && state.session).toMatchObject({ lines, total: priced.total, pricing });
    const view = [created, repriced].reduce(evolveSessionView, null);
    expect(view).toMatchObject({ total: priced.total, pricing });
  });
});

describe('RepriceInvoice', () => {
  const spec = deciderSpec(invoiceDecider);
  const invoiceCreated: InvoiceEvent = {
    type: 'InvoiceCreated',
    data: { id: 'in_1', number: 1, organization_id: 'org_a', session_id: 'cs_1', lines: created.data.lines, total: 1900, currency: 'EUR', customer: null, created_at: T0 },
  };
  const paid: InvoiceEvent = { type: 'InvoicePaid', data: { attempt_id: 'pa_1', card: { brand: 'visa', last4: '4242' }, paid_at: T0 + 5 } };
  const voided: InvoiceEvent = { type: 'InvoiceVoided', data: { voided_at: T0 + 5, reason: 'session_expired' } };
  const command = { type: 'RepriceInvoice' as const, lines, total: priced.total, pricing, now: T0 + 3 };
  const invoiceRepriced: InvoiceEvent = { type: 'InvoiceRepriced', data: { lines, total: priced.total, pricing, repriced_at: T0 + 3 } };

  it('reprices an open invoice once', () => {
    spec.given([invoiceCreated]).when(command).then([invoiceRepriced]);
    spec.given([invoiceCreated, invoiceRepriced]).when({ ...command, now: T0 + 4 }).then([]);
  });
  it('refuses once paid or void', () => {
    spec.given([invoiceCreated, paid]).when(command).thenThrows('invoice_paid');
    spec.given([invoiceCreated, voided]).when(command).thenThrows('invoice_void');
    spec.given([]).when(command).thenThrows('not_found');
  });
  it('creates an invoice whose total is its lines less the discount plus the exclusive tax', () => {
    const withTax: PricingRecord = { ...pricing, tax: { tax_rate: null, percentage: 19, behavior: 'exclusive', taxability_reason: 'standard_rated', calculated_by: 'rate_table' } };
    const { total: _t, created_at: _c, ...invoice } = { ...invoiceCreated.data, lines, pricing: withTax };
    const [event] = [invoiceDecider.decide({ type: 'CreateInvoice', invoice, now: T0 }, invoiceDecider.initialState())].flat();
    expect(event?.data).toMatchObject({ total: priced.total });
    expect(priced.total).toBe(1900 - 380 + 289);
  });
});
