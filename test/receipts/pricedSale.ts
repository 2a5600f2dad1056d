import { randomUUID } from 'node:crypto';
import type { EventMetadata, EventStore } from '../../platform/eventStore/index.ts';
import { createCoupon, createPromotionCode } from '../../modules/discounts/discountCommands.ts';
import { discountTerms, priceLines, taxTerms, type AppliedDiscount, type AppliedTax, type CustomerTaxDetails, type PricingRecord, type TaxBehavior } from '../../platform/domain/index.ts';

/**
 * A paid sale with a discount and a tax, written as checkout records one: the session's and the
 * invoice's events with `pricing` and priced lines (platform/domain/invoiceTotals.ts), so the
 * receipts, credit notes and reports read what a priced checkout leaves in the log.
 */

export const GERMAN_VAT: AppliedTax = {
  tax_rate: { id: 'txr_de', display_name: 'VAT', percentage: 19, country: 'DE', state: null, jurisdiction: null },
  percentage: 19,
  behavior: 'exclusive',
  taxability_reason: 'standard_rated',
  calculated_by: 'rate_table',
};

export const REVERSE_CHARGE: AppliedTax = { tax_rate: null, percentage: 0, behavior: 'exclusive', taxability_reason: 'reverse_charge', calculated_by: 'rate_table' };

export const launch20 = (): AppliedDiscount => ({
  coupon: { id: 'co_launch', name: 'Launch', percent_off: 20, amount_off: null, currency: null, duration: 'once', duration_in_months: null, applies_to: null },
  promotion_code: { id: 'promo_launch', code: 'LAUNCH20' },
});

export const consumer = (country: string): CustomerTaxDetails => ({ address: { country, postal_code: null, state: null }, business_name: null, tax_id: null, tax_exempt: 'none' });

export const business = (country: string, vat: string, name: string): CustomerTaxDetails => ({
  address: { country, postal_code: null, state: null },
  business_name: name,
  tax_id: { type: 'eu_vat', value: vat, country, verification: 'unverified' },
  tax_exempt: 'reverse',
});

const codes = new Map<string, string>();

/**
 * The discount as a real coupon and promotion code of the organization (made once), so the
 * redemption the completed session asks for finds them, as after a real checkout.
 */
async function realDiscount(store: EventStore, organizationId: string, discount: AppliedDiscount, at: number): Promise<AppliedDiscount> {
  const code = discount.promotion_code?.code;
  const key = `${organizationId}:${discount.coupon.id}:${code ?? ''}`;
  let promotionCodeId = codes.get(key);
  if (promotionCodeId === undefined) {
    const ctx = { store, metadata: { correlation_id: 'priced_sale', actor: { type: 'cli' as const }, organization_id: organizationId, occurred_at: at } };
    const c = discount.coupon;
    await createCoupon(ctx, { organizationId, id: c.id, name: c.name, percent_off: c.percent_off, amount_off: c.amount_off, currency: c.currency, duration: c.duration });
    promotionCodeId = code ? (await createPromotionCode(ctx, { organizationId, coupon: c.id, code })).id : '';
    codes.set(key, promotionCodeId);
  }
  return code ? { ...discount, promotion_code: { id: promotionCodeId, code } } : discount;
}

export type PricedSale = { sessionId: string; invoiceId: string; number: number; total: number; pricing: PricingRecord; lines: ReturnType<typeof priceLines>['lines'] };

let counter = 0;

export async function appendPricedSale(
  store: EventStore,
  input: {
    organizationId: string;
    lines: Array<{ name: string; amount: number }>;
    currency?: string;
    discount?: AppliedDiscount | null;
    tax?: AppliedTax | null;
    customer?: CustomerTaxDetails | null;
    behavior?: TaxBehavior;
    email?: string;
    at: number;
    number?: number;
  },
): Promise<PricedSale> {
  counter += 1;
  const currency = input.currency ?? 'eur';
  const tax = input.tax === undefined ? GERMAN_VAT : input.tax && input.behavior ? { ...input.tax, behavior: input.behavior } : input.tax;
  const discount = input.discount ? await realDiscount(store, input.organizationId, input.discount, input.at) : null;
  const priced = priceLines(input.lines, currency, discount ? discountTerms(discount) : null, tax ? taxTerms(tax) : null);
  const pricing: PricingRecord = {
    subtotal: priced.subtotal,
    total_discount: priced.total_discount,
    total_tax: priced.total_tax,
    discount,
    tax,
    customer_details: input.customer ?? null,
  };
  const suffix = `${Date.now().toString(36)}${counter}${randomUUID().slice(0, 6)}`;
  const sessionId = `cs_priced${suffix}`;
  const invoiceId = `in_priced${suffix}`;
  const number = input.number ?? 9000 + counter;
  const customer = { email: input.email ?? 'buyer@example.com', name: 'Ada Buyer', user_id: null };
  const metadata: EventMetadata = { correlation_id: `priced_${suffix}`, actor: { type: 'system', name: 'test' }, organization_id: input.organizationId, occurred_at: input.at };
  const event = (type: string, data: unknown) => ({ id: randomUUID(), type, data, metadata });
  const card = { brand: 'visa', last4: '4242' };
  await store.append(
    `checkout_session-${sessionId}`,
    [
      event('CheckoutSessionCreated', {
        id: sessionId,
        organization_id: input.organizationId,
        offer: { uuid: randomUUID(), id: 'off_priced', slug: 'priced', name: 'Priced offer' },
        plan: { product_id: 'prod_priced', plan_id: 'plan_priced', plan_name: 'Pro' },
        lines: priced.lines,
        total: priced.total,
        currency,
        mode: 'test',
        customer,
        metadata: {},
        promo: null,
        promo_tier: null,
        pricing,
        expires_at: input.at + 3600,
        created_at: input.at,
      }),
      event('CheckoutSessionStarted', { invoice_id: invoiceId, customer, started_at: input.at }),
    ],
    'no_stream',
  );
  await store.append(
    `invoice-${invoiceId}`,
    [
      event('InvoiceCreated', {
        id: invoiceId,
        number,
        organization_id: input.organizationId,
        session_id: sessionId,
        lines: priced.lines,
        total: priced.total,
        currency,
        customer,
        created_at: input.at,
        pricing,
      }),
      event('InvoicePaid', { attempt_id: `att_${suffix}`, card, paid_at: input.at, charge_id: `ch_test_${suffix}`, provider: 'test' }),
    ],
    'no_stream',
  );
  await store.append(
    `checkout_session-${sessionId}`,
    [event('CheckoutSessionCompleted', { attempt_id: `att_${suffix}`, invoice_id: invoiceId, card, completed_at: input.at })],
    1,
  );
  return { sessionId, invoiceId, number, total: priced.total, pricing, lines: priced.lines };
}

/** A refund of the sale as the refund route records it (its credit note follows from it). */
export async function appendRefund(store: EventStore, sale: PricedSale, input: { organizationId: string; amount: number; amountRefunded: number; at: number; currency?: string }): Promise<void> {
  const metadata: EventMetadata = { correlation_id: `refund_${sale.invoiceId}`, actor: { type: 'system', name: 'test' }, organization_id: input.organizationId, occurred_at: input.at };
  await store.append(
    `invoice-${sale.invoiceId}`,
    [
      {
        id: randomUUID(),
        type: 'InvoiceRefunded',
        data: {
          refund_id: `re_${randomUUID().slice(0, 8)}`,
          charge_id: 'ch_test',
          amount: input.amount,
          amount_refunded: input.amountRefunded,
          currency: input.currency ?? 'eur',
          fully_refunded: input.amountRefunded >= sale.total,
          refunded_at: input.at,
        },
        metadata,
      },
    ],
    'any',
  );
}
