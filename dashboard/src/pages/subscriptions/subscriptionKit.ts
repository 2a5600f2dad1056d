/** Words and figures the subscription screens share: intervals, statuses, what an event changed. */
import { formatDate, formatDateTime, formatMoney, zonedTimeToUnix } from '../../format.ts';
import { zonedParts } from '../pageKit.tsx';
import type { SubscriptionResource as Subscription, SubscriptionStatementLine as StatementLine } from '../../../../modules/subscriptions/index.ts';

type SubscriptionStatus = Subscription['status'];

/** The list's status filter, in the order a seller looks for them. */
export const STATUS_FILTERS: SubscriptionStatus[] = ['active', 'trialing', 'past_due', 'unpaid', 'canceled', 'paused', 'incomplete'];

const STATUS_WORDS: Record<SubscriptionStatus, string> = {
  active: 'Active',
  trialing: 'Trialing',
  past_due: 'Past due',
  unpaid: 'Unpaid',
  canceled: 'Canceled',
  paused: 'Paused',
  incomplete: 'Incomplete',
  incomplete_expired: 'Incomplete, expired',
};

export const statusWords = (status: string): string => STATUS_WORDS[status as SubscriptionStatus] ?? status;

const UNITS: Record<string, [string, string]> = { D: ['day', 'days'], W: ['week', 'weeks'], M: ['month', 'months'], Y: ['year', 'years'] };

/** "P1M" → "month", "P3M" → "3 months", "P2W" → "2 weeks"; anything else as written. */
export function intervalWords(interval: string | null | undefined): string {
  const m = /^P(\d+)([DWMY])$/.exec(interval ?? '');
  if (!m) return interval ?? '—';
  const n = Number(m[1]);
  const [one, many] = UNITS[m[2]!]!;
  return n === 1 ? one : `${n} ${many}`;
}

/** "€10.00 / month". */
export const perInterval = (amount: number, currency: string, interval: string): string => `${formatMoney(amount, currency)} / ${intervalWords(interval)}`;

/** Whether the subscription has ended: nothing can be done to it any more. */
export const hasEnded = (s: Pick<Subscription, 'status' | 'ended_at'>): boolean => s.ended_at !== null || s.status === 'canceled' || s.status === 'incomplete_expired';

/** What comes next for the list's column: a retry, the renewal, the scheduled end, or the end. */
export function nextStep(s: Subscription): { label: string; at: number | null } {
  if (s.ended_at !== null) return { label: 'Ended', at: s.ended_at };
  if (s.status === 'paused') return { label: 'Paused since', at: s.pause_collection?.paused_at ?? null };
  if (s.next_payment_attempt !== null) return { label: 'Next payment attempt', at: s.next_payment_attempt };
  if (s.cancel_at_period_end) return { label: 'Ends', at: s.cancel_at };
  if (s.status === 'trialing') return { label: 'Trial ends', at: s.trial_end };
  return { label: 'Renews', at: s.current_period_end };
}

/** Amounts of several currencies, each in its own ("€10.00 · $5.00"), or zero in `fallback`. */
export function moneyPerCurrency(amounts: Record<string, number>, fallback = 'EUR'): string {
  const entries = Object.entries(amounts).filter(([, v]) => v !== 0);
  if (!entries.length) return formatMoney(0, Object.keys(amounts)[0] ?? fallback);
  return entries
    .sort(([, a], [, b]) => b - a)
    .map(([c, v]) => formatMoney(v, c))
    .join(' · ');
}

const EVENT_WORDS: Record<string, string> = {
  SubscriptionCreated: 'Subscription created',
  SubscriptionInvoiceCreated: 'Invoice created',
  SubscriptionPaymentAttempted: 'Payment attempted',
  SubscriptionInvoicePaid: 'Invoice paid',
  SubscriptionPaymentFailed: 'Payment failed',
  SubscriptionGraceEnded: 'Grace period ended',
  SubscriptionMarkedUnpaid: 'Marked unpaid',
  SubscriptionCancelScheduled: 'Cancellation scheduled at period end',
  SubscriptionCancelUnscheduled: 'Reactivated: the scheduled cancellation is undone',
  SubscriptionCanceled: 'Canceled',
  SubscriptionIncompleteExpired: 'Expired: the first payment never came',
  SubscriptionPaused: 'Paused',
  SubscriptionResumed: 'Resumed',
  SubscriptionPlanChanged: 'Plan changed',
  SubscriptionPaymentMethodUpdated: 'Card updated',
  SubscriptionTrialWillEnd: 'Trial ends in 3 days (buyer told)',
  SubscriptionRenewalUpcoming: 'Renewal in 7 days (buyer told)',
};

/** "SubscriptionInvoicePaid" → "Invoice paid"; an unknown type reads as its words. */
export function subscriptionEventLabel(type: string): string {
  const known = EVENT_WORDS[type];
  if (known) return known;
  const words = type
    .replace(/^Subscription/, '')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** What an event changed of the subscription, a few words per field ("status: active → past due"). */
export function subscriptionChanges(before: Subscription | null, after: Subscription): string[] {
  if (!before) {
    return [`status: ${statusWords(after.status)}`, `entitled: ${after.entitled ? 'yes' : 'no'}`, `plan: ${after.plan.name}, ${perInterval(after.amount, after.currency, after.plan.invoice_interval)}`];
  }
  const out: string[] = [];
  const diff = (label: string, a: string, b: string) => {
    if (a !== b) out.push(`${label}: ${a} → ${b}`);
  };
  const day = (t: number | null) => (t === null ? '—' : formatDate(t));
  diff('status', statusWords(before.status), statusWords(after.status));
  diff('entitled', before.entitled ? 'yes' : 'no', after.entitled ? 'yes' : 'no');
  diff('plan', before.plan.name, after.plan.name);
  diff('amount', perInterval(before.amount, before.currency, before.plan.invoice_interval), perInterval(after.amount, after.currency, after.plan.invoice_interval));
  diff('period', `${day(before.current_period_start)} – ${day(before.current_period_end)}`, `${day(after.current_period_start)} – ${day(after.current_period_end)}`);
  diff('cancel at', day(before.cancel_at), day(after.cancel_at));
  const invoice = (s: Subscription) => (s.latest_invoice ? `#${s.latest_invoice.number} ${s.latest_invoice.status}` : '—');
  diff('latest invoice', invoice(before), invoice(after));
  diff('next payment attempt', before.next_payment_attempt === null ? '—' : formatDateTime(before.next_payment_attempt), after.next_payment_attempt === null ? '—' : formatDateTime(after.next_payment_attempt));
  const card = (s: Subscription) => (s.payment_method ? `${s.payment_method.brand} •••• ${s.payment_method.last4}` : '—');
  diff('card', card(before), card(after));
  return out;
}

/** "3 days 4 h" for a proration's seconds used or left. */
export function duration(seconds: number): string {
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  const parts = [days ? `${days} ${days === 1 ? 'day' : 'days'}` : '', hours ? `${hours} h` : '', !days && minutes ? `${minutes} min` : ''].filter(Boolean);
  return parts.join(' ') || `${seconds} s`;
}

export const BILLING_REASONS: Record<string, string> = {
  subscription_create: 'First invoice (checkout)',
  subscription_cycle: 'Renewal',
  subscription_update: 'Plan change',
  manual: 'One-time',
};

export const PRORATION_BEHAVIORS: { value: 'create_prorations' | 'always_invoice' | 'none'; label: string; explain: string }[] = [
  { value: 'create_prorations', label: 'Prorate on the next invoice', explain: 'Credit for the unused time of the current plan and a charge for the rest of the period on the new one, both on the next renewal invoice.' },
  { value: 'always_invoice', label: 'Prorate and invoice now', explain: 'The same credit and charge, invoiced and charged to the saved card at once.' },
  { value: 'none', label: 'No proration', explain: 'The new price applies from the next renewal; nothing is credited or charged for this period.' },
];

/** The distinct instants a slider stops at: each event's time, then the subscription's now. */
export function statementMoments(moments: number[], now: number | null): number[] {
  const all = [...moments, ...(now !== null ? [now] : [])];
  return [...new Set(all)].sort((a, b) => a - b);
}

/** The slider's position for an instant: the last stop at or before it (the first stop when before them all). */
export function momentIndex(stops: number[], asOf: number | null): number {
  if (asOf === null) return stops.length - 1;
  let index = 0;
  stops.forEach((t, i) => {
    if (t <= asOf) index = i;
  });
  return index;
}

/** Why a line is there, in words: the period it pays, or how a proration was computed. */
export function lineReason(line: StatementLine, currency: string): string {
  const period = line.period ? `${formatDate(line.period.start)} – ${formatDate(line.period.end)}` : '';
  if (line.reason === 'checkout') return `Paid at checkout${period ? `, for ${period}` : ''}`;
  if (line.reason === 'period' || !line.proration) return period ? `Period ${period}` : 'Period';
  const p = line.proration;
  const whole = `${formatDate(p.period_start)} – ${formatDate(p.period_end)}`;
  const how = `changed ${formatDateTime(p.changed_at)}: ${duration(p.seconds_used)} used, ${duration(p.seconds_left)} left of ${whole}; rounded per line, half away from zero`;
  return p.side === 'credit'
    ? `Credit for the unused time of ${p.old_plan} (${formatMoney(p.old_price, currency)} a period), ${how}`
    : `Charge for the rest of the period on ${p.new_plan} (${formatMoney(p.new_price, currency)} a period), ${how}`;
}

/** A Unix second as a datetime-local value ("2026-03-15T12:30:05") in the organization's time zone. */
export function toLocalInput(t: number): string {
  const [date, time] = zonedParts(t);
  return `${date}T${time}:${String(((t % 60) + 60) % 60).padStart(2, '0')}`;
}

/** A datetime-local value (seconds optional) in the organization's time zone as a Unix second; null when it is not one. */
export function fromLocalInput(value: string): number | null {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(?::(\d{2}))?/.exec(value);
  return m ? zonedTimeToUnix(m[1]!, m[2]!) + Number(m[3] ?? 0) : null;
}
