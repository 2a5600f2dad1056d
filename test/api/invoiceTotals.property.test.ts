import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { divRound, priceLines, rateUnits, type DiscountTerms, type PricingLine, type TaxTerms } from '../../platform/domain/invoiceTotals.ts';

const CURRENCIES = ['JPY', 'EUR', 'KWD'] as const;
const anyCurrency = fc.constantFrom(...CURRENCIES);
/** Up to a million in major units of any of them. */
const anyAmount = fc.integer({ min: 0, max: 1_000_000_000 });
const anyLine = fc.record({ name: fc.constantFrom('Plan', 'Seat', 'Add-on'), amount: anyAmount, discountable: fc.boolean() });
const anyLines = fc.array(anyLine, { minLength: 1, maxLength: 6 });
/** Real VAT rates reach 27%; four decimals as Stripe's TaxRate allows. */
const anyRate = fc.integer({ min: 0, max: 270_000 }).map((units) => units / 10_000);
const anyTax: fc.Arbitrary<TaxTerms | null> = fc.option(fc.record({ percentage: anyRate, behavior: fc.constantFrom('inclusive' as const, 'exclusive' as const) }));
const anyPercentOff = fc.integer({ min: 1, max: 1_000_000 }).map((units) => units / 10_000);

function anyDiscount(currency: string): fc.Arbitrary<DiscountTerms | null> {
  return fc.option(
    fc.oneof(
      anyPercentOff.map((percent_off): DiscountTerms => ({ percent_off })),
      fc.integer({ min: 1, max: 2_000_000_000 }).map((amount_off): DiscountTerms => ({ amount_off, currency })),
    ),
  );
}

const priced = fc.tuple(anyCurrency, anyLines, anyTax).chain(([currency, lines, tax]) =>
  anyDiscount(currency).map((discount) => ({ currency, lines, tax, discount, totals: priceLines(lines, currency, discount, tax) })),
);

describe('priceLines', () => {
  it('reconciles: total = subtotal − discount + exclusive tax, and the lines add up to each figure', () => {
    fc.assert(
      fc.property(priced, ({ lines, tax, totals }) => {
        const sum = (f: (l: (typeof totals.lines)[number]) => number) => totals.lines.reduce((s, l) => s + f(l), 0);
        expect(totals.subtotal).toBe(lines.reduce((s, l) => s + l.amount, 0));
        expect(sum((l) => l.discount_amount)).toBe(totals.total_discount);
        expect(sum((l) => l.tax_amount)).toBe(totals.total_tax);
        for (const l of totals.lines) expect(l.taxable_amount).toBe(l.amount - l.discount_amount);
        const exclusive = tax?.behavior === 'exclusive' ? totals.total_tax : 0;
        expect(totals.total).toBe(totals.subtotal - totals.total_discount + exclusive);
        expect(Number.isSafeInteger(totals.total)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('never discounts below zero nor an excluded line', () => {
    fc.assert(
      fc.property(priced, ({ lines, totals }) => {
        const discountable = lines.reduce((s, l) => s + (l.discountable === false ? 0 : l.amount), 0);
        expect(totals.total_discount).toBeGreaterThanOrEqual(0);
        expect(totals.total_discount).toBeLessThanOrEqual(discountable);
        expect(totals.total).toBeGreaterThanOrEqual(0);
        totals.lines.forEach((l, i) => {
          if (lines[i]!.discountable === false) expect(l.discount_amount).toBe(0);
          expect(l.discount_amount).toBeLessThanOrEqual(l.amount);
        });
      }),
      { numRuns: 2000 },
    );
  });

  it('takes a fixed amount off whole, capped at what the coupon may discount', () => {
    fc.assert(
      fc.property(anyCurrency, anyLines, fc.integer({ min: 1, max: 2_000_000_000 }), (currency, lines, amountOff) => {
        const totals = priceLines(lines, currency, { amount_off: amountOff, currency }, null);
        const discountable = lines.reduce((s, l) => s + (l.discountable === false ? 0 : l.amount), 0);
        expect(totals.total_discount).toBe(Math.min(amountOff, discountable));
      }),
      { numRuns: 1000 },
    );
  });

  it('rounds each line’s percentage discount and tax on its own, to the nearest unit', () => {
    fc.assert(
      fc.property(priced, ({ tax, discount, totals }) => {
        for (const l of totals.lines) {
          if (discount?.percent_off !== undefined && l.discountable !== false) {
            // |discount·10⁶ − amount·rate| ≤ 10⁶/2: the nearest unit to the exact share.
            const error = BigInt(l.discount_amount) * 1_000_000n - BigInt(l.amount) * rateUnits(discount.percent_off);
            expect(error < 0n ? -error : error).toBeLessThanOrEqual(500_000n);
          }
          if (!tax) continue;
          const rate = rateUnits(tax.percentage);
          if (tax.behavior === 'exclusive') {
            const error = BigInt(l.tax_amount) * 1_000_000n - BigInt(l.taxable_amount) * rate;
            expect(error < 0n ? -error : error).toBeLessThanOrEqual(500_000n);
          } else {
            // The net part times (1 + rate) is the nearest to the taxable amount.
            const net = BigInt(l.taxable_amount - l.tax_amount);
            const error = net * (1_000_000n + rate) - BigInt(l.taxable_amount) * 1_000_000n;
            expect(error < 0n ? -error : error).toBeLessThanOrEqual((1_000_000n + rate) / 2n);
          }
        }
      }),
      { numRuns: 2000 },
    );
  });

  it('gives an amount off in another currency nothing', () => {
    const totals = priceLines([{ name: 'Zine', amount: 1000 }], 'EUR', { amount_off: 500, currency: 'USD' }, null);
    expect(totals.total_discount).toBe(0);
    expect(totals.total).toBe(1000);
  });

  it('prices a worked example as an EU invoice states it', () => {
    // €19.99 and €5.00 at 20% off, 19% VAT on top: 15.99 + 4.00 net of discount, VAT 3.04 + 0.76.
    const lines: PricingLine[] = [
      { name: 'Course', amount: 1999 },
      { name: 'Workbook', amount: 500 },
    ];
    const totals = priceLines(lines, 'EUR', { percent_off: 20 }, { percentage: 19, behavior: 'exclusive' });
    expect(totals.lines.map((l) => [l.discount_amount, l.tax_amount])).toEqual([
      [400, 304],
      [100, 76],
    ]);
    expect(totals).toMatchObject({ subtotal: 2499, total_discount: 500, total_tax: 380, total: 2379 });
    // Inclusive: €11.90 holds €1.90 of 19% VAT.
    expect(priceLines([{ name: 'Zine', amount: 1190 }], 'EUR', null, { percentage: 19, behavior: 'inclusive' })).toMatchObject({ total_tax: 190, total: 1190 });
  });

  it('rounds halves away from zero', () => {
    expect(divRound(5n, 2n)).toBe(3n);
    expect(divRound(-5n, 2n)).toBe(-3n);
    expect(divRound(4n, 3n)).toBe(1n);
    expect(() => rateUnits(19.12345)).toThrow(RangeError);
  });
});
