import { type AppliedTax, type CustomerTaxDetails, type Decider, type DomainEvent, type PricingRecord, type TaxBehavior, conflict, discountTerms, DomainError, invalid, notFound, priceLines, taxTerms } from '../../../platform/domain/index.ts';
import { boundary, type Interval, parseInterval, periodIndex } from './interval.ts';
import { prorate, type ProrationBehavior, type ProrationLine } from './proration.ts';
import { appliedOf, discountAfterInvoice, discountInForce, startDiscount, type SubscriptionDiscount } from './subscriptionDiscount.ts';

/**
 * The subscription aggregate, in Stripe Billing's words. One stream per subscription:
 * `subscription-sub_…`. Every event carries the status and `entitled` after it, so a reader (a
 * webhook receiver above all) never re-derives access from states.
 */
export type SubscriptionStatus = 'incomplete' | 'incomplete_expired' | 'trialing' | 'active' | 'past_due' | 'unpaid' | 'canceled' | 'paused';

export type Customer = { email: string | null; name: string | null; user_id: string | null };
export type Card = { brand: string; last4: string };
/** A card saved for charges without the buyer (Stripe's PaymentMethod); the number stays with the provider. `customer`: the provider's customer it is attached to (Stripe's `cus_…`), which Stripe requires to charge it off-session. */
export type PaymentMethod = { id: string; provider: string; card: Card; exp_month: number; exp_year: number; customer?: string };
export type PlanTerms = {
  product_id: string;
  plan_id: string;
  plan_name: string;
  /** The commitment term; null: the term is one invoice period. */
  renew_interval: string | null;
  invoice_interval: string;
};
/** A line as billed; an invoice priced with a discount or a tax carries its three priced amounts (platform/domain/invoiceTotals.ts). */
export type Line = {
  name: string;
  amount: number;
  period?: { start: number; end: number };
  proration?: ProrationLine['proration'];
  discount_amount?: number;
  taxable_amount?: number;
  tax_amount?: number;
};
/** The organization's dunning rules, as they stood when a payment failed. */
export type DunningSettings = {
  /** Days after the first failure at which to retry: Stripe's recommendation of four retries over two weeks by default. */
  retry_days: number[];
  /** What becomes of the subscription when the last retry fails. */
  final_action: 'canceled' | 'unpaid';
  /** Days a past_due subscription stays entitled after its first failure. */
  grace_days: number;
};
export const DEFAULT_DUNNING: DunningSettings = { retry_days: [1, 3, 7, 14], final_action: 'canceled', grace_days: 7 };
/** Stripe's codes of declines no retry can fix. */
export const HARD_DECLINES = new Set(['expired_card', 'incorrect_number', 'invalid_number', 'stolen_card', 'lost_card', 'pickup_card', 'fraudulent', 'invalid_account', 'restricted_card', 'card_not_supported', 'currency_not_supported']);

export const TRIAL_WILL_END_BEFORE = 3 * 86_400;
export const UPCOMING_BEFORE = 7 * 86_400;
/** Stripe's window for an incomplete subscription's first payment. */
export const INCOMPLETE_EXPIRES_AFTER = 23 * 3600;

type After = { status: SubscriptionStatus; entitled: boolean };
type Ev<T extends string, D> = DomainEvent<T, D & After>;

export type SubscriptionCreatedData = {
  id: string;
  organization_id: string;
  mode: 'test' | 'live';
  customer: Customer;
  /** The customer (`cus_…`) of the checkout that made it; absent before customers existed. */
  customer_id?: string | null;
  offer: { uuid: string; id: string; slug: string; name: string };
  plan: PlanTerms;
  currency: string;
  /** What each period costs, line by line (the plan's charges as the buyer bought them). */
  lines: Line[];
  amount: number;
  session_id: string;
  payment_method: PaymentMethod | null;
  billing_cycle_anchor: number;
  current_period_start: number;
  current_period_end: number;
  trial_start: number | null;
  trial_end: number | null;
  /** The checkout's invoice: paid (or zero for a trial), or open while the first payment needs the buyer. */
  first_invoice: { id: string; number: number; amount: number; paid: boolean } | null;
  test_clock: string | null;
  /** The checkout's coupon, from the subscription's creation on (absent: none). */
  discount?: SubscriptionDiscount | null;
  /** What the tax of each invoice is calculated for: the buyer's location and tax id as the checkout took them. */
  customer_details?: CustomerTaxDetails | null;
  /** The plan's price behaviour as sold; `unspecified` takes the seller's default when an invoice is made. */
  tax_behavior?: TaxBehavior | 'unspecified';
  created_at: number;
};

export type InvoiceCreatedData = {
  invoice_id: string;
  number: number;
  billing_reason: 'subscription_cycle' | 'subscription_update';
  period_start: number;
  period_end: number;
  lines: Line[];
  /** What the lines add up to after the customer's credit: never below zero. */
  amount_due: number;
  /** Credit taken from the customer's balance (prorations in their favour). */
  credit_applied: number;
  /**
   * The discount in force at the period's start and the tax calculated when the invoice was made,
   * with the buyer's details it was calculated for (absent: neither applied; the total is the lines' sum).
   */
  pricing?: PricingRecord;
  created_at: number;
};

export type SubscriptionEvent =
  | Ev<'SubscriptionCreated', SubscriptionCreatedData>
  | Ev<'SubscriptionInvoiceCreated', InvoiceCreatedData>
  | Ev<'SubscriptionPaymentAttempted', { invoice_id: string; attempt: number; attempted_at: number }>
  | Ev<'SubscriptionInvoicePaid', { invoice_id: string; attempt: number; charge_id: string | null; card: Card | null; amount_paid: number; current_period_start: number; current_period_end: number; paid_at: number }>
  | Ev<
      'SubscriptionPaymentFailed',
      {
        invoice_id: string;
        attempt: number;
        code: string;
        decline_code: string | null;
        message: string;
        hard: boolean;
        next_payment_attempt: number | null;
        /** Until when the subscription stays entitled while past_due (the seller's grace from the first failure). */
        grace_until: number;
        failed_at: number;
      }
    >
  | Ev<'SubscriptionGraceEnded', { ended_at: number }>
  | Ev<'SubscriptionMarkedUnpaid', { invoice_id: string; at: number }>
  | Ev<'SubscriptionCancelScheduled', { cancel_at: number; requested_by: 'seller' | 'customer'; at: number }>
  | Ev<'SubscriptionCancelUnscheduled', { at: number }>
  | Ev<
      'SubscriptionCanceled',
      {
        reason: 'requested' | 'period_end' | 'payment_failed' | 'incomplete_expired' | 'test_clock_deleted';
        requested_by: 'seller' | 'customer' | 'system';
        canceled_at: number;
        ended_at: number;
        /** The refund a seller asked for with an immediate cancel: the unused share of the last paid invoice. */
        refund: { invoice_id: string; amount: number; derivation: ProrationLine['proration'] | null } | null;
      }
    >
  | Ev<'SubscriptionIncompleteExpired', { at: number }>
  | Ev<'SubscriptionPaused', { paused_at: number }>
  | Ev<'SubscriptionResumed', { resumed_at: number; billing_cycle_anchor: number; current_period_start: number; current_period_end: number }>
  | Ev<
      'SubscriptionPlanChanged',
      {
        from: { plan: PlanTerms; lines: Line[]; amount: number };
        /** `tax_behavior`: the new plan's, which the next invoices are taxed by (absent on changes from before taxes: unchanged). */
        to: { plan: PlanTerms; lines: Line[]; amount: number; tax_behavior?: TaxBehavior | 'unspecified' };
        proration_behavior: ProrationBehavior;
        /** Lines for the next invoice (create_prorations) or for an invoice now (always_invoice). */
        proration: ProrationLine[];
        changed_at: number;
      }
    >
  | Ev<'SubscriptionPaymentMethodUpdated', { payment_method: PaymentMethod; at: number }>
  /** `amount`: the first invoice after the trial, priced as it stood then (absent on events from before pricing: the plan's amount). */
  | Ev<'SubscriptionTrialWillEnd', { trial_end: number; amount?: number; at: number }>
  /** `amount`: the renewal's invoice for the plan, with the discount in force then and `tax`, calculated now. */
  | Ev<'SubscriptionRenewalUpcoming', { renews_at: number; amount: number; tax?: AppliedTax | null; at: number }>
  /** A GDPR erasure of the buyer (modules/customers): their details replaced; nothing else changes. */
  | Ev<'SubscriptionCustomerRedacted', { customer: Customer; at: number }>
  /** The seller took the coupon off (Stripe's DELETE /v1/subscriptions/{id}/discount): the next invoice is at full price. */
  | Ev<'SubscriptionDiscountRemoved', { discount: SubscriptionDiscount; requested_by: 'seller'; at: number }>;

/** Every type of subscription event, for the projections that follow them all. */
export const SUBSCRIPTION_EVENT_TYPES = [
  'SubscriptionCreated',
  'SubscriptionInvoiceCreated',
  'SubscriptionPaymentAttempted',
  'SubscriptionInvoicePaid',
  'SubscriptionPaymentFailed',
  'SubscriptionGraceEnded',
  'SubscriptionMarkedUnpaid',
  'SubscriptionCancelScheduled',
  'SubscriptionCancelUnscheduled',
  'SubscriptionCanceled',
  'SubscriptionIncompleteExpired',
  'SubscriptionPaused',
  'SubscriptionResumed',
  'SubscriptionPlanChanged',
  'SubscriptionPaymentMethodUpdated',
  'SubscriptionTrialWillEnd',
  'SubscriptionRenewalUpcoming',
  'SubscriptionCustomerRedacted',
  'SubscriptionDiscountRemoved',
] as const satisfies ReadonlyArray<SubscriptionEvent['type']>;

type Bare<E> = E extends DomainEvent<infer T, infer D> ? { type: T; data: Omit<D, 'status' | 'entitled'> } : never;
export type SubscriptionEventInput = Bare<SubscriptionEvent>;

export type OpenInvoice = {
  id: string;
  number: number;
  billing_reason: InvoiceCreatedData['billing_reason'] | 'subscription_create';
  period_start: number;
  period_end: number;
  amount_due: number;
  attempt_count: number;
  /** The claimed attempt whose outcome is not recorded yet (a crash in between): charge it again with the same key. */
  pending_attempt: number | null;
  first_failed_at: number | null;
  grace_until: number | null;
  next_payment_attempt: number | null;
};

export type SubscriptionState =
  | { status: 'none' }
  | {
      status: SubscriptionStatus;
      entitled: boolean;
      sub: SubscriptionCreatedData;
      plan: PlanTerms;
      lines: Line[];
      amount: number;
      payment_method: PaymentMethod | null;
      anchor: number;
      /** The anchor of the commitment term (the first anchor: a term runs from it). */
      term_anchor: number;
      current_period_start: number;
      current_period_end: number;
      trial_end: number | null;
      cancel_at: number | null;
      canceled_at: number | null;
      ended_at: number | null;
      paused_at: number | null;
      open_invoice: OpenInvoice | null;
      latest_invoice: { id: string; number: number; status: 'open' | 'paid' | 'uncollectible' } | null;
      last_paid: { invoice_id: string; amount: number; period_start: number; period_end: number; charge_id: string | null } | null;
      /** Proration lines for the next cycle invoice (create_prorations). */
      pending_proration: Line[];
      /** Proration lines to invoice at once (always_invoice). */
      invoice_now: Line[];
      credit_balance: number;
      grace_ended: boolean;
      trial_notice_for: number | null;
      upcoming_notice_for: number | null;
      invoice_count: number;
      /** The coupon that prices the next invoices while in force; null once used up, ended or removed. */
      discount: SubscriptionDiscount | null;
    };

export type Active = Exclude<SubscriptionState, { status: 'none' }>;

export const subscriptionStream = (id: string) => `subscription-${id}`;

const ENDED: ReadonlySet<SubscriptionStatus> = new Set(['canceled', 'incomplete_expired']);
export const isEnded = (status: SubscriptionStatus | 'none') => status !== 'none' && ENDED.has(status);

function interval(plan: PlanTerms): Interval {
  const parsed = parseInterval(plan.invoice_interval);
  if (!parsed) throw invalid('invalid_interval', `The plan's invoice_interval ${plan.invoice_interval} cannot be billed.`, 'invoice_interval');
  return parsed;
}

/** Whether the buyer should have access: the one answer integrators read. */
export function entitledFor(status: SubscriptionStatus, graceEnded: boolean): boolean {
  if (status === 'trialing' || status === 'active') return true;
  if (status === 'past_due') return !graceEnded;
  return false;
}

/** The next boundary of the invoice interval after `t`, from the anchor. */
export function nextBoundary(anchor: number, plan: PlanTerms, t: number): number {
  const iv = interval(plan);
  return boundary(anchor, iv, periodIndex(anchor, iv, t) + 1);
}

/** When a cancellation at period end takes effect: the end of the commitment term holding the current period. */
export function termEnd(state: Active): number {
  const renew = state.plan.renew_interval ? parseInterval(state.plan.renew_interval) : null;
  if (!renew) return state.current_period_end;
  let n = 1;
  while (boundary(state.term_anchor, renew, n) < state.current_period_end) n += 1;
  return boundary(state.term_anchor, renew, n);
}

function evolve(state: SubscriptionState, event: SubscriptionEvent): SubscriptionState {
  if (event.type === 'SubscriptionCreated') {
    const d = event.data;
    return {
      status: d.status,
      entitled: d.entitled,
      sub: d,
      plan: d.plan,
      lines: d.lines,
      amount: d.amount,
      payment_method: d.payment_method,
      anchor: d.billing_cycle_anchor,
      term_anchor: d.billing_cycle_anchor,
      current_period_start: d.current_period_start,
      current_period_end: d.current_period_end,
      trial_end: d.trial_end,
      cancel_at: null,
      canceled_at: null,
      ended_at: null,
      paused_at: null,
      open_invoice:
        d.first_invoice && !d.first_invoice.paid
          ? {
              id: d.first_invoice.id,
              number: d.first_invoice.number,
              billing_reason: 'subscription_create',
              period_start: d.current_period_start,
              period_end: d.current_period_end,
              amount_due: d.first_invoice.amount,
              attempt_count: 1,
              pending_attempt: null,
              first_failed_at: null,
              grace_until: null,
              next_payment_attempt: null,
            }
          : null,
      latest_invoice: d.first_invoice ? { id: d.first_invoice.id, number: d.first_invoice.number, status: d.first_invoice.paid ? 'paid' : 'open' } : null,
      last_paid: d.first_invoice?.paid
        ? { invoice_id: d.first_invoice.id, amount: d.first_invoice.amount, period_start: d.current_period_start, period_end: d.current_period_end, charge_id: null }
        : null,
      pending_proration: [],
      invoice_now: [],
      credit_balance: 0,
      grace_ended: false,
      trial_notice_for: null,
      upcoming_notice_for: null,
      invoice_count: d.first_invoice ? 1 : 0,
      // The checkout's invoice was the first one the coupon priced (a trial's zero invoice too).
      discount: d.first_invoice ? discountAfterInvoice(d.discount ?? null, d.current_period_start) : (d.discount ?? null),
    };
  }
  if (state.status === 'none') return state;
  const next = { ...state, status: event.data.status, entitled: event.data.entitled };
  switch (event.type) {
    case 'SubscriptionInvoiceCreated': {
      const d = event.data;
      return {
        ...next,
        open_invoice: {
          id: d.invoice_id,
          number: d.number,
          billing_reason: d.billing_reason,
          period_start: d.period_start,
          period_end: d.period_end,
          amount_due: d.amount_due,
          attempt_count: 0,
          pending_attempt: null,
          first_failed_at: null,
          grace_until: null,
          next_payment_attempt: d.created_at,
        },
        latest_invoice: { id: d.invoice_id, number: d.number, status: 'open' },
        pending_proration: d.billing_reason === 'subscription_cycle' ? [] : state.pending_proration,
        // Credit the lines did not use (a downgrade's proration) stays on the balance for the next one.
        credit_balance: state.credit_balance - d.credit_applied + Math.max(0, -pricedTotal(d.lines, d.pricing)),
        invoice_now: d.billing_reason === 'subscription_update' ? [] : state.invoice_now,
        invoice_count: state.invoice_count + 1,
        discount: discountAfterInvoice(state.discount, d.period_start),
      };
    }
    case 'SubscriptionPaymentAttempted':
      return state.open_invoice
        ? { ...next, open_invoice: { ...state.open_invoice, attempt_count: event.data.attempt, pending_attempt: event.data.attempt } }
        : next;
    case 'SubscriptionInvoicePaid': {
      const d = event.data;
      const inv = state.open_invoice;
      return {
        ...next,
        open_invoice: null,
        current_period_start: d.current_period_start,
        current_period_end: d.current_period_end,
        latest_invoice: inv ? { id: inv.id, number: inv.number, status: 'paid' } : state.latest_invoice,
        last_paid: inv
          ? { invoice_id: inv.id, amount: d.amount_paid, period_start: inv.period_start, period_end: inv.period_end, charge_id: d.charge_id }
          : state.last_paid,
        grace_ended: false,
      };
    }
    case 'SubscriptionPaymentFailed': {
      const d = event.data;
      const inv = state.open_invoice;
      if (!inv) return next;
      return {
        ...next,
        open_invoice: {
          ...inv,
          attempt_count: Math.max(inv.attempt_count, d.attempt),
          pending_attempt: null,
          first_failed_at: inv.first_failed_at ?? d.failed_at,
          grace_until: inv.grace_until ?? d.grace_until,
          next_payment_attempt: d.next_payment_attempt,
        },
      };
    }
    case 'SubscriptionGraceEnded':
      return { ...next, grace_ended: true };
    case 'SubscriptionMarkedUnpaid':
      // The invoice stays the one owed: no more retries, but a new card pays it and reactivates.
      return {
        ...next,
        open_invoice: state.open_invoice ? { ...state.open_invoice, next_payment_attempt: null } : null,
        latest_invoice: state.latest_invoice ? { ...state.latest_invoice, status: 'uncollectible' } : null,
      };
    case 'SubscriptionCancelScheduled':
      return { ...next, cancel_at: event.data.cancel_at };
    case 'SubscriptionCancelUnscheduled':
      return { ...next, cancel_at: null };
    case 'SubscriptionCanceled':
      return {
        ...next,
        cancel_at: state.cancel_at ?? event.data.ended_at,
        canceled_at: event.data.canceled_at,
        ended_at: event.data.ended_at,
        open_invoice: null,
        latest_invoice: state.open_invoice && state.latest_invoice ? { ...state.latest_invoice, status: 'uncollectible' } : state.latest_invoice,
      };
    case 'SubscriptionIncompleteExpired':
      return { ...next, ended_at: event.data.at, open_invoice: null };
    case 'SubscriptionPaused':
      return { ...next, paused_at: event.data.paused_at };
    case 'SubscriptionResumed':
      return {
        ...next,
        paused_at: null,
        anchor: event.data.billing_cycle_anchor,
        current_period_start: event.data.current_period_start,
        current_period_end: event.data.current_period_end,
      };
    case 'SubscriptionPlanChanged': {
      const d = event.data;
      return {
        ...next,
        plan: d.to.plan,
        lines: d.to.lines,
        amount: d.to.amount,
        sub: d.to.tax_behavior ? { ...state.sub, tax_behavior: d.to.tax_behavior } : state.sub,
        pending_proration: d.proration_behavior === 'create_prorations' ? [...state.pending_proration, ...d.proration] : state.pending_proration,
        invoice_now: d.proration_behavior === 'always_invoice' ? [...state.invoice_now, ...d.proration] : state.invoice_now,
      };
    }
    case 'SubscriptionPaymentMethodUpdated': {
      // A new card retries an unpaid invoice at once.
      const inv = state.open_invoice;
      const retry = inv && inv.pending_attempt === null && inv.attempt_count > 0 ? { ...inv, next_payment_attempt: event.data.at } : inv;
      return { ...next, payment_method: event.data.payment_method, open_invoice: retry };
    }
    case 'SubscriptionTrialWillEnd':
      return { ...next, trial_notice_for: event.data.trial_end };
    case 'SubscriptionRenewalUpcoming':
      return { ...next, upcoming_notice_for: event.data.renews_at };
    case 'SubscriptionCustomerRedacted':
      return { ...next, sub: { ...next.sub, customer: event.data.customer } };
    case 'SubscriptionDiscountRemoved':
      return { ...next, discount: null };
  }
}

export type SubscriptionCommand =
  | {
      type: 'CreateSubscription';
      /** `discount`: the coupon as the checkout applied it; it starts at `now`. */
      subscription: Omit<SubscriptionCreatedData, 'created_at' | 'discount'> & { discount?: SubscriptionDiscount | AppliedDiscountInput | null };
      now: number;
    }
  /** `tax`: calculated for the subscription's customer_details at `now` by the caller (null: none). */
  | { type: 'CreateRenewalInvoice'; invoiceId: string; number: number; tax?: AppliedTax | null; now: number }
  | {
      type: 'Renew';
      invoiceId: string;
      number: number;
      /** What the first attempt charged (the amount due it computed), and how it went. */
      amountCharged: number;
      outcome: { status: 'succeeded'; chargeId: string | null; card: Card | null } | { status: 'declined'; code: string; declineCode: string | null; message: string };
      settings: DunningSettings;
      /** The tax the caller calculated for the invoice and charged with it (null: none). */
      tax?: AppliedTax | null;
      now: number;
    }
  | { type: 'AttemptPayment'; invoiceId: string; now: number }
  | { type: 'RecordPaymentSucceeded'; invoiceId: string; attempt: number; chargeId: string | null; card: Card | null; now: number }
  | { type: 'RecordPaymentFailed'; invoiceId: string; attempt: number; code: string; declineCode: string | null; message: string; settings: DunningSettings; now: number }
  | { type: 'EndGrace'; now: number }
  | { type: 'ExpireIncomplete'; now: number }
  /** `tax`: calculated for the subscription's customer_details at `now` by the caller, for the amount the notice states. */
  | { type: 'NoticeTrialWillEnd'; tax?: AppliedTax | null; now: number }
  | { type: 'NoticeUpcoming'; tax?: AppliedTax | null; now: number }
  | { type: 'Cancel'; atPeriodEnd: boolean; refund: 'none' | 'prorated'; requestedBy: 'seller' | 'customer'; now: number }
  | { type: 'CancelAtPeriodEnd'; now: number }
  | { type: 'Reactivate'; now: number }
  | { type: 'Pause'; now: number }
  | { type: 'Resume'; now: number }
  | { type: 'ChangePlan'; plan: PlanTerms; lines: Line[]; behavior: ProrationBehavior; taxBehavior?: TaxBehavior | 'unspecified'; now: number }
  | { type: 'UpdatePaymentMethod'; paymentMethod: PaymentMethod; now: number }
  | { type: 'EndForClockDeletion'; now: number }
  | { type: 'RedactCustomer'; customer: Customer; now: number }
  | { type: 'RemoveDiscount'; now: number };

type AppliedDiscountInput = Omit<SubscriptionDiscount, 'start' | 'end'>;

const sum = (lines: readonly Line[]) => lines.reduce((s, l) => s + l.amount, 0);

export type NextInvoice = Omit<InvoiceCreatedData, 'invoice_id' | 'number' | 'created_at'>;

/** What an invoice's lines come to after its discount and exclusive tax (invoiceTotals.ts). */
export function pricedTotal(lines: readonly Line[], pricing: PricingRecord | undefined): number {
  if (!pricing) return sum(lines);
  return pricing.subtotal - pricing.total_discount + (pricing.tax?.behavior === 'exclusive' ? pricing.total_tax : 0);
}

/**
 * The lines priced with the discount in force at the period's start and the tax given (priceLines:
 * the one arithmetic checkout uses too); unchanged, with no pricing, when neither applies.
 */
export function priceInvoice(state: Active, lines: Line[], periodStart: number, tax: AppliedTax | null): { lines: Line[]; pricing?: PricingRecord } {
  const discount = discountInForce(state.discount, periodStart) ? state.discount : null;
  if (discount === null && tax === null) return { lines };
  // A coupon limited to products prices the lines of its products only: a subscription's lines are its plan's product's.
  const discountable = !discount?.coupon.applies_to || discount.coupon.applies_to.products.includes(state.plan.product_id);
  const totals = priceLines(
    lines.map((l) => ({ name: l.name, amount: l.amount, discountable })),
    state.sub.currency,
    discount ? discountTerms(discount) : null,
    tax ? taxTerms(tax) : null,
  );
  return {
    lines: lines.map((l, i) => {
      const p = totals.lines[i]!;
      return { ...l, discount_amount: p.discount_amount, taxable_amount: p.taxable_amount, tax_amount: p.tax_amount };
    }),
    pricing: {
      subtotal: totals.subtotal,
      total_discount: totals.total_discount,
      total_tax: totals.total_tax,
      discount: discount ? appliedOf(discount) : null,
      tax,
      customer_details: state.sub.customer_details ?? null,
    },
  };
}

/** What the plan's next period will be invoiced: its lines priced with the discount in force at its start and `tax`. */
export function upcomingAmount(state: Active, tax: AppliedTax | null): number {
  const { lines, pricing } = priceInvoice(state, state.lines, state.current_period_end, tax);
  return pricedTotal(lines, pricing);
}

/**
 * The invoice due at `now`, if one is: a plan change to invoice at once, else the next period's
 * (its lines, any proration left from a change, priced with the discount in force at its start
 * and `tax`, less the customer's credit). Null while one is open, paused, or before the period ends.
 */
export function nextInvoice(state: SubscriptionState, now: number, tax: AppliedTax | null = null): NextInvoice | null {
  if (state.status === 'none' || isEnded(state.status) || state.open_invoice || state.status === 'paused' || state.status === 'incomplete') return null;
  const active = state;
  const priced = (raw: Line[], reason: InvoiceCreatedData['billing_reason'], period: { start: number; end: number }): NextInvoice => {
    const { lines, pricing } = priceInvoice(active, raw, period.start, tax);
    const total = pricedTotal(lines, pricing);
    const credit = Math.min(state.credit_balance, Math.max(0, total));
    return { billing_reason: reason, period_start: period.start, period_end: period.end, lines, amount_due: Math.max(0, total - credit), credit_applied: credit, ...(pricing ? { pricing } : {}) };
  };
  if (state.invoice_now.length > 0) {
    return priced(state.invoice_now, 'subscription_update', state.invoice_now[0]!.period ?? { start: now, end: state.current_period_end });
  }
  if (now < state.current_period_end) return null;
  if (state.cancel_at !== null && state.cancel_at <= state.current_period_end) return null;
  const period = { start: state.current_period_end, end: nextBoundary(state.anchor, state.plan, state.current_period_end) };
  return priced([...state.pending_proration, ...state.lines.map((l) => ({ ...l, period }))], 'subscription_cycle', period);
}

/** The attempt a charge now is: the claimed one, else the one after the last outcome. */
export const currentAttempt = (inv: OpenInvoice) => inv.pending_attempt ?? inv.attempt_count + 1;

function requireLive(state: SubscriptionState): asserts state is Active {
  if (state.status === 'none') throw notFound('Subscription');
  if (isEnded(state.status)) throw conflict('subscription_canceled', 'The subscription has ended.');
}

/** Folds the events into the state one by one and stamps each with the status and entitlement after it. */
function stamp(state: SubscriptionState, events: SubscriptionEventInput[]): SubscriptionEvent[] {
  const out: SubscriptionEvent[] = [];
  let current = state;
  for (const bare of events) {
    const status = statusAfter(current, bare);
    const graceEnded = bare.type === 'SubscriptionGraceEnded' || (bare.type !== 'SubscriptionInvoicePaid' && current.status !== 'none' && current.grace_ended);
    const event = { type: bare.type, data: { ...bare.data, status, entitled: entitledFor(status, graceEnded) } } as SubscriptionEvent;
    current = evolve(current, event);
    out.push(event);
  }
  return out;
}

function statusAfter(state: SubscriptionState, event: SubscriptionEventInput): SubscriptionStatus {
  const current: SubscriptionStatus = state.status === 'none' ? 'incomplete' : state.status;
  switch (event.type) {
    case 'SubscriptionCreated': {
      const d = event.data;
      if (d.first_invoice && !d.first_invoice.paid) return 'incomplete';
      return d.trial_end !== null && d.trial_end > d.created_at ? 'trialing' : 'active';
    }
    case 'SubscriptionInvoicePaid':
      return 'active';
    case 'SubscriptionPaymentFailed':
      return current === 'incomplete' ? 'incomplete' : 'past_due';
    case 'SubscriptionMarkedUnpaid':
      return 'unpaid';
    case 'SubscriptionCanceled':
      return 'canceled';
    case 'SubscriptionIncompleteExpired':
      return 'incomplete_expired';
    case 'SubscriptionPaused':
      return 'paused';
    case 'SubscriptionResumed':
      return 'active';
    default:
      return current;
  }
}

function decide(command: SubscriptionCommand, state: SubscriptionState): SubscriptionEventInput[] {
  if (command.type === 'CreateSubscription') {
    if (state.status !== 'none') return [];
    interval(command.subscription.plan);
    const { discount, ...subscription } = command.subscription;
    return [{ type: 'SubscriptionCreated', data: { ...subscription, ...(discount ? { discount: startDiscount(discount, command.now) } : {}), created_at: command.now } }];
  }
  if (command.type === 'RedactCustomer') {
    // Ended or not: the erasure reaches every subscription of theirs.
    if (state.status === 'none') throw notFound('Subscription');
    const c = state.sub.customer;
    if (c.email === command.customer.email && c.name === command.customer.name && c.user_id === command.customer.user_id) return [];
    return [{ type: 'SubscriptionCustomerRedacted', data: { customer: command.customer, at: command.now } }];
  }
  requireLive(state);
  const now = command.now;
  switch (command.type) {
    case 'CreateRenewalInvoice': {
      const invoice = nextInvoice(state, now, command.tax ?? null);
      return invoice ? [{ type: 'SubscriptionInvoiceCreated', data: { invoice_id: command.invoiceId, number: command.number, ...invoice, created_at: now } }] : [];
    }
    case 'Renew': {
      // The invoice and its first charge's outcome in one append: the charge was made with the
      // invoice's key before, so a crash in between repeats the same charge.
      const invoice = nextInvoice(state, now, command.tax ?? null);
      if (!invoice) return [];
      if (invoice.amount_due !== command.amountCharged) throw conflict('renewal_changed', 'The invoice differs from what was charged; bill it again.');
      const made: SubscriptionEventInput = { type: 'SubscriptionInvoiceCreated', data: { invoice_id: command.invoiceId, number: command.number, ...invoice, created_at: now } };
      const after = evolve(state, stamp(state, [made])[0]!);
      const outcome: SubscriptionCommand =
        command.outcome.status === 'succeeded'
          ? { type: 'RecordPaymentSucceeded', invoiceId: command.invoiceId, attempt: 1, chargeId: command.outcome.chargeId, card: command.outcome.card, now }
          : { type: 'RecordPaymentFailed', invoiceId: command.invoiceId, attempt: 1, code: command.outcome.code, declineCode: command.outcome.declineCode, message: command.outcome.message, settings: command.settings, now };
      return [made, ...decide(outcome, after)];
    }
    case 'AttemptPayment': {
      const inv = state.open_invoice;
      if (!inv || inv.id !== command.invoiceId) return [];
      if (inv.pending_attempt !== null) return [];
      return [{ type: 'SubscriptionPaymentAttempted', data: { invoice_id: inv.id, attempt: inv.attempt_count + 1, attempted_at: now } }];
    }
    case 'RecordPaymentSucceeded': {
      const inv = state.open_invoice;
      if (!inv || inv.id !== command.invoiceId || command.attempt !== currentAttempt(inv)) return [];
      const renewal = inv.billing_reason === 'subscription_cycle' || inv.billing_reason === 'subscription_create';
      return [
        {
          type: 'SubscriptionInvoicePaid',
          data: {
            invoice_id: inv.id,
            attempt: command.attempt,
            charge_id: command.chargeId,
            card: command.card,
            amount_paid: inv.amount_due,
            current_period_start: renewal ? inv.period_start : state.current_period_start,
            current_period_end: renewal ? inv.period_end : state.current_period_end,
            paid_at: now,
          },
        },
      ];
    }
    case 'RecordPaymentFailed': {
      const inv = state.open_invoice;
      if (!inv || inv.id !== command.invoiceId || command.attempt !== currentAttempt(inv)) return [];
      const hard = HARD_DECLINES.has(command.code) || (command.declineCode !== null && HARD_DECLINES.has(command.declineCode));
      const firstFailed = inv.first_failed_at ?? now;
      // Retries are counted after the first failure of the invoice: attempt 1 failed → retry 1 is due.
      const retry = command.settings.retry_days[command.attempt - 1];
      const next = hard || retry === undefined || state.status === 'incomplete' ? null : Math.max(now, firstFailed + retry * 86_400);
      const failed: SubscriptionEventInput = {
        type: 'SubscriptionPaymentFailed',
        data: {
          invoice_id: inv.id,
          attempt: command.attempt,
          code: command.code,
          decline_code: command.declineCode,
          message: command.message,
          hard,
          next_payment_attempt: next,
          grace_until: inv.grace_until ?? firstFailed + command.settings.grace_days * 86_400,
          failed_at: now,
        },
      };
      if (next !== null || state.status === 'incomplete') return [failed];
      if (command.settings.final_action === 'unpaid') return [failed, { type: 'SubscriptionMarkedUnpaid', data: { invoice_id: inv.id, at: now } }];
      return [failed, { type: 'SubscriptionCanceled', data: { reason: 'payment_failed', requested_by: 'system', canceled_at: now, ended_at: now, refund: null } }];
    }
    case 'EndGrace':
      if (state.status !== 'past_due' || state.grace_ended) return [];
      return [{ type: 'SubscriptionGraceEnded', data: { ended_at: now } }];
    case 'ExpireIncomplete':
      if (state.status !== 'incomplete' || now < state.sub.created_at + INCOMPLETE_EXPIRES_AFTER) return [];
      return [{ type: 'SubscriptionIncompleteExpired', data: { at: now } }];
    case 'NoticeTrialWillEnd':
      if (state.status !== 'trialing' || state.trial_end === null || state.trial_notice_for === state.trial_end) return [];
      return [{ type: 'SubscriptionTrialWillEnd', data: { trial_end: state.trial_end, amount: upcomingAmount(state, command.tax ?? null), at: now } }];
    case 'NoticeUpcoming':
      if (state.status !== 'active' || state.upcoming_notice_for === state.current_period_end) return [];
      return [{ type: 'SubscriptionRenewalUpcoming', data: { renews_at: state.current_period_end, amount: upcomingAmount(state, command.tax ?? null), tax: command.tax ?? null, at: now } }];
    case 'Cancel': {
      if (command.atPeriodEnd) {
        if (state.status === 'incomplete') throw conflict('subscription_incomplete', 'An incomplete subscription ends on its own; cancel it immediately instead.');
        const at = termEnd(state);
        if (state.cancel_at === at) return [];
        return [{ type: 'SubscriptionCancelScheduled', data: { cancel_at: at, requested_by: command.requestedBy, at: now } }];
      }
      let refund: Extract<SubscriptionEventInput, { type: 'SubscriptionCanceled' }>['data']['refund'] = null;
      if (command.refund === 'prorated' && state.last_paid && state.last_paid.amount > 0 && state.last_paid.period_end > now) {
        const lines = prorate({
          oldPrice: state.last_paid.amount,
          newPrice: 0,
          oldPlanName: state.plan.plan_name,
          newPlanName: state.plan.plan_name,
          periodStart: state.last_paid.period_start,
          periodEnd: state.last_paid.period_end,
          changedAt: now,
          anchor: state.anchor,
          behavior: 'create_prorations',
        });
        const credit = lines[0];
        if (credit && credit.amount < 0) refund = { invoice_id: state.last_paid.invoice_id, amount: -credit.amount, derivation: credit.proration };
      }
      return [{ type: 'SubscriptionCanceled', data: { reason: 'requested', requested_by: command.requestedBy, canceled_at: now, ended_at: now, refund } }];
    }
    case 'CancelAtPeriodEnd':
      if (state.cancel_at === null || now < state.cancel_at) return [];
      return [{ type: 'SubscriptionCanceled', data: { reason: 'period_end', requested_by: 'system', canceled_at: now, ended_at: state.cancel_at, refund: null } }];
    case 'Reactivate':
      if (state.cancel_at === null) return [];
      return [{ type: 'SubscriptionCancelUnscheduled', data: { at: now } }];
    case 'Pause':
      if (state.status === 'paused') return [];
      if (state.status !== 'active' && state.status !== 'trialing') {
        throw conflict('subscription_not_active', `A ${state.status} subscription cannot be paused.`);
      }
      return [{ type: 'SubscriptionPaused', data: { paused_at: now } }];
    case 'Resume': {
      if (state.status !== 'paused') throw conflict('subscription_not_paused', 'Only a paused subscription can be resumed.');
      // As Stripe's resume with billing_cycle_anchor=now: a new period starts, invoiced at once.
      return [{ type: 'SubscriptionResumed', data: { resumed_at: now, billing_cycle_anchor: now, current_period_start: now, current_period_end: now } }];
    }
    case 'ChangePlan': {
      if (state.status !== 'active' && state.status !== 'trialing' && state.status !== 'past_due') {
        throw conflict('subscription_not_active', `A ${state.status} subscription cannot change plan.`);
      }
      if (command.plan.plan_id === state.plan.plan_id) throw conflict('same_plan', 'The subscription is already on this plan.');
      if (command.plan.invoice_interval !== state.plan.invoice_interval) {
        throw invalid('plan_other_interval', 'The new plan must bill on the same interval (the period stays as it is).', 'plan');
      }
      const newAmount = sum(command.lines);
      // A trial costs nothing: no time of it is owed back or charged.
      const behavior = state.status === 'trialing' ? 'none' : command.behavior;
      const proration = prorate({
        oldPrice: state.amount,
        newPrice: newAmount,
        oldPlanName: state.plan.plan_name,
        newPlanName: command.plan.plan_name,
        periodStart: state.current_period_start,
        periodEnd: state.current_period_end,
        changedAt: now,
        anchor: state.anchor,
        behavior,
      });
      return [
        {
          type: 'SubscriptionPlanChanged',
          data: {
            from: { plan: state.plan, lines: state.lines, amount: state.amount },
            to: { plan: command.plan, lines: command.lines, amount: newAmount, ...(command.taxBehavior ? { tax_behavior: command.taxBehavior } : {}) },
            proration_behavior: command.behavior,
            proration,
            changed_at: now,
          },
        },
      ];
    }
    case 'UpdatePaymentMethod': {
      const open = state.open_invoice;
      const pm = command.paymentMethod;
      const same = state.payment_method?.id === pm.id && state.payment_method.exp_year === pm.exp_year && state.payment_method.exp_month === pm.exp_month;
      if (same && !(open && open.attempt_count > 0)) return [];
      return [{ type: 'SubscriptionPaymentMethodUpdated', data: { payment_method: pm, at: now } }];
    }
    case 'EndForClockDeletion':
      return [{ type: 'SubscriptionCanceled', data: { reason: 'test_clock_deleted', requested_by: 'system', canceled_at: now, ended_at: now, refund: null } }];
    case 'RemoveDiscount':
      if (!state.discount) throw new DomainError('not_found', 'no_discount', 'The subscription has no discount.');
      return [{ type: 'SubscriptionDiscountRemoved', data: { discount: state.discount, requested_by: 'seller', at: now } }];
  }
}

export const subscriptionDecider: Decider<SubscriptionState, SubscriptionCommand, SubscriptionEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve,
  decide: (command, state) => stamp(state, decide(command, state)),
};
