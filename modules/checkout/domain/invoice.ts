import { type Decider, type DomainEvent, type PricingRecord, conflict, notFound } from '../../../platform/domain/index.ts';
import { sameCustomer, samePrice, type CardSummary, type PaymentMethod, type SessionCustomer, type SessionLine } from './checkoutSession.ts';

/** A line of an invoice; a subscription's lines say which period they pay, and a proration how it was computed. */
export type InvoiceLine = SessionLine & { period?: { start: number; end: number }; proration?: Readonly<Record<string, unknown>> };

/** A checkout's invoice; a subscription's may also end `uncollectible`. */
export type InvoiceStatus = 'open' | 'paid' | 'void';

/**
 * Where the money of a paid invoice stands after refunds, in Stripe's words for a Charge
 * (`refunded` once all of it went back); null while nothing was refunded. The invoice's own
 * `status` stays `paid`, as Stripe's does: a refund does not unpay it.
 */
export type RefundStatus = 'refunded' | 'partially_refunded';

export const refundStatusOf = (amountRefunded: number, total: number): RefundStatus | null =>
  amountRefunded <= 0 ? null : amountRefunded >= total ? 'refunded' : 'partially_refunded';

/** Why an invoice exists, in Stripe's words: a checkout's, or a subscription's first, cycle or change. */
export type BillingReason = 'checkout' | 'subscription_create' | 'subscription_cycle' | 'subscription_update';

export type InvoiceEvent =
  | DomainEvent<
      'InvoiceCreated',
      {
        id: string;
        number: number;
        organization_id: string;
        /** The checkout it belongs to; null for a subscription's renewal or change. */
        session_id: string | null;
        lines: InvoiceLine[];
        total: number;
        currency: string;
        customer: SessionCustomer | null;
        created_at: number;
        /** A subscription's invoice: which one, why, and the period it pays (absent on a one-time checkout's). */
        subscription_id?: string;
        billing_reason?: BillingReason;
        period?: { start: number; end: number };
        /** What is charged: the total less the customer's credit (absent: the total). */
        amount_due?: number;
        mode?: 'test' | 'live';
        /** The customer (`cus_…`) a subscription's invoice is made out to; a checkout's learns it when paid. */
        customer_id?: string;
        /** Its discount and tax (absent: neither; the total is the lines' sum). */
        pricing?: PricingRecord;
      }
    >
  /** An open invoice priced again: the buyer changed the discount code or what the tax needs before paying. */
  | DomainEvent<'InvoiceRepriced', { lines: InvoiceLine[]; total: number; pricing: PricingRecord; repriced_at: number }>
  | DomainEvent<'InvoiceCustomerChanged', { customer: SessionCustomer; changed_at: number }>
  | DomainEvent<
      'InvoicePaid',
      {
        attempt_id: string;
        card: CardSummary;
        paid_at: number;
        /** The provider's charge (Stripe's `ch_…`, the test provider's `ch_test_…`); absent on events recorded before it was kept. */
        charge_id?: string | null;
        provider?: string;
        /** The card this payment saved for later charges (a recurring checkout's), so recovery completes the session with it. */
        payment_method?: PaymentMethod;
        /** The customer (`cus_…`) who paid; absent before customers existed, or with no email. */
        customer_id?: string;
      }
    >
  | DomainEvent<'InvoiceVoided', { voided_at: number; reason: string }>
  /** A charge of a subscription's saved card that failed; the subscription's dunning decides what follows. */
  | DomainEvent<
      'InvoicePaymentFailed',
      { attempt_id: string; attempt: number; code: string; decline_code: string | null; message: string; next_payment_attempt: number | null; failed_at: number }
    >
  /** The last retry failed: nothing more will be tried (Stripe's `uncollectible`). */
  | DomainEvent<'InvoiceMarkedUncollectible', { at: number; reason: string }>
  /** A live payment object (a Stripe PaymentIntent) made for this invoice; the buyer's browser confirms it. */
  | DomainEvent<'InvoicePaymentIntentCreated', { payment_intent_id: string; attempt: number; amount: number; currency: string; created_at: number }>
  | DomainEvent<
      'InvoiceRefunded',
      {
        refund_id: string;
        charge_id: string;
        amount: number;
        amount_refunded: number;
        currency: string;
        fully_refunded: boolean;
        refunded_at: number;
        /** Why, as the seller said (a credit note's reason: duplicate, fraudulent, order_change, product_unsatisfactory); absent when not said. */
        reason?: string;
      }
    >
  /**
   * A payment that succeeded for this invoice when it could no longer be paid (voided, or paid by
   * another attempt), returned to the buyer in full: nothing was bought with it.
   */
  | DomainEvent<
      'InvoiceUnowedPaymentRefunded',
      { payment_intent_id: string; refund_id: string; charge_id: string; amount: number; currency: string; reason: string; refunded_at: number }
    >
  | DomainEvent<
      'InvoiceDisputed',
      { dispute_id: string; charge_id: string; amount: number; currency: string; reason: string; status: string; disputed_at: number }
    >;

type Created = Extract<InvoiceEvent, { type: 'InvoiceCreated' }>['data'];

export type InvoiceCommand =
  | { type: 'CreateInvoice'; invoice: Omit<Created, 'created_at' | 'total'>; now: number }
  | { type: 'ChangeInvoiceCustomer'; customer: SessionCustomer; now: number }
  /** Follows its checkout session's price while the invoice is open. */
  | { type: 'RepriceInvoice'; lines: InvoiceLine[]; total: number; pricing: PricingRecord; now: number }
  /** A GDPR erasure of the buyer (modules/customers): their details replaced, paid or not. */
  | { type: 'RedactInvoiceCustomer'; customer: SessionCustomer; now: number }
  | {
      type: 'PayInvoice';
      attemptId: string;
      card: CardSummary;
      /** The session's customer when the charge was claimed: the paid invoice is made out to them. */
      customer: SessionCustomer | null;
      chargeId?: string | null;
      provider?: string;
      paymentMethod?: PaymentMethod | null;
      /** The customer the payment belongs to (modules/customers ensureCustomer). */
      customerId?: string | null;
      now: number;
    }
  | { type: 'VoidInvoice'; reason: string; now: number }
  | { type: 'RecordPaymentFailure'; attemptId: string; attempt: number; code: string; declineCode: string | null; message: string; nextPaymentAttempt: number | null; now: number }
  | { type: 'MarkUncollectible'; reason: string; now: number }
  | { type: 'RecordPaymentIntent'; paymentIntentId: string; attempt: number; amount: number; currency: string; now: number }
  /**
   * Brings the refunded amount up to the provider's running total (Stripe's `amount_refunded`), so
   * the refund route and the `charge.refunded` webhook, in any order and any number of times,
   * record each refunded unit once.
   */
  | { type: 'RecordRefund'; refundId: string; chargeId: string; amountRefunded: number; reason?: string | null; now: number }
  | { type: 'RecordUnowedRefund'; paymentIntentId: string; refundId: string; chargeId: string; amount: number; reason: string; now: number }
  | { type: 'RecordDispute'; disputeId: string; chargeId: string; amount: number; currency: string; reason: string; status: string; now: number };

export type InvoiceState =
  | { status: 'none' }
  | {
      status: InvoiceStatus | 'uncollectible';
      invoice: Created;
      paidAttempt: string | null;
      chargeId?: string | null;
      /** Live payment objects made for it, oldest first. */
      paymentIntents?: string[];
      amountRefunded?: number;
      disputes?: string[];
      /** PaymentIntents refunded because the invoice could no longer take them. */
      returned?: string[];
      /** Attempts of a saved card that failed, by attempt id. */
      failedAttempts?: string[];
    };

export const invoiceStream = (id: string) => `invoice-${id}`;

/** What the invoice charges: its lines less the discount, plus a tax added on top (invoiceTotals.ts). */
export function invoiceTotal(lines: readonly InvoiceLine[], pricing: PricingRecord | undefined): number {
  const subtotal = lines.reduce((sum, l) => sum + l.amount, 0);
  if (!pricing) return subtotal;
  return subtotal - pricing.total_discount + (pricing.tax?.behavior === 'exclusive' ? pricing.total_tax : 0);
}

export const invoiceDecider: Decider<InvoiceState, InvoiceCommand, InvoiceEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'InvoiceCreated':
        return { status: 'open', invoice: event.data, paidAttempt: null };
      case 'InvoiceCustomerChanged':
        return state.status === 'none' ? state : { ...state, invoice: { ...state.invoice, customer: event.data.customer } };
      case 'InvoiceRepriced':
        return state.status === 'none'
          ? state
          : { ...state, invoice: { ...state.invoice, lines: event.data.lines, total: event.data.total, pricing: event.data.pricing } };
      case 'InvoicePaid':
        return state.status === 'none' ? state : { ...state, status: 'paid', paidAttempt: event.data.attempt_id, chargeId: event.data.charge_id ?? null };
      case 'InvoiceVoided':
        return state.status === 'none' ? state : { ...state, status: 'void' };
      case 'InvoicePaymentFailed':
        return state.status === 'none' ? state : { ...state, failedAttempts: [...(state.failedAttempts ?? []), event.data.attempt_id] };
      case 'InvoiceMarkedUncollectible':
        return state.status === 'none' ? state : { ...state, status: 'uncollectible' };
      case 'InvoicePaymentIntentCreated':
        return state.status === 'none' ? state : { ...state, paymentIntents: [...(state.paymentIntents ?? []), event.data.payment_intent_id] };
      case 'InvoiceRefunded':
        return state.status === 'none' ? state : { ...state, amountRefunded: event.data.amount_refunded };
      case 'InvoiceDisputed':
        return state.status === 'none' ? state : { ...state, disputes: [...(state.disputes ?? []), event.data.dispute_id] };
      case 'InvoiceUnowedPaymentRefunded':
        return state.status === 'none' ? state : { ...state, returned: [...(state.returned ?? []), event.data.payment_intent_id] };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'CreateInvoice': {
        if (state.status !== 'none') return [];
        const total = invoiceTotal(command.invoice.lines, command.invoice.pricing);
        return { type: 'InvoiceCreated', data: { ...command.invoice, total, created_at: command.now } };
      }
      case 'ChangeInvoiceCustomer':
        if (state.status === 'none') throw notFound('Invoice');
        if (sameCustomer(command.customer, state.invoice.customer)) return [];
        if (state.status === 'paid') throw conflict('invoice_paid', 'The invoice is paid; its customer is final.');
        if (state.status === 'void') throw conflict('invoice_void', 'The invoice is void; its customer is final.');
        return { type: 'InvoiceCustomerChanged', data: { customer: command.customer, changed_at: command.now } };
      case 'RepriceInvoice':
        if (state.status === 'none') throw notFound('Invoice');
        if (state.status === 'paid') throw conflict('invoice_paid', 'The invoice is paid; its price is final.');
        if (state.status === 'void') throw conflict('invoice_void', 'The invoice is void; its price is final.');
        if (state.status !== 'open') throw conflict('invoice_not_open', 'Only an open invoice can be priced again.');
        if (samePrice(state.invoice, command)) return [];
        return { type: 'InvoiceRepriced', data: { lines: command.lines, total: command.total, pricing: command.pricing, repriced_at: command.now } };
      case 'RedactInvoiceCustomer':
        if (state.status === 'none') throw notFound('Invoice');
        if (sameCustomer(command.customer, state.invoice.customer)) return [];
        return { type: 'InvoiceCustomerChanged', data: { customer: command.customer, changed_at: command.now } };
      case 'PayInvoice': {
        if (state.status === 'none') throw notFound('Invoice');
        if (state.paidAttempt === command.attemptId) return [];
        if (state.status === 'paid') throw conflict('invoice_paid', 'The invoice is already paid.');
        if (state.status === 'void') throw conflict('invoice_void', 'The invoice is void and cannot be paid.');
        // An uncollectible invoice may still be paid (Stripe allows it): the card update came late.
        const paid: InvoiceEvent = {
          type: 'InvoicePaid',
          data: {
            attempt_id: command.attemptId,
            card: command.card,
            paid_at: command.now,
            ...(command.chargeId !== undefined ? { charge_id: command.chargeId } : {}),
            ...(command.provider !== undefined ? { provider: command.provider } : {}),
            ...(command.paymentMethod ? { payment_method: command.paymentMethod } : {}),
            ...(command.customerId ? { customer_id: command.customerId } : {}),
          },
        };
        // In the same append as the payment, so no late correction can slip in between.
        if (command.customer === null || sameCustomer(command.customer, state.invoice.customer)) return paid;
        return [{ type: 'InvoiceCustomerChanged', data: { customer: command.customer, changed_at: command.now } }, paid];
      }
      case 'RecordPaymentFailure':
        if (state.status === 'none') throw notFound('Invoice');
        if (state.failedAttempts?.includes(command.attemptId)) return [];
        if (state.status !== 'open') return [];
        return {
          type: 'InvoicePaymentFailed',
          data: {
            attempt_id: command.attemptId,
            attempt: command.attempt,
            code: command.code,
            decline_code: command.declineCode,
            message: command.message,
            next_payment_attempt: command.nextPaymentAttempt,
            failed_at: command.now,
          },
        };
      case 'MarkUncollectible':
        if (state.status === 'none') throw notFound('Invoice');
        if (state.status !== 'open') return [];
        return { type: 'InvoiceMarkedUncollectible', data: { at: command.now, reason: command.reason } };
      case 'VoidInvoice':
        if (state.status === 'none') throw notFound('Invoice');
        if (state.status === 'void') return [];
        if (state.status === 'paid') throw conflict('invoice_paid', 'A paid invoice cannot be voided.');
        return { type: 'InvoiceVoided', data: { voided_at: command.now, reason: command.reason } };
      case 'RecordPaymentIntent':
        if (state.status === 'none') throw notFound('Invoice');
        if (state.paymentIntents?.includes(command.paymentIntentId)) return [];
        if (state.status === 'paid') throw conflict('invoice_paid', 'The invoice is already paid.');
        if (state.status === 'void') throw conflict('invoice_void', 'The invoice is void and cannot be paid.');
        return {
          type: 'InvoicePaymentIntentCreated',
          data: { payment_intent_id: command.paymentIntentId, attempt: command.attempt, amount: command.amount, currency: command.currency, created_at: command.now },
        };
      case 'RecordRefund': {
        if (state.status === 'none') throw notFound('Invoice');
        if (state.status !== 'paid') throw conflict('invoice_not_paid', 'Only a paid invoice can be refunded.');
        const before = state.amountRefunded ?? 0;
        // Stripe's running total only grows: an older or repeated report changes nothing.
        if (command.amountRefunded <= before) return [];
        const total = state.invoice.total;
        const after = Math.min(command.amountRefunded, total);
        return {
          type: 'InvoiceRefunded',
          data: {
            refund_id: command.refundId,
            charge_id: command.chargeId,
            amount: after - before,
            amount_refunded: after,
            currency: state.invoice.currency,
            fully_refunded: after >= total,
            refunded_at: command.now,
            ...(command.reason ? { reason: command.reason } : {}),
          },
        };
      }
      case 'RecordUnowedRefund':
        if (state.status === 'none') throw notFound('Invoice');
        if (state.returned?.includes(command.paymentIntentId)) return [];
        if (state.paidAttempt === command.paymentIntentId) throw conflict('invoice_paid', 'This payment paid the invoice; refund it as a refund of the invoice.');
        return {
          type: 'InvoiceUnowedPaymentRefunded',
          data: {
            payment_intent_id: command.paymentIntentId,
            refund_id: command.refundId,
            charge_id: command.chargeId,
            amount: command.amount,
            currency: state.invoice.currency,
            reason: command.reason,
            refunded_at: command.now,
          },
        };
      case 'RecordDispute':
        if (state.status === 'none') throw notFound('Invoice');
        if (state.disputes?.includes(command.disputeId)) return [];
        return {
          type: 'InvoiceDisputed',
          data: {
            dispute_id: command.disputeId,
            charge_id: command.chargeId,
            amount: command.amount,
            currency: command.currency,
            reason: command.reason,
            status: command.status,
            disputed_at: command.now,
          },
        };
    }
  },
};
