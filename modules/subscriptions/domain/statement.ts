import type { PricingRecord } from '../../../platform/domain/index.ts';
import type { InvoiceEvent, InvoiceLine } from '../../checkout/domain/invoice.ts';
import { subscriptionEventTime } from './eventTime.ts';
import { invoiceEventTime } from './invoiceView.ts';
import type { ProrationDerivation } from './proration.ts';
import { subscriptionDecider, type Line, type SubscriptionEvent, type SubscriptionState, type SubscriptionStatus } from './subscription.ts';

/**
 * What a customer had been invoiced, paid, credited and owed at an instant, and why, computed
 * from the subscription's stream and its invoices' streams up to that instant (each event at its
 * own time, the subscription's clock's). Nothing later in the log changes the answer for an
 * instant already past, so it answers the same next year as today. Pure.
 *
 * The money comes from the invoices (what was billed, paid, refunded); the subscription's events
 * give the reasons (the period a line pays, a proration's derivation, a prorated cancellation's
 * refund) and the credit not yet used.
 *
 * The checkout's invoice (the first) was made and paid when the checkout completed, in the
 * buyer's time; a subscription on a test clock starts at the clock's time, so that invoice's
 * creation and payment count at the earlier of their own time and the subscription's start.
 */
type InvoiceRef = { id: string; number: number };
/** `discount` and `tax` lines state what an invoice's pricing took off and added on top, so its lines add up to its total. */
type StatementLine = { name: string; amount: number; reason: 'period' | 'proration' | 'checkout' | 'discount' | 'tax'; period: { start: number; end: number } | null; proration: ProrationDerivation | null };

export type StatementEntry =
  | {
      at: number;
      type: 'invoice';
      invoice: InvoiceRef;
      billing_reason: string;
      period: { start: number; end: number } | null;
      lines: StatementLine[];
      total: number;
      credit_applied: number;
      amount_due: number;
    }
  | { at: number; type: 'payment'; invoice: InvoiceRef; attempt: number; amount: number; card: { brand: string; last4: string } | null }
  | { at: number; type: 'payment_failed'; invoice: InvoiceRef; attempt: number; code: string; decline_code: string | null; next_payment_attempt: number | null }
  | { at: number; type: 'refund'; invoice: InvoiceRef; amount: number; reason: 'prorated_cancellation' | 'requested'; proration: ProrationDerivation | null }
  | { at: number; type: 'refund_due'; invoice: InvoiceRef; amount: number; proration: ProrationDerivation | null }
  | { at: number; type: 'uncollectible'; invoice: InvoiceRef; amount: number }
  | { at: number; type: 'void'; invoice: InvoiceRef; amount: number }
  | {
      at: number;
      type: 'plan_change';
      from: { plan_id: string; plan_name: string; amount: number };
      to: { plan_id: string; plan_name: string; amount: number };
      proration_behavior: string;
      /** The proration lines the change made: on the next invoice (create_prorations) or on one made now (always_invoice). */
      lines: StatementLine[];
    };

export type Statement = {
  subscription: string;
  as_of: number;
  currency: string;
  /** The subscription as it stood at `as_of`; null before it existed. */
  status: SubscriptionStatus | null;
  entitled: boolean;
  current_period: { start: number; end: number } | null;
  totals: {
    /** Charges on the invoices made by then: period fees and proration charges. */
    invoiced: number;
    /** Proration credits on those invoices (unused time of a former plan). */
    credited: number;
    /** Credit from the customer's balance taken off those invoices. */
    credit_applied: number;
    /** What those invoices asked for: invoiced − credited − credit_applied, never below zero per invoice. */
    amount_due: number;
    paid: number;
    refunded: number;
    /** Open invoices' amount due, not yet paid. */
    owed: number;
    /** Invoices given up on (uncollectible). */
    written_off: number;
    /** Credit carried to the next invoice. */
    credit_balance: number;
    /** A prorated cancellation's refund not yet recorded as refunded. */
    refund_due: number;
    /** Proration lines waiting for the next invoice (create_prorations), summed. */
    pending_prorations: number;
  };
  pending_prorations: StatementLine[];
  entries: StatementEntry[];
};

const toLine = (l: InvoiceLine | Line, fallbackPeriod: { start: number; end: number } | null, checkout: boolean): StatementLine => ({
  name: l.name,
  amount: l.amount,
  reason: l.proration ? 'proration' : checkout ? 'checkout' : 'period',
  period: l.period ?? fallbackPeriod,
  proration: (l.proration as ProrationDerivation | undefined) ?? null,
});

/** The discount taken off and the tax added on top (an inclusive tax is inside the lines already). */
function pricingLines(pricing: PricingRecord | undefined, period: { start: number; end: number } | null): StatementLine[] {
  if (!pricing) return [];
  const out: StatementLine[] = [];
  if (pricing.total_discount !== 0) {
    const code = pricing.discount?.promotion_code?.code ?? pricing.discount?.coupon.name ?? null;
    out.push({ name: code ? `Discount (${code})` : 'Discount', amount: -pricing.total_discount, reason: 'discount', period, proration: null });
  }
  const tax = pricing.tax;
  if (tax?.behavior === 'exclusive' && pricing.total_tax !== 0) {
    out.push({ name: `${tax.tax_rate?.display_name ?? 'Tax'} ${tax.percentage}%`, amount: pricing.total_tax, reason: 'tax', period, proration: null });
  }
  return out;
}

const ORDER: Record<StatementEntry['type'], number> = { plan_change: 0, invoice: 1, payment_failed: 2, payment: 3, uncollectible: 4, void: 5, refund: 6, refund_due: 7 };

export function statementAsOf(
  subscriptionId: string,
  subscriptionEvents: readonly SubscriptionEvent[],
  invoices: ReadonlyMap<string, readonly InvoiceEvent[]>,
  asOf: number,
): Statement {
  let state: SubscriptionState = subscriptionDecider.initialState();
  const entries: StatementEntry[] = [];
  const cancelRefunds: Array<{ invoice_id: string; amount: number; derivation: ProrationDerivation | null; at: number }> = [];
  for (const event of subscriptionEvents) {
    const at = subscriptionEventTime(event);
    if (at > asOf) continue;
    state = subscriptionDecider.evolve(state, event);
    if (event.type === 'SubscriptionPlanChanged') {
      const d = event.data;
      entries.push({
        at,
        type: 'plan_change',
        from: { plan_id: d.from.plan.plan_id, plan_name: d.from.plan.plan_name, amount: d.from.amount },
        to: { plan_id: d.to.plan.plan_id, plan_name: d.to.plan.plan_name, amount: d.to.amount },
        proration_behavior: d.proration_behavior,
        lines: d.proration.map((l) => toLine(l, null, false)),
      });
    }
    if (event.type === 'SubscriptionCanceled' && event.data.refund) {
      const r = event.data.refund;
      cancelRefunds.push({ invoice_id: r.invoice_id, amount: r.amount, derivation: r.derivation, at });
    }
  }
  const created = state.status === 'none' ? null : state.sub;
  const totals = { invoiced: 0, credited: 0, credit_applied: 0, amount_due: 0, paid: 0, refunded: 0, owed: 0, written_off: 0, credit_balance: 0, refund_due: 0, pending_prorations: 0 };
  if (!created || state.status === 'none') {
    return { subscription: subscriptionId, as_of: asOf, currency: '', status: null, entitled: false, current_period: null, totals, pending_prorations: [], entries: [] };
  }
  const firstInvoice = created.first_invoice?.id ?? null;
  const firstPeriod = { start: created.current_period_start, end: created.current_period_end };
  const ids = [...new Set([...(firstInvoice ? [firstInvoice] : []), ...subscriptionEvents.flatMap((e) => (e.type === 'SubscriptionInvoiceCreated' ? [e.data.invoice_id] : []))])];
  for (const id of ids) {
    const events = invoices.get(id) ?? [];
    const isFirst = id === firstInvoice;
    const timeOf = (e: InvoiceEvent) => {
      const own = invoiceEventTime(e);
      return isFirst && (e.type === 'InvoiceCreated' || e.type === 'InvoicePaid') ? Math.min(own, created.created_at) : own;
    };
    const createdEvent = events.find((e) => e.type === 'InvoiceCreated');
    if (!createdEvent || createdEvent.type !== 'InvoiceCreated' || timeOf(createdEvent) > asOf) continue;
    // A checkout's open invoice is repriced when the buyer gives a code or a country: as it stood then.
    const repriced = events.filter((e) => e.type === 'InvoiceRepriced' && timeOf(e) <= asOf).at(-1);
    const c = repriced?.type === 'InvoiceRepriced' ? { ...createdEvent.data, ...repriced.data, amount_due: repriced.data.total } : createdEvent.data;
    const ref = { id: c.id, number: c.number };
    const period = c.period ?? (isFirst ? firstPeriod : null);
    const amountDue = c.amount_due ?? c.total;
    const checkout = c.session_id !== null;
    const lines = [...c.lines.map((l) => toLine(l, period, checkout)), ...pricingLines(c.pricing, period)];
    const charges = lines.filter((l) => l.amount > 0).reduce((s, l) => s + l.amount, 0);
    const credits = -lines.filter((l) => l.amount < 0).reduce((s, l) => s + l.amount, 0);
    const creditApplied = Math.max(0, c.total - amountDue);
    entries.push({
      at: timeOf(createdEvent),
      type: 'invoice',
      invoice: ref,
      billing_reason: isFirst ? 'subscription_create' : (c.billing_reason ?? 'subscription_cycle'),
      period,
      lines,
      total: c.total,
      credit_applied: creditApplied,
      amount_due: amountDue,
    });
    totals.invoiced += charges;
    totals.credited += credits;
    totals.credit_applied += creditApplied;
    totals.amount_due += amountDue;
    let settled: 'paid' | 'void' | 'uncollectible' | null = null;
    let failures = 0;
    for (const e of events) {
      const at = timeOf(e);
      if (at > asOf) continue;
      switch (e.type) {
        case 'InvoicePaid':
          // Also after being given up on (a late card update): it counts as paid from then on.
          settled = 'paid';
          entries.push({ at, type: 'payment', invoice: ref, attempt: failures + 1, amount: amountDue, card: e.data.card });
          totals.paid += amountDue;
          break;
        case 'InvoicePaymentFailed':
          failures += 1;
          entries.push({ at, type: 'payment_failed', invoice: ref, attempt: e.data.attempt, code: e.data.code, decline_code: e.data.decline_code, next_payment_attempt: e.data.next_payment_attempt });
          break;
        case 'InvoiceMarkedUncollectible':
          if (settled === null) settled = 'uncollectible';
          entries.push({ at, type: 'uncollectible', invoice: ref, amount: amountDue });
          break;
        case 'InvoiceVoided':
          if (settled === null) settled = 'void';
          entries.push({ at, type: 'void', invoice: ref, amount: amountDue });
          break;
        case 'InvoiceRefunded': {
          const i = cancelRefunds.findIndex((r) => r.invoice_id === id && r.at <= at);
          const matched = i >= 0 ? cancelRefunds.splice(i, 1)[0]! : null;
          entries.push({ at, type: 'refund', invoice: ref, amount: e.data.amount, reason: matched ? 'prorated_cancellation' : 'requested', proration: matched?.derivation ?? null });
          totals.refunded += e.data.amount;
          break;
        }
        default:
          break;
      }
    }
    if (settled === null) totals.owed += amountDue;
    if (settled === 'uncollectible') totals.written_off += amountDue;
  }
  for (const r of cancelRefunds) {
    const number = entries.find((e) => e.type === 'invoice' && e.invoice.id === r.invoice_id);
    entries.push({ at: r.at, type: 'refund_due', invoice: { id: r.invoice_id, number: number?.type === 'invoice' ? number.invoice.number : 0 }, amount: r.amount, proration: r.derivation });
    totals.refund_due += r.amount;
  }
  const pending = state.pending_proration.map((l) => toLine(l, null, false));
  totals.pending_prorations = pending.reduce((s, l) => s + l.amount, 0);
  totals.credit_balance = state.credit_balance;
  entries.sort((a, b) => a.at - b.at || ORDER[a.type] - ORDER[b.type]);
  return {
    subscription: subscriptionId,
    as_of: asOf,
    currency: created.currency,
    status: state.status,
    entitled: state.entitled,
    current_period: { start: state.current_period_start, end: state.current_period_end },
    totals,
    pending_prorations: pending,
    entries,
  };
}
