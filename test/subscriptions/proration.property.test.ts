import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { prorate, prorated, type ProrationInput } from '../../modules/subscriptions/domain/proration.ts';

const DAY = 86_400;
const THREE_YEARS = 3 * 366 * DAY;
const MAX_AMOUNT = 99_999_999;

/** A change inside (or just around) a period of up to three years, prices up to 99,999,999 minor units. */
const change = fc
  .record({
    oldPrice: fc.oneof(fc.integer({ min: 0, max: MAX_AMOUNT }), fc.constantFrom(0, 1, MAX_AMOUNT)),
    newPrice: fc.oneof(fc.integer({ min: 0, max: MAX_AMOUNT }), fc.constantFrom(0, 1, MAX_AMOUNT)),
    periodStart: fc.integer({ min: 1_700_000_000, max: 2_000_000_000 }),
    length: fc.oneof(fc.integer({ min: 1, max: THREE_YEARS }), fc.constantFrom(1, 28 * DAY, 31 * DAY, 365 * DAY, THREE_YEARS)),
    at: fc.double({ min: 0, max: 1, noNaN: true }),
    behavior: fc.constantFrom('create_prorations' as const, 'always_invoice' as const),
  })
  .map(({ oldPrice, newPrice, periodStart, length, at, behavior }): ProrationInput => ({
    oldPrice,
    newPrice,
    oldPlanName: 'Monthly',
    newPlanName: 'Monthly Pro',
    periodStart,
    periodEnd: periodStart + length,
    changedAt: periodStart + Math.floor(at * length),
    anchor: periodStart - 10 * DAY,
    behavior,
  }));

/** |line × total − price × left| ≤ total / 2 exactly, in integers: the line is price × left / total rounded to the nearest unit. */
function roundedCorrectly(line: number, price: number, left: number, total: number): boolean {
  const err = BigInt(line) * BigInt(total) - BigInt(price) * BigInt(left);
  return 2n * (err < 0n ? -err : err) <= BigInt(total);
}

describe('prorate', () => {
  it('credits the unused time of the old price and charges the rest at the new one', () => {
    // Half of a 30-day period left: 1,000 → 2,000 gives −500 and +1,000.
    const lines = prorate({
      oldPrice: 1000, newPrice: 2000, oldPlanName: 'Basic', newPlanName: 'Pro',
      periodStart: 1_800_000_000, periodEnd: 1_800_000_000 + 30 * DAY, changedAt: 1_800_000_000 + 15 * DAY,
      anchor: 1_800_000_000, behavior: 'create_prorations',
    });
    expect(lines.map((l) => [l.name, l.amount, l.proration.side, l.proration.seconds_used, l.proration.seconds_left])).toEqual([
      ['Unused time on Basic', -500, 'credit', 15 * DAY, 15 * DAY],
      ['Remaining time on Pro', 1000, 'charge', 15 * DAY, 15 * DAY],
    ]);
    expect(lines[0]!.period).toEqual({ start: 1_800_000_000 + 15 * DAY, end: 1_800_000_000 + 30 * DAY });
  });

  it('credits a free plan with 0, not -0, so a stored line reads back equal', () => {
    const [credit] = prorate({
      oldPrice: 0, newPrice: 900, oldPlanName: 'Free', newPlanName: 'Pro',
      periodStart: 1_800_000_000, periodEnd: 1_800_000_000 + 30 * DAY, changedAt: 1_800_000_000 + 10 * DAY,
      anchor: 1_800_000_000, behavior: 'always_invoice',
    });
    expect(Object.is(credit!.amount, 0)).toBe(true);
  });

  it('rounds each line half away from zero', () => {
    expect(prorated(1, 1, 2)).toBe(1);
    expect(prorated(-1, 1, 2)).toBe(-1);
    expect(prorated(3, 1, 2)).toBe(2);
    expect(prorated(5, 1, 3)).toBe(2);
    expect(prorated(4, 1, 3)).toBe(1);
    // 99,999,999 × 94,867,199 overflows 2^53: still exact.
    expect(prorated(MAX_AMOUNT, THREE_YEARS - 1, THREE_YEARS)).toBe(MAX_AMOUNT - 1);
    expect(prorated(MAX_AMOUNT, 1, THREE_YEARS)).toBe(1);
  });

  it('sums to the price difference over the time left, within one minor unit', () => {
    fc.assert(
      fc.property(change, (input) => {
        const lines = prorate(input);
        const total = input.periodEnd - input.periodStart;
        const left = input.periodEnd - input.changedAt;
        if (left === 0) {
          expect(lines).toEqual([]);
          return;
        }
        const sum = lines.reduce((s, l) => s + l.amount, 0);
        const err = BigInt(sum) * BigInt(total) - BigInt(input.newPrice - input.oldPrice) * BigInt(left);
        expect((err < 0n ? -err : err) <= BigInt(total)).toBe(true);
      }),
    );
  });

  it('rounds each line correctly, without losing precision, for amounts up to 99,999,999 and periods up to three years', () => {
    fc.assert(
      fc.property(change, (input) => {
        const total = input.periodEnd - input.periodStart;
        const left = input.periodEnd - input.changedAt;
        for (const line of prorate(input)) {
          expect(Number.isSafeInteger(line.amount)).toBe(true);
          const price = line.proration.side === 'credit' ? -input.oldPrice : input.newPrice;
          expect(roundedCorrectly(line.amount, price, left, total)).toBe(true);
        }
      }),
    );
  });

  it('credits ≤ 0 and charges ≥ 0, never more than a whole period, for non-negative prices', () => {
    fc.assert(
      fc.property(change, (input) => {
        const lines = prorate(input);
        for (const line of lines) {
          if (line.proration.side === 'credit') {
            expect(line.amount).toBeLessThanOrEqual(0);
            expect(line.amount).toBeGreaterThanOrEqual(-input.oldPrice);
          } else {
            expect(line.amount).toBeGreaterThanOrEqual(0);
            expect(line.amount).toBeLessThanOrEqual(input.newPrice);
          }
        }
        if (lines.length > 0) expect(lines.map((l) => l.proration.side)).toEqual(['credit', 'charge']);
      }),
    );
  });

  it('gives no lines for `none`, or when no time is left', () => {
    fc.assert(
      fc.property(change, fc.integer({ min: 0, max: THREE_YEARS }), (input, after) => {
        expect(prorate({ ...input, behavior: 'none' })).toEqual([]);
        expect(prorate({ ...input, changedAt: input.periodEnd + after })).toEqual([]);
        expect(prorate({ ...input, periodEnd: input.periodStart, changedAt: input.periodStart })).toEqual([]);
      }),
    );
  });

  it('replays: the same input, or the derivation read back from a stored event, gives the same lines', () => {
    fc.assert(
      fc.property(change, (input) => {
        const lines = prorate(input);
        expect(prorate({ ...input })).toEqual(lines);
        // An event store keeps JSON: what is read back must equal what a replay computes now.
        expect(JSON.parse(JSON.stringify(lines))).toEqual(lines);
        for (const line of lines) {
          const d = line.proration;
          expect(d.seconds_used + d.seconds_left).toBe(d.period_end - d.period_start);
          expect(d.changed_at).toBe(line.period.start);
          const again = prorate({
            oldPrice: d.old_price, newPrice: d.new_price, oldPlanName: d.old_plan, newPlanName: d.new_plan,
            periodStart: d.period_start, periodEnd: d.period_end, changedAt: d.changed_at,
            anchor: d.billing_cycle_anchor, behavior: d.proration_behavior,
          });
          expect(again).toEqual(lines);
        }
      }),
    );
  });

  it('treats a change before the period as made at its start', () => {
    fc.assert(
      fc.property(change, fc.integer({ min: 1, max: THREE_YEARS }), (input, before) => {
        expect(prorate({ ...input, changedAt: input.periodStart - before })).toEqual(prorate({ ...input, changedAt: input.periodStart }));
      }),
    );
  });
});
