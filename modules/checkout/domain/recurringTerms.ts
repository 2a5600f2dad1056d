import { intervalWords } from '../../catalog/domain/intervalWords.ts';
import { boundary, parseInterval } from '../../subscriptions/domain/interval.ts';

/**
 * What a buyer of a recurring plan is told at checkout: the price per invoice interval, the
 * trial, and when the first renewal charge falls. The hosted page (server and browser) words it.
 */
export type RecurringTerms = {
  /** "per month", "every 3 months": from the plan's invoice_interval, how often it is charged. */
  per: string;
  /** Charged each interval, in minor units of `currency`. */
  amount: number;
  currency: string;
  /** Days of free trial, or null: charged today. */
  trialDays: number | null;
  /** Unix seconds of the first charge after today's (or the trial's end); null when the interval cannot be billed. */
  renewsAt: number | null;
};

type PlanTerms = { type: string; invoice_interval: string; renew_interval: string | null };

/**
 * The terms of `plan` sold at `amount` from `now` (unix seconds): after a trial the first charge
 * is at its end, else one invoice interval after today, on the anchor's day of month as a
 * subscription bills it. Null for a plan that does not recur.
 */
export function recurringTerms(plan: PlanTerms, amount: number, currency: string, trialDays: number | null | undefined, now: number): RecurringTerms | null {
  if (plan.type !== 'recurring') return null;
  const interval = parseInterval(plan.invoice_interval);
  const per = intervalWords(plan.invoice_interval) ?? intervalWords(plan.renew_interval);
  if (!per) return null;
  const trial = trialDays && trialDays > 0 ? trialDays : null;
  const renewsAt = trial ? boundary(now, { unit: 'day', count: trial }, 1) : interval ? boundary(now, interval, 1) : null;
  return { per, amount, currency, trialDays: trial, renewsAt };
}

/**
 * The sentence itself, with the page's own ways of writing money and dates:
 * "€5.00 today, then €5.00 per month from 27 December 2026, until you cancel." or
 * "Free for 14 days, then €5.00 per month from 11 December 2026, until you cancel."
 * `today` is what is charged now (a promotion may lower it); null when not known yet.
 */
export function recurringSentence(
  terms: RecurringTerms,
  today: number | null,
  money: (minor: number, currency: string) => string,
  date: (unix: number) => string,
): string {
  const then = `${money(terms.amount, terms.currency)} ${terms.per}${terms.renewsAt == null ? '' : ` from ${date(terms.renewsAt)}`}, until you cancel.`;
  if (terms.trialDays) return `Free for ${terms.trialDays} day${terms.trialDays === 1 ? '' : 's'}, then ${then}`;
  return today === null ? `Then ${then}` : `${money(today, terms.currency)} today, then ${then}`;
}
