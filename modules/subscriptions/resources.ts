import { z } from 'zod';
import { DiscountSchema, InvoicePricingShape, invoicePricing } from '../checkout/index.ts';
import type { InvoiceView } from './domain/invoiceView.ts';
import type { SubscriptionState } from './domain/subscription.ts';

/** How subscriptions and invoices look in answers and in event webhooks' `data.object`. */

const STATUSES = ['incomplete', 'incomplete_expired', 'trialing', 'active', 'past_due', 'unpaid', 'canceled', 'paused'] as const;
const Unix = z.number().int();
const Period = z.object({ start: Unix, end: Unix });

/** A coupon as applied (Stripe's Discount's `coupon` and `promotion_code`), as checkout shows it. */
export const AppliedCouponSchema = DiscountSchema.shape.coupon;
const PromotionCodeSchema = DiscountSchema.shape.promotion_code;

export const SubscriptionDiscountSchema = z
  .object({
    object: z.literal('discount'),
    subscription: z.string(),
    coupon: AppliedCouponSchema,
    promotion_code: PromotionCodeSchema,
    start: Unix.describe('When the subscription took the coupon (its creation).'),
    end: Unix.nullable().describe('A `repeating` coupon: start + duration_in_months months; invoices whose period starts before it are discounted. Null for `forever` (and `once`, which prices the first invoice only).'),
  })
  .nullable()
  .describe("The coupon that prices the subscription's next invoices (Stripe's Discount); null when none, once used up or ended, or removed.");

/** The answer of DELETE …/discount (Stripe's deleted Discount). */
export const DeletedDiscountSchema = z.object({
  object: z.literal('discount'),
  deleted: z.literal(true),
  subscription: z.string(),
  coupon: AppliedCouponSchema,
  promotion_code: PromotionCodeSchema,
  start: Unix,
  end: Unix.nullable(),
});

export const SubscriptionSchema = z.object({
  id: z.string().describe('sub_…'),
  object: z.literal('subscription'),
  status: z.enum(STATUSES),
  entitled: z.boolean().describe('Whether the buyer should have access now: read this, never the status.'),
  mode: z.enum(['test', 'live']),
  customer: z.object({ email: z.string().nullable(), name: z.string().nullable() }),
  customer_id: z.string().nullable().describe('The customer (`cus_…`) of the checkout that made it; null for one made before customers.'),
  offer: z.object({ id: z.string(), slug: z.string(), name: z.string() }),
  plan: z.object({ id: z.string(), name: z.string(), product_id: z.string(), renew_interval: z.string().nullable(), invoice_interval: z.string() }),
  currency: z.string(),
  amount: z.number().int().describe('The price of one invoice period, minor units of `currency`.'),
  billing_cycle_anchor: Unix,
  current_period_start: Unix,
  current_period_end: Unix,
  trial_start: Unix.nullable(),
  trial_end: Unix.nullable(),
  cancel_at_period_end: z.boolean(),
  cancel_at: Unix.nullable().describe('When a scheduled cancellation takes effect (the end of the commitment term), or when it ended.'),
  canceled_at: Unix.nullable().describe('When it was canceled (ended by a cancellation); null while only scheduled.'),
  ended_at: Unix.nullable(),
  pause_collection: z.object({ behavior: z.literal('void'), paused_at: Unix, resumes_at: z.null() }).nullable().describe('Set while paused: no invoice is made.'),
  payment_method: z.object({ brand: z.string(), last4: z.string(), exp_month: z.number().int(), exp_year: z.number().int() }).nullable(),
  latest_invoice: z.object({ id: z.string(), number: z.number().int(), status: z.enum(['open', 'paid', 'uncollectible']) }).nullable(),
  next_payment_attempt: Unix.nullable(),
  test_clock: z.string().nullable(),
  discount: SubscriptionDiscountSchema,
  created_at: Unix,
  sequence: z.number().int().describe('How many events the subscription has had: a later state has a higher number.'),
});
export type SubscriptionResource = z.infer<typeof SubscriptionSchema>;

/** The subscription as `state` shows it; `sequence` is its stream's revision + 1. */
export function presentSubscription(state: Exclude<SubscriptionState, { status: 'none' }>, sequence: number): SubscriptionResource {
  const sub = state.sub;
  const pm = state.payment_method;
  const ended = state.ended_at !== null;
  return {
    id: sub.id,
    object: 'subscription',
    status: state.status,
    entitled: state.entitled,
    mode: sub.mode,
    customer: { email: sub.customer.email, name: sub.customer.name },
    customer_id: sub.customer_id ?? null,
    offer: { id: sub.offer.id, slug: sub.offer.slug, name: sub.offer.name },
    plan: { id: state.plan.plan_id, name: state.plan.plan_name, product_id: state.plan.product_id, renew_interval: state.plan.renew_interval, invoice_interval: state.plan.invoice_interval },
    currency: sub.currency,
    amount: state.amount,
    billing_cycle_anchor: state.anchor,
    current_period_start: state.current_period_start,
    current_period_end: state.current_period_end,
    trial_start: sub.trial_start,
    trial_end: state.trial_end,
    cancel_at_period_end: !ended && state.cancel_at !== null,
    cancel_at: state.cancel_at,
    canceled_at: state.canceled_at,
    ended_at: state.ended_at,
    pause_collection: state.status === 'paused' && state.paused_at !== null ? { behavior: 'void', paused_at: state.paused_at, resumes_at: null } : null,
    payment_method: pm ? { brand: pm.card.brand, last4: pm.card.last4, exp_month: pm.exp_month, exp_year: pm.exp_year } : null,
    latest_invoice: state.latest_invoice,
    next_payment_attempt: state.open_invoice && state.status !== 'paused' ? (state.open_invoice.next_payment_attempt ?? null) : null,
    test_clock: sub.test_clock,
    discount: state.discount
      ? { object: 'discount', subscription: sub.id, coupon: state.discount.coupon, promotion_code: state.discount.promotion_code, start: state.discount.start, end: state.discount.end }
      : null,
    created_at: sub.created_at,
    sequence,
  };
}

const Line = z.object({
  name: z.string(),
  amount: z.number().int().describe('As priced (tax included when the price is tax-inclusive), before any discount.'),
  discount_amount: z.number().int().optional().describe("The line's share of the discount (present when a discount or tax priced the invoice)."),
  tax_amount: z.number().int().optional().describe("The line's tax, on its amount less its discount."),
  period: Period.optional().describe('The period the line pays (a subscription invoice).'),
  proration: z.record(z.string(), z.unknown()).optional().describe('How a proration line was computed: old and new price, period, seconds used and left, anchor, behaviour, rounding.'),
});

export const InvoiceResourceSchema = z.object({
  id: z.string(),
  object: z.literal('invoice'),
  number: z.number().int(),
  status: z.enum(['draft', 'open', 'paid', 'void', 'uncollectible']),
  billing_reason: z.enum(['manual', 'subscription_create', 'subscription_cycle', 'subscription_update']).describe('`manual` for a one-time checkout\'s invoice (Stripe\'s word for an invoice no subscription made).'),
  subscription: z.string().nullable(),
  session_id: z.string().nullable().describe('The checkout that made it; null for a renewal or a plan change.'),
  mode: z.enum(['test', 'live']).nullable(),
  customer: z.object({ email: z.string().nullable(), name: z.string().nullable() }).nullable(),
  customer_id: z.string().nullable().describe('The customer (`cus_…`) who paid it, or a subscription\'s; null before it is paid or without an email.'),
  currency: z.string(),
  period: Period.nullable(),
  lines: z.array(Line),
  ...InvoicePricingShape,
  total: z.number().int().describe('subtotal − discount + exclusive tax, to the minor unit.'),
  amount_due: z.number().int().describe('What is charged: the total less the credit applied.'),
  amount_paid: z.number().int(),
  amount_refunded: z.number().int(),
  refund_status: z
    .enum(['refunded', 'partially_refunded'])
    .nullable()
    .describe('`refunded` when all of it went back, `partially_refunded` when some did; null when nothing was refunded (the status stays `paid`).'),
  attempt_count: z.number().int(),
  attempts: z.array(z.object({ attempt: z.number().int(), at: Unix, outcome: z.enum(['succeeded', 'failed']), code: z.string().nullable(), decline_code: z.string().nullable() })),
  next_payment_attempt: Unix.nullable(),
  payment: z.object({ brand: z.string(), last4: z.string() }).nullable(),
  created_at: Unix,
  paid_at: Unix.nullable(),
});
export type InvoiceResource = z.infer<typeof InvoiceResourceSchema>;

export function presentInvoice(view: InvoiceView): InvoiceResource {
  return {
    id: view.id,
    object: 'invoice',
    number: view.number,
    status: view.status,
    billing_reason: view.billing_reason,
    subscription: view.subscription,
    session_id: view.session_id,
    mode: view.mode,
    customer: view.customer,
    customer_id: view.customer_id ?? null,
    currency: view.currency,
    period: view.period,
    lines: view.lines.map((l) => ({
      name: l.name,
      amount: l.amount,
      ...(l.discount_amount !== undefined ? { discount_amount: l.discount_amount } : {}),
      ...(l.tax_amount !== undefined ? { tax_amount: l.tax_amount } : {}),
      ...(l.period ? { period: l.period } : {}),
      ...(l.proration ? { proration: { ...l.proration } } : {}),
    })),
    // A document of the read model's previous version lacks `pricing`: neither applied then.
    ...invoicePricing(view.pricing ?? null, view.total),
    total: view.total,
    amount_due: view.amount_due,
    amount_paid: view.amount_paid,
    amount_refunded: view.amount_refunded,
    // A document of the read model's previous version lacks it until the rebuild takes over.
    refund_status: view.refund_status ?? (view.amount_refunded > 0 ? (view.amount_refunded >= view.total ? 'refunded' : 'partially_refunded') : null),
    attempt_count: view.attempt_count,
    attempts: view.attempts,
    next_payment_attempt: view.next_payment_attempt,
    payment: view.payment,
    created_at: view.created_at,
    paid_at: view.paid_at,
  };
}
