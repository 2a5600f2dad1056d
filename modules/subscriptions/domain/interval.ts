/**
 * Billing intervals: ISO 8601 durations of one unit (`P1M`, `P2W`), as Stripe's `interval` and
 * `interval_count`, up to Stripe's limit of three years. Times are unix seconds, UTC.
 */
export type IntervalUnit = 'day' | 'week' | 'month' | 'year';
export type Interval = Readonly<{ unit: IntervalUnit; count: number }>;

const UNITS: Record<string, IntervalUnit> = { D: 'day', W: 'week', M: 'month', Y: 'year' };
/** Stripe's ceiling: three years, 36 months, 156 weeks or 1,095 days. */
const MAX_COUNT: Record<IntervalUnit, number> = { day: 1095, week: 156, month: 36, year: 3 };

export function parseInterval(iso: string): Interval | null {
  const match = /^P([1-9]\d{0,3})([DWMY])$/.exec(iso);
  if (!match) return null;
  const unit = UNITS[match[2]!]!;
  const count = Number(match[1]);
  return count <= MAX_COUNT[unit] ? { unit, count } : null;
}

/** Why a plan's interval cannot be billed, in words for an import error; null when it can. */
export function intervalProblem(iso: string): string | null {
  if (parseInterval(iso) !== null) return null;
  return `"${iso}" is not a billing interval: use one unit, days to years, up to three years (P1D, P1W, P2W, P1M, P3M, P6M, P1Y…).`;
}

const DAY = 86_400;

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
}

/**
 * The `n`th boundary after `anchor`: always computed from the anchor, never from the previous
 * boundary, so a month-end anchor comes back after a short month (Jan 31 → Feb 28 → Mar 31), as
 * Stripe bills. The anchor's time of day is kept.
 */
export function boundary(anchor: number, interval: Interval, n: number): number {
  if (interval.unit === 'day') return anchor + n * interval.count * DAY;
  if (interval.unit === 'week') return anchor + n * interval.count * 7 * DAY;
  const start = new Date(anchor * 1000);
  const months = n * interval.count * (interval.unit === 'year' ? 12 : 1);
  const total = start.getUTCMonth() + months;
  const year = start.getUTCFullYear() + Math.floor(total / 12);
  const month = ((total % 12) + 12) % 12;
  const day = Math.min(start.getUTCDate(), daysInMonth(year, month));
  const timeOfDay = anchor - Math.floor(anchor / DAY) * DAY;
  return Date.UTC(year, month, day) / 1000 + timeOfDay;
}

/** The index of the period holding `t`: the largest n with boundary(anchor, n) ≤ t (0 before the anchor). */
export function periodIndex(anchor: number, interval: Interval, t: number): number {
  if (t < anchor) return 0;
  const rough = interval.unit === 'day' || interval.unit === 'week'
    ? Math.floor((t - anchor) / (boundary(anchor, interval, 1) - anchor))
    : Math.floor((t - anchor) / (28 * DAY * interval.count * (interval.unit === 'year' ? 12 : 1)));
  let n = Math.max(0, rough);
  while (n > 0 && boundary(anchor, interval, n) > t) n -= 1;
  while (boundary(anchor, interval, n + 1) <= t) n += 1;
  return n;
}
