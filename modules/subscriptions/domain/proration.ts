/**
 * Proration of a plan change inside a period, as Stripe's `create_prorations`: a credit for the
 * unused time of the old price and a charge for the rest of the period at the new one. Each line
 * keeps its whole derivation, so a replay of the log gives the same lines to the minor unit.
 *
 * Rounding: each line on its own, half away from zero, in the currency's minor unit (EU invoices
 * round per line). The two lines then differ from the exact difference by at most one unit.
 */
export type ProrationBehavior = 'create_prorations' | 'always_invoice' | 'none';

export type ProrationDerivation = Readonly<{
  side: 'credit' | 'charge';
  /** The price per period the line is computed from (the old one for the credit). */
  price: number;
  old_price: number;
  new_price: number;
  old_plan: string;
  new_plan: string;
  period_start: number;
  period_end: number;
  changed_at: number;
  seconds_used: number;
  seconds_left: number;
  billing_cycle_anchor: number;
  proration_behavior: ProrationBehavior;
  rounding: 'per_line_half_away_from_zero';
}>;

export type ProrationLine = Readonly<{
  name: string;
  amount: number;
  period: { start: number; end: number };
  proration: ProrationDerivation;
}>;

export type ProrationInput = Readonly<{
  oldPrice: number;
  newPrice: number;
  oldPlanName: string;
  newPlanName: string;
  periodStart: number;
  periodEnd: number;
  changedAt: number;
  anchor: number;
  behavior: ProrationBehavior;
}>;

/** round(amount × num / den), half away from zero, exact for any amount and duration. */
export function prorated(amount: number, num: number, den: number): number {
  const a = BigInt(amount) * BigInt(num);
  const d = BigInt(den);
  const sign = a < 0n ? -1n : 1n;
  const abs = a * sign;
  return Number(sign * ((abs * 2n + d) / (2n * d)));
}

/** The lines of a change at `changedAt`; none for `none`, or when no time is left in the period. */
export function prorate(input: ProrationInput): ProrationLine[] {
  const { periodStart, periodEnd, behavior } = input;
  const changedAt = Math.min(Math.max(input.changedAt, periodStart), periodEnd);
  const total = periodEnd - periodStart;
  const left = periodEnd - changedAt;
  if (behavior === 'none' || total <= 0 || left <= 0) return [];
  const base = {
    old_price: input.oldPrice,
    new_price: input.newPrice,
    old_plan: input.oldPlanName,
    new_plan: input.newPlanName,
    period_start: periodStart,
    period_end: periodEnd,
    changed_at: changedAt,
    seconds_used: changedAt - periodStart,
    seconds_left: left,
    billing_cycle_anchor: input.anchor,
    proration_behavior: behavior,
    rounding: 'per_line_half_away_from_zero' as const,
  };
  const period = { start: changedAt, end: periodEnd };
  return [
    {
      name: `Unused time on ${input.oldPlanName}`,
      // `0 -` rather than unary minus: a zero credit is 0, not -0, which JSON would not keep.
      amount: 0 - prorated(input.oldPrice, left, total),
      period,
      proration: { ...base, side: 'credit', price: input.oldPrice },
    },
    {
      name: `Remaining time on ${input.newPlanName}`,
      amount: prorated(input.newPrice, left, total),
      period,
      proration: { ...base, side: 'charge', price: input.newPrice },
    },
  ];
}
