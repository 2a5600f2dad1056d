import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  boundary,
  intervalProblem,
  parseInterval,
  periodIndex,
  type Interval,
  type IntervalUnit,
} from '../../modules/subscriptions/domain/interval.ts';

const DAY = 86_400;
const MAX_COUNT: Record<IntervalUnit, number> = { day: 1095, week: 156, month: 36, year: 3 };
const LETTER: Record<IntervalUnit, string> = { day: 'D', week: 'W', month: 'M', year: 'Y' };
const NAMED = ['P1D', 'P1W', 'P2W', 'P1M', 'P3M', 'P6M', 'P1Y'] as const;

const unix = (iso: string): number => Date.parse(iso) / 1000;
const iso = (t: number): string => new Date(t * 1000).toISOString();
const daysInMonth = (year: number, month: number): number => new Date(Date.UTC(year, month + 1, 0)).getUTCDate();

/** Anchors from 2000 to 2099, any second; a quarter of them on the 28th–31st of a month. */
const anyAnchor = fc.integer({ min: unix('2000-01-01T00:00:00Z'), max: unix('2099-12-31T23:59:59Z') });
const monthEndAnchor = fc
  .record({
    year: fc.integer({ min: 2000, max: 2099 }),
    month: fc.integer({ min: 0, max: 11 }),
    fromEnd: fc.integer({ min: 0, max: 3 }),
    second: fc.integer({ min: 0, max: DAY - 1 }),
  })
  .map(({ year, month, fromEnd, second }) => Date.UTC(year, month, daysInMonth(year, month) - fromEnd) / 1000 + second);
const anchor = fc.oneof({ arbitrary: anyAnchor, weight: 3 }, { arbitrary: monthEndAnchor, weight: 1 });

const namedInterval = fc.constantFrom(...NAMED).map((s) => parseInterval(s)!);
const randomInterval = fc
  .constantFrom<IntervalUnit>('day', 'week', 'month', 'year')
  .chain((unit) => fc.integer({ min: 1, max: MAX_COUNT[unit] }).map((count): Interval => ({ unit, count })));
const interval = fc.oneof(namedInterval, randomInterval);
/** Up to about forty years of periods for the shortest intervals, fewer for long ones. */
const periodCount = (iv: Interval): number => Math.max(1, Math.floor(480 / (iv.unit === 'day' ? 1 : iv.count)));

describe('parseInterval', () => {
  it('reads every interval the issue names', () => {
    expect(NAMED.map((s) => parseInterval(s))).toEqual([
      { unit: 'day', count: 1 },
      { unit: 'week', count: 1 },
      { unit: 'week', count: 2 },
      { unit: 'month', count: 1 },
      { unit: 'month', count: 3 },
      { unit: 'month', count: 6 },
      { unit: 'year', count: 1 },
    ]);
  });

  it('reads any single-unit count up to three years, and nothing beyond', () => {
    fc.assert(
      fc.property(fc.constantFrom<IntervalUnit>('day', 'week', 'month', 'year'), fc.integer({ min: 1, max: 2000 }), (unit, count) => {
        const parsed = parseInterval(`P${count}${LETTER[unit]}`);
        if (count <= MAX_COUNT[unit]) expect(parsed).toEqual({ unit, count });
        else expect(parsed).toBeNull();
      }),
    );
  });

  it('refuses zero, mixed units, times, more than three years and garbage, with a message', () => {
    const refused = [
      'P0M', 'P0D', 'P1M2D', 'P1Y1M', 'PT1H', 'P1DT1H', 'P4Y', 'P37M', 'P157W', 'P1096D',
      'P01M', 'p1m', 'P1m', ' P1M', 'P1M ', 'P1M\n', 'P-1M', 'P1.5M', 'P1', 'PM', 'P', '', '1M',
      'monthly', 'P1Q', 'P99999M',
    ];
    for (const s of refused) {
      expect(parseInterval(s), s).toBeNull();
      expect(intervalProblem(s), s).toContain(`"${s}" is not a billing interval`);
    }
    expect(intervalProblem('P3M')).toBeNull();
  });

  it('refuses any string that is not P, a count without leading zero, and one unit letter', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 8 }), (s) => {
        if (!/^P[1-9]\d*[DWMY]$/.test(s)) expect(parseInterval(s)).toBeNull();
      }),
    );
  });
});

describe('boundary, from the anchor, with month-end clamping as Stripe', () => {
  it('anchored on Jan 31 bills Feb 28, then Mar 31, keeping the time of day', () => {
    const a = unix('2027-01-31T10:20:30Z');
    const monthly = parseInterval('P1M')!;
    expect([1, 2, 3, 4, 12, 13].map((n) => iso(boundary(a, monthly, n)))).toEqual([
      '2027-02-28T10:20:30.000Z',
      '2027-03-31T10:20:30.000Z',
      '2027-04-30T10:20:30.000Z',
      '2027-05-31T10:20:30.000Z',
      '2028-01-31T10:20:30.000Z',
      '2028-02-29T10:20:30.000Z',
    ]);
  });

  it('bills Feb 29 in a leap year, and a Feb 29 yearly anchor on Feb 28 until the next leap year', () => {
    expect(iso(boundary(unix('2028-01-30T00:00:00Z'), parseInterval('P1M')!, 1))).toBe('2028-02-29T00:00:00.000Z');
    expect(iso(boundary(unix('2027-01-29T08:00:00Z'), parseInterval('P1M')!, 1))).toBe('2027-02-28T08:00:00.000Z');
    const leap = unix('2028-02-29T23:59:59Z');
    const yearly = parseInterval('P1Y')!;
    expect([0, 1, 2, 3, 4, 8].map((n) => iso(boundary(leap, yearly, n)))).toEqual([
      '2028-02-29T23:59:59.000Z',
      '2029-02-28T23:59:59.000Z',
      '2030-02-28T23:59:59.000Z',
      '2031-02-28T23:59:59.000Z',
      '2032-02-29T23:59:59.000Z',
      '2036-02-29T23:59:59.000Z',
    ]);
    // 2100 is not a leap year.
    expect(iso(boundary(unix('2096-02-29T00:00:00Z'), parseInterval('P1Y')!, 4))).toBe('2100-02-28T00:00:00.000Z');
  });

  it('quarterly and half-yearly anchors on the 31st clamp to the short months they land in', () => {
    const a = unix('2026-08-31T12:00:00Z');
    expect([1, 2, 3].map((n) => iso(boundary(a, parseInterval('P3M')!, n)).slice(0, 10))).toEqual([
      '2026-11-30', '2027-02-28', '2027-05-31',
    ]);
    expect([1, 2].map((n) => iso(boundary(a, parseInterval('P6M')!, n)).slice(0, 10))).toEqual(['2027-02-28', '2027-08-31']);
  });

  it('is the anchor at n = 0', () => {
    fc.assert(fc.property(anchor, interval, (a, iv) => boundary(a, iv, 0) === a));
  });

  it('lands on the anchor’s day of month, clamped to the month’s length, at the anchor’s time of day', () => {
    fc.assert(
      fc.property(anchor, interval, fc.integer({ min: 0, max: 480 }), (a, iv, rawN) => {
        const n = rawN % (periodCount(iv) + 1);
        const b = boundary(a, iv, n);
        const start = new Date(a * 1000);
        const end = new Date(b * 1000);
        expect(b % DAY).toBe(a % DAY);
        if (iv.unit === 'day' || iv.unit === 'week') {
          expect(b - a).toBe(n * iv.count * (iv.unit === 'week' ? 7 : 1) * DAY);
          return;
        }
        const months = n * iv.count * (iv.unit === 'year' ? 12 : 1);
        const total = start.getUTCFullYear() * 12 + start.getUTCMonth() + months;
        expect(end.getUTCFullYear() * 12 + end.getUTCMonth()).toBe(total);
        const length = daysInMonth(end.getUTCFullYear(), end.getUTCMonth());
        expect(end.getUTCDate()).toBe(Math.min(start.getUTCDate(), length));
      }),
    );
  });

  it('computes each boundary from the anchor: a month-end anchor comes back after a short month', () => {
    fc.assert(
      fc.property(monthEndAnchor, fc.constantFrom('P1M', 'P3M', 'P6M', 'P1Y').map((s) => parseInterval(s)!), fc.integer({ min: 1, max: 40 }), (a, iv, n) => {
        const day = new Date(a * 1000).getUTCDate();
        const next = new Date(boundary(a, iv, n) * 1000);
        const length = daysInMonth(next.getUTCFullYear(), next.getUTCMonth());
        // Never stuck on a clamped day: whenever the month is long enough, the anchor's day is back.
        if (length >= day) expect(next.getUTCDate()).toBe(day);
      }),
    );
  });

  it('strictly increases, each period at least a day and at most its nominal length', () => {
    fc.assert(
      fc.property(anchor, interval, fc.integer({ min: 0, max: 480 }), (a, iv, rawN) => {
        const n = rawN % periodCount(iv);
        const length = boundary(a, iv, n + 1) - boundary(a, iv, n);
        const months = iv.unit === 'year' ? 12 * iv.count : iv.count;
        if (iv.unit === 'day') expect(length).toBe(iv.count * DAY);
        else if (iv.unit === 'week') expect(length).toBe(iv.count * 7 * DAY);
        else {
          // Clamping shortens one period and lengthens the next by at most three days.
          expect(length).toBeGreaterThanOrEqual(months * 28 * DAY - 3 * DAY);
          expect(length).toBeLessThanOrEqual(months * 31 * DAY + 3 * DAY);
        }
        expect(length).toBeGreaterThan(0);
      }),
    );
  });
});

describe('periodIndex', () => {
  it('is n on every second of [boundary(n), boundary(n + 1))', () => {
    fc.assert(
      fc.property(anchor, interval, fc.integer({ min: 0, max: 480 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (a, iv, rawN, f) => {
        const n = rawN % periodCount(iv);
        const start = boundary(a, iv, n);
        const end = boundary(a, iv, n + 1);
        const t = start + Math.floor(f * (end - start));
        expect(periodIndex(a, iv, t)).toBe(n);
        expect(periodIndex(a, iv, start)).toBe(n);
        expect(periodIndex(a, iv, end - 1)).toBe(n);
        expect(periodIndex(a, iv, end)).toBe(n + 1);
      }),
    );
  });

  it('brackets any time after the anchor between its boundaries', () => {
    fc.assert(
      fc.property(anchor, interval, fc.integer({ min: 0, max: 40 * 366 * DAY }), (a, iv, offset) => {
        const t = a + offset;
        const n = periodIndex(a, iv, t);
        expect(boundary(a, iv, n)).toBeLessThanOrEqual(t);
        expect(boundary(a, iv, n + 1)).toBeGreaterThan(t);
      }),
    );
  });

  it('is 0 before the anchor', () => {
    fc.assert(fc.property(anchor, interval, fc.integer({ min: 1, max: 10 * 366 * DAY }), (a, iv, before) => periodIndex(a, iv, a - before) === 0));
  });
});
