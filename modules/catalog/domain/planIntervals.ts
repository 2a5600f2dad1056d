import { intervalProblem, parseInterval, type Interval } from '../../subscriptions/domain/interval.ts';

export type PlanIntervalProblem = { field: 'invoice_interval' | 'renew_interval'; message: string };

type Terms = { type: 'recurring' | 'one_time'; renew_interval: string | null; invoice_interval: string };

/** Days and weeks count in days, months and years in months: a term is a whole number of invoices only within one. */
function length(iv: Interval): { family: 'days' | 'months'; n: number } {
  if (iv.unit === 'day' || iv.unit === 'week') return { family: 'days', n: iv.count * (iv.unit === 'week' ? 7 : 1) };
  return { family: 'months', n: iv.count * (iv.unit === 'year' ? 12 : 1) };
}

/**
 * Why a recurring plan cannot be billed as a subscription: each interval must be one a
 * subscription bills (see interval.ts), and the commitment term (renew_interval) a whole number
 * of invoice periods, so each term ends on an invoice boundary. A one_time plan is invoiced
 * once: its intervals are not read.
 */
export function planIntervalProblems(plan: Terms): PlanIntervalProblem[] {
  if (plan.type !== 'recurring') return [];
  const problems: PlanIntervalProblem[] = [];
  const invoiceProblem = intervalProblem(plan.invoice_interval);
  if (invoiceProblem) problems.push({ field: 'invoice_interval', message: `invoice_interval ${invoiceProblem}` });
  if (plan.renew_interval === null) return problems;
  const renewProblem = intervalProblem(plan.renew_interval);
  if (renewProblem) problems.push({ field: 'renew_interval', message: `renew_interval ${renewProblem}` });
  if (problems.length > 0) return problems;
  const term = length(parseInterval(plan.renew_interval)!);
  const invoice = length(parseInterval(plan.invoice_interval)!);
  if (term.family !== invoice.family || term.n % invoice.n !== 0) {
    problems.push({
      field: 'renew_interval',
      message: `renew_interval ${plan.renew_interval} must be a whole number of invoice_interval ${plan.invoice_interval} periods (P1Y with P1M or P3M, P2W with P1W; days and weeks do not mix with months and years).`,
    });
  }
  return problems;
}
