import { refundStatusOf, type InvoiceEvent, type InvoiceLine, type RefundStatus } from '../../checkout/domain/invoice.ts';
import type { PricingRecord } from '../../../platform/domain/index.ts';

/**
 * An invoice as the seller and integrators read it (`GET /api/invoices/{id}`), folded from its
 * own stream: a checkout's or a subscription's. Pure.
 *
 * `billing_reason` keeps Stripe's vocabulary: a subscription's invoice says `subscription_create`,
 * `subscription_cycle` or `subscription_update`; a one-time checkout's says `manual`, Stripe's
 * closest (an invoice not made by a subscription), so clients typed on Stripe's enum read it;
 * its `session_id` tells which checkout made it.
 */
export type InvoiceAttempt = {
  attempt: number;
  at: number;
  outcome: 'succeeded' | 'failed';
  code: string | null;
  decline_code: string | null;
};

export type InvoiceView = {
  id: string;
  object: 'invoice';
  number: number;
  organization_id: string;
  status: 'draft' | 'open' | 'paid' | 'void' | 'uncollectible';
  billing_reason: 'manual' | 'subscription_create' | 'subscription_cycle' | 'subscription_update';
  subscription: string | null;
  session_id: string | null;
  mode: 'test' | 'live' | null;
  customer: { email: string | null; name: string | null } | null;
  /** The customer (`cus_…`); absent on documents and events from before customers: null. */
  customer_id?: string | null;
  currency: string;
  period: { start: number; end: number } | null;
  lines: InvoiceLine[];
  /** Its discount and tax (Stripe's subtotal, total_discount_amounts, total_tax_amounts come from it); null when neither applied. */
  pricing: PricingRecord | null;
  total: number;
  amount_due: number;
  amount_paid: number;
  amount_refunded: number;
  /** `refunded` / `partially_refunded` once money went back (the status stays `paid`); null before. */
  refund_status: RefundStatus | null;
  attempt_count: number;
  attempts: InvoiceAttempt[];
  next_payment_attempt: number | null;
  payment: { brand: string; last4: string } | null;
  created_at: number;
  paid_at: number | null;
  voided_at: number | null;
  marked_uncollectible_at: number | null;
};

/** When an invoice event happened, in its own data: for a subscription on a test clock, the clock's time. */
export function invoiceEventTime(event: InvoiceEvent): number {
  switch (event.type) {
    case 'InvoiceCreated':
      return event.data.created_at;
    case 'InvoiceCustomerChanged':
      return event.data.changed_at;
    case 'InvoiceRepriced':
      return event.data.repriced_at;
    case 'InvoicePaid':
      return event.data.paid_at;
    case 'InvoiceVoided':
      return event.data.voided_at;
    case 'InvoicePaymentFailed':
      return event.data.failed_at;
    case 'InvoiceMarkedUncollectible':
      return event.data.at;
    case 'InvoicePaymentIntentCreated':
      return event.data.created_at;
    case 'InvoiceRefunded':
      return event.data.refunded_at;
    case 'InvoiceUnowedPaymentRefunded':
      return event.data.refunded_at;
    case 'InvoiceDisputed':
      return event.data.disputed_at;
  }
}

const customerOf = (c: { email: string | null; name: string | null } | null) => (c ? { email: c.email, name: c.name } : null);

/** The invoice after `event`; null before its creation. */
export function evolveInvoiceView(view: InvoiceView | null, event: InvoiceEvent): InvoiceView | null {
  if (event.type === 'InvoiceCreated') {
    const d = event.data;
    const subscription = d.subscription_id ?? null;
    return {
      id: d.id,
      object: 'invoice',
      number: d.number,
      organization_id: d.organization_id,
      status: 'open',
      billing_reason: d.billing_reason === undefined || d.billing_reason === 'checkout' ? 'manual' : d.billing_reason,
      subscription,
      session_id: d.session_id,
      mode: d.mode ?? null,
      customer: customerOf(d.customer),
      customer_id: d.customer_id ?? null,
      currency: d.currency,
      period: d.period ?? null,
      lines: d.lines,
      pricing: d.pricing ?? null,
      total: d.total,
      amount_due: d.amount_due ?? d.total,
      amount_paid: 0,
      amount_refunded: 0,
      refund_status: null,
      attempt_count: 0,
      attempts: [],
      // A subscription's invoice is charged as soon as it is made (Stripe's automatic collection).
      next_payment_attempt: subscription !== null && d.session_id === null ? d.created_at : null,
      payment: null,
      created_at: d.created_at,
      paid_at: null,
      voided_at: null,
      marked_uncollectible_at: null,
    };
  }
  if (!view) return null;
  switch (event.type) {
    case 'InvoiceCustomerChanged':
      return { ...view, customer: customerOf(event.data.customer) };
    case 'InvoiceRepriced':
      return { ...view, lines: event.data.lines, total: event.data.total, amount_due: event.data.total, pricing: event.data.pricing };
    case 'InvoicePaid': {
      const attempt = view.attempts.length + 1;
      return {
        ...view,
        status: 'paid',
        amount_paid: view.amount_due,
        attempt_count: Math.max(view.attempt_count, attempt),
        attempts: [...view.attempts, { attempt, at: event.data.paid_at, outcome: 'succeeded', code: null, decline_code: null }],
        next_payment_attempt: null,
        payment: event.data.card,
        paid_at: event.data.paid_at,
        customer_id: event.data.customer_id ?? view.customer_id ?? null,
      };
    }
    case 'InvoiceVoided':
      return { ...view, status: 'void', next_payment_attempt: null, voided_at: event.data.voided_at };
    case 'InvoicePaymentFailed': {
      const d = event.data;
      return {
        ...view,
        attempt_count: Math.max(view.attempt_count, d.attempt),
        attempts: [...view.attempts, { attempt: d.attempt, at: d.failed_at, outcome: 'failed', code: d.code, decline_code: d.decline_code }],
        next_payment_attempt: d.next_payment_attempt,
      };
    }
    case 'InvoiceMarkedUncollectible':
      return { ...view, status: 'uncollectible', next_payment_attempt: null, marked_uncollectible_at: event.data.at };
    case 'InvoiceRefunded':
      return { ...view, amount_refunded: event.data.amount_refunded, refund_status: refundStatusOf(event.data.amount_refunded, view.total) };
    case 'InvoicePaymentIntentCreated':
    case 'InvoiceUnowedPaymentRefunded':
    case 'InvoiceDisputed':
      return view;
  }
}

/** The invoice as its events up to `asOf` (their own times) leave it; null when it did not exist yet. */
export function invoiceAsOf(events: readonly InvoiceEvent[], asOf = Number.MAX_SAFE_INTEGER): InvoiceView | null {
  let view: InvoiceView | null = null;
  for (const e of events) if (invoiceEventTime(e) <= asOf) view = evolveInvoiceView(view, e);
  return view;
}

export { invoiceStream } from '../../checkout/domain/invoice.ts';
