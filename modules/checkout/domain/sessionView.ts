import {
  effectiveStatus,
  type CardSummary,
  type CheckoutSessionEvent,
  type OfferRef,
  type SessionCustomer,
  type SessionMode,
  type SessionStatus,
} from './checkoutSession.ts';
import { refundStatusOf, type InvoiceEvent, type InvoiceStatus, type RefundStatus } from './invoice.ts';
import type { PricingRecord } from '../../../platform/domain/index.ts';

export type InvoiceView = {
  id: string;
  number: number;
  status: InvoiceStatus;
  total: number;
  currency: string;
  customer: SessionCustomer | null;
  /** Refunded so far (minor units); absent until a first refund. */
  amount_refunded?: number;
  /** `refunded` or `partially_refunded` once money went back; absent or null before. */
  refund_status?: RefundStatus | null;
  /** Disputes (chargebacks) opened against its payment. */
  disputes?: number;
  /** Its discount and tax; absent or null when neither applied. */
  pricing?: PricingRecord | null;
};

/** A session as readers see it: its own events and its invoice's, folded together. */
export type SessionView = {
  id: string;
  organization_id: string;
  /** As recorded; readers apply effectiveStatus with their clock. */
  status: SessionStatus;
  total: number;
  currency: string;
  mode: SessionMode;
  expires_at: number;
  created_at: number;
  offer: OfferRef;
  /** The product the plan sells, as the plan names it (its route key or UUID). */
  product_id: string;
  customer: SessionCustomer | null;
  metadata: Record<string, string>;
  promo: string | null;
  promo_tier: string | null;
  started_at: number | null;
  cancelled_at: number | null;
  completed_at: number | null;
  expired_at: number | null;
  payment: CardSummary | null;
  last_decline: { code: string; decline_code: string | null } | null;
  invoice: InvoiceView | null;
  /** This session's own success_url / cancel_url, when its creator gave them. */
  success_url?: string;
  cancel_url?: string;
  /** The subscription the purchase made (a recurring plan's), as it started; absent before and otherwise. */
  subscription?: { id: string; status: 'trialing' | 'active' } | null;
  /** The test clock the subscription lives on. */
  test_clock?: string;
  /** A recurring plan's trial the purchase starts with. */
  trial_period_days?: number;
  /** The customer (`cus_…`) the purchase belongs to, from its completion or its invoice's payment; absent before. */
  customer_id?: string | null;
  /** Its discount and tax as they stand; absent or null when neither applied. */
  pricing?: PricingRecord | null;
};

export type CheckoutEvent = CheckoutSessionEvent | InvoiceEvent;

export function evolveSessionView(view: SessionView | null, event: CheckoutEvent): SessionView | null {
  if (event.type === 'CheckoutSessionCreated') {
    const d = event.data;
    return {
      id: d.id,
      organization_id: d.organization_id,
      status: 'open',
      total: d.total,
      currency: d.currency,
      mode: d.mode,
      expires_at: d.expires_at,
      created_at: d.created_at,
      offer: d.offer,
      product_id: d.plan.product_id,
      customer: d.customer,
      metadata: d.metadata,
      promo: d.promo,
      promo_tier: d.promo_tier ?? null,
      started_at: null,
      cancelled_at: null,
      completed_at: null,
      expired_at: null,
      payment: null,
      last_decline: null,
      invoice: null,
      ...(d.success_url ? { success_url: d.success_url } : {}),
      ...(d.cancel_url ? { cancel_url: d.cancel_url } : {}),
      ...(d.test_clock ? { test_clock: d.test_clock } : {}),
      ...(d.recurring?.trial_period_days ? { trial_period_days: d.recurring.trial_period_days } : {}),
      ...(d.pricing ? { pricing: d.pricing } : {}),
    };
  }
  if (view === null) return null;
  switch (event.type) {
    case 'CheckoutSessionStarted':
      return { ...view, started_at: event.data.started_at, customer: event.data.customer ?? view.customer };
    case 'CheckoutSessionCustomerChanged':
      return { ...view, customer: event.data.customer };
    case 'CheckoutSessionPaymentAttempted':
      return view;
    case 'CheckoutSessionPaymentDeclined':
      return { ...view, last_decline: { code: event.data.code, decline_code: event.data.decline_code } };
    case 'CheckoutSessionCancelled':
      return { ...view, cancelled_at: event.data.cancelled_at };
    case 'CheckoutSessionCompleted': {
      const subscriptionId = event.data.subscription_id;
      // Only a recurring session's completion names a subscription; a trial starts it trialing.
      const subscription = subscriptionId ? { id: subscriptionId, status: view.trial_period_days ? ('trialing' as const) : ('active' as const) } : null;
      const customerId = event.data.customer_id ?? view.customer_id;
      return {
        ...view,
        status: 'completed',
        completed_at: event.data.completed_at,
        payment: event.data.card,
        ...(subscription ? { subscription } : {}),
        ...(customerId ? { customer_id: customerId } : {}),
      };
    }
    case 'CheckoutSessionExpired':
      return { ...view, status: 'expired', expired_at: event.data.expired_at };
    case 'CheckoutSessionRepriced':
      return { ...view, total: event.data.total, pricing: event.data.pricing };
    case 'InvoiceCreated': {
      const d = event.data;
      const invoice: InvoiceView = { id: d.id, number: d.number, status: 'open', total: d.total, currency: d.currency, customer: d.customer };
      return { ...view, invoice: d.pricing ? { ...invoice, pricing: d.pricing } : invoice };
    }
    case 'InvoiceRepriced':
      return view.invoice ? { ...view, invoice: { ...view.invoice, total: event.data.total, pricing: event.data.pricing } } : view;
    case 'InvoiceCustomerChanged':
      return view.invoice ? { ...view, invoice: { ...view.invoice, customer: event.data.customer } } : view;
    case 'InvoicePaid': {
      if (!view.invoice) return view;
      const customerId = event.data.customer_id ?? view.customer_id;
      return { ...view, invoice: { ...view.invoice, status: 'paid' }, ...(customerId ? { customer_id: customerId } : {}) };
    }
    case 'InvoiceVoided':
      return view.invoice ? { ...view, invoice: { ...view.invoice, status: 'void' } } : view;
    case 'InvoicePaymentIntentCreated':
    case 'InvoiceUnowedPaymentRefunded':
    // A saved card's failures and the end of dunning belong to subscriptions' invoices, not a checkout's.
    case 'InvoicePaymentFailed':
    case 'InvoiceMarkedUncollectible':
      return view;
    case 'InvoiceRefunded':
      return view.invoice
        ? { ...view, invoice: { ...view.invoice, amount_refunded: event.data.amount_refunded, refund_status: refundStatusOf(event.data.amount_refunded, view.invoice.total) } }
        : view;
    case 'InvoiceDisputed':
      return view.invoice ? { ...view, invoice: { ...view.invoice, disputes: (view.invoice.disputes ?? 0) + 1 } } : view;
  }
}

/** The view as of `now`: an open session past its expiry reads as expired. */
export function viewAt(view: SessionView, now: number): SessionView {
  return { ...view, status: effectiveStatus(view.status, view.expires_at, now) };
}
