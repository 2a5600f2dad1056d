import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { boundary, parseInterval } from '../../modules/subscriptions/domain/interval.ts';
import { discountAfterInvoice, discountEnd, discountInForce, startDiscount, type SubscriptionDiscount } from '../../modules/subscriptions/domain/subscriptionDiscount.ts';
import type { AppliedDiscount, CouponDuration } from '../../platform/domain/index.ts';

const DAY = 86_400;
const unix = (iso: string): number => Date.parse(iso) / 1000;
const daysInMonth = (year: number, month: number): number => new Date(Date.UTC(year, month + 1, 0)).getUTCDate();

/** Starts from 2000 to 2099, any second; a third of them on the 28th–31st of a month. */
const anyStart = fc.integer({ min: unix('2000-01-01T00:00:00Z'), max: unix('2099-12-31T23:59:59Z') });
const monthEndStart = fc
  .record({ year: fc.integer({ min: 2000, max: 2099 }), month: fc.integer({ min: 0, max: 11 }), fromEnd: fc.integer({ min: 0, max: 3 }), second: fc.integer({ min: 0, max: DAY - 1 }) })
  .map(({ year, month, fromEnd, second }) => Date.UTC(year, month, daysInMonth(year, month) - fromEnd) / 1000 + second);
const start = fc.oneof({ arbitrary: anyStart, weight: 2 }, { arbitrary: monthEndStart, weight: 1 });
const months = fc.integer({ min: 1, max: 36 });

function coupon(duration: CouponDuration, durationInMonths: number | null = null): AppliedDiscount {
  return {
    coupon: { id: 'co_1', name: 'Launch', percent_off: 20, amount_off: null, currency: null, duration, duration_in_months: durationInMonths, applies_to: null },
    promotion_code: { id: 'promo_1', code: 'LAUNCH20' },
  };
}

describe("a subscription discount's end", () => {
  it('is null for forever and once, whatever the start', () => {
    fc.assert(
      fc.property(start, fc.constantFrom<CouponDuration>('forever', 'once'), (t, duration) => {
        expect(discountEnd(coupon(duration).coupon, t)).toBeNull();
        expect(startDiscount(coupon(duration), t)).toMatchObject({ start: t, end: null });
      }),
    );
  });

  it('is start + N months, on the same day of the month or the last day of a shorter one, at the same time of day', () => {
    fc.assert(
      fc.property(start, months, (t, n) => {
        const end = discountEnd(coupon('repeating', n).coupon, t)!;
        const from = new Date(t * 1000);
        const to = new Date(end * 1000);
        const monthsApart = (to.getUTCFullYear() - from.getUTCFullYear()) * 12 + (to.getUTCMonth() - from.getUTCMonth());
        expect(monthsApart).toBe(n);
        expect(to.getUTCDate()).toBe(Math.min(from.getUTCDate(), daysInMonth(to.getUTCFullYear(), to.getUTCMonth())));
        expect(end % DAY).toBe(t % DAY);
        expect(end - t).toBeGreaterThanOrEqual(n * 28 * DAY);
        expect(end - t).toBeLessThanOrEqual(n * 31 * DAY);
      }),
    );
  });

  it('lands where the monthly billing periods from the same start do, so N monthly invoices are discounted, no more', () => {
    const monthly = parseInterval('P1M')!;
    fc.assert(
      fc.property(start, months, (t, n) => {
        const discount = startDiscount(coupon('repeating', n), t);
        expect(discount.end).toBe(boundary(t, monthly, n));
        // The invoices of the periods starting at the start and every month after it.
        const discounted = Array.from({ length: n + 6 }, (_, k) => boundary(t, monthly, k)).filter((ps) => discountInForce(discount, ps));
        expect(discounted).toHaveLength(n);
      }),
    );
  });

  it('counts the periods after a trial from the coupon\'s start, not from the trial\'s end', () => {
    fc.assert(
      fc.property(start, months, fc.integer({ min: 1, max: 60 }), (t, n, trialDays) => {
        const discount = startDiscount(coupon('repeating', n), t);
        const anchor = t + trialDays * DAY;
        const monthly = parseInterval('P1M')!;
        const renewals = Array.from({ length: n + 3 }, (_, k) => boundary(anchor, monthly, k));
        const discounted = renewals.filter((ps) => discountInForce(discount, ps)).length;
        // The trial's own zero invoice took part of the coupon's months: at most N renewals, at least N − 2 (a trial up to 60 days).
        expect(discounted).toBeLessThanOrEqual(n);
        expect(discounted).toBeGreaterThanOrEqual(Math.max(0, n - 2));
        expect(renewals.slice(0, discounted).every((ps) => ps < discount.end!)).toBe(true);
      }),
    );
  });

  it('handles the month ends by example: Jan 31 + 1 month, leap years, Feb 29 + 12 months', () => {
    const at = (iso: string) => unix(iso);
    const end = (iso: string, n: number) => new Date(discountEnd(coupon('repeating', n).coupon, at(iso))! * 1000).toISOString();
    expect(end('2026-01-31T10:00:00Z', 1)).toBe('2026-02-28T10:00:00.000Z');
    expect(end('2028-01-31T10:00:00Z', 1)).toBe('2028-02-29T10:00:00.000Z');
    expect(end('2026-01-31T10:00:00Z', 3)).toBe('2026-04-30T10:00:00.000Z');
    expect(end('2028-02-29T23:59:59Z', 12)).toBe('2029-02-28T23:59:59.000Z');
    expect(end('2026-11-30T00:00:00Z', 3)).toBe('2027-02-28T00:00:00.000Z');
  });
});

describe('a subscription discount across invoices', () => {
  const invoicesPriced = (discount: SubscriptionDiscount, periodStarts: number[]) => {
    let current: SubscriptionDiscount | null = discount;
    const priced: boolean[] = [];
    for (const ps of periodStarts) {
      priced.push(discountInForce(current, ps));
      current = discountAfterInvoice(current, ps);
    }
    return { priced, after: current };
  };

  it('prices the first invoice only when once, every invoice when forever, and the ones starting before its end when repeating', () => {
    fc.assert(
      fc.property(start, months, fc.integer({ min: 1, max: 40 }), (t, n, count) => {
        const periods = Array.from({ length: count }, (_, k) => boundary(t, parseInterval('P1M')!, k));
        expect(invoicesPriced(startDiscount(coupon('once'), t), periods).priced).toEqual(periods.map((_, k) => k === 0));
        expect(invoicesPriced(startDiscount(coupon('forever'), t), periods)).toMatchObject({ priced: periods.map(() => true), after: { end: null } });
        const repeating = invoicesPriced(startDiscount(coupon('repeating', n), t), periods);
        expect(repeating.priced).toEqual(periods.map((_, k) => k < n));
        // Gone once an invoice started at or after its end.
        expect(repeating.after === null).toBe(count > n);
      }),
    );
  });
});
