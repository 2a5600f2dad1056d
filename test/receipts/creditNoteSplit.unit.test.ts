import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { proportionalShare, splitRefund, type CreditedInvoice } from '../../modules/creditNotes/domain/creditNoteSplit.ts';
import { discountTerms, priceLines, taxTerms, type PricingRecord } from '../../platform/domain/index.ts';
import { GERMAN_VAT, launch20 } from './pricedSale.ts';

function invoiceOf(amounts: number[], percentage: number, behavior: 'inclusive' | 'exclusive', percentOff: number | null): CreditedInvoice {
  const tax = { ...GERMAN_VAT, percentage, behavior };
  const discount = percentOff === null ? null : { ...launch20(), coupon: { ...launch20().coupon, percent_off: percentOff } };
  const priced = priceLines(amounts.map((amount, i) => ({ name: `Line ${i}`, amount })), 'eur', discount ? discountTerms(discount) : null, taxTerms(tax));
  const pricing: PricingRecord = { subtotal: priced.subtotal, total_discount: priced.total_discount, total_tax: priced.total_tax, discount, tax, customer_details: null };
  return { number: 7, lines: priced.lines, total: priced.total, pricing };
}

describe('a refund split into net and tax', () => {
  it('rounds each share by largest remainder, a tie going to the net', () => {
    expect(proportionalShare(1, 2, 1)).toBe(0);
    expect(proportionalShare(2, 3, 1)).toBe(1);
    expect(proportionalShare(5_000, 11_900, 1_900)).toBe(798);
    expect(proportionalShare(11_900, 11_900, 1_900)).toBe(1_900);
  });

  it('credits each line as charged when the whole invoice is refunded at once', () => {
    const invoice = invoiceOf([10_000, 2_500], 19, 'exclusive', 20);
    const split = splitRefund(invoice, invoice.total, 0);
    expect(split.lines).toEqual([
      { description: 'Line 0', amount: 9_520, amount_excluding_tax: 8_000, discount_amount: 2_000, tax_amount: 1_520 },
      { description: 'Line 1', amount: 2_380, amount_excluding_tax: 2_000, discount_amount: 500, tax_amount: 380 },
    ]);
    expect(split).toMatchObject({ subtotal: 12_500, total_excluding_tax: 10_000, tax_amounts: [{ amount: 1_900, taxable_amount: 10_000, inclusive: false, taxability_reason: 'standard_rated' }], discount_amounts: [{ amount: 2_500 }] });
  });

  it('never gives back more tax or discount than the invoice had, and all of it once refunded in full', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 500_000 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 0, max: 27 }),
        fc.constantFrom('inclusive' as const, 'exclusive' as const),
        fc.option(fc.integer({ min: 1, max: 100 }), { nil: null }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 1, maxLength: 6 }),
        (amounts, rate, behavior, percentOff, cuts) => {
          const invoice = invoiceOf(amounts, rate, behavior, percentOff);
          // Nothing was charged: nothing to refund.
          fc.pre(invoice.total > 0);
          // Refunds at the cut points, the last one finishing the invoice.
          const points = [...new Set(cuts.map((c) => Math.floor(c * invoice.total)))].sort((a, b) => a - b).filter((p) => p > 0 && p < invoice.total);
          const amountsRefunded = [...points, invoice.total].map((p, i, all) => p - (i === 0 ? 0 : all[i - 1]!));
          let before = 0;
          let tax = 0;
          let discount = 0;
          for (const amount of amountsRefunded) {
            const split = splitRefund(invoice, amount, before);
            before += amount;
            const noteTax = split.tax_amounts[0]?.amount ?? 0;
            expect(noteTax).toBeGreaterThanOrEqual(0);
            expect(split.total_excluding_tax + noteTax).toBe(amount);
            tax += noteTax;
            discount += split.discount_amounts[0]?.amount ?? 0;
            expect(tax).toBeLessThanOrEqual(invoice.pricing!.total_tax);
            expect(discount).toBeLessThanOrEqual(invoice.pricing!.total_discount);
          }
          expect(tax).toBe(invoice.pricing!.total_tax);
          expect(discount).toBe(invoice.pricing!.total_discount);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('an invoice without pricing is credited net, as before', () => {
    const split = splitRefund({ number: 3, lines: [{ name: 'Plan', amount: 2_400 }], total: 2_400, pricing: null }, 1_000, 0);
    expect(split).toEqual({ subtotal: 1_000, total_excluding_tax: 1_000, tax_amounts: [], discount_amounts: [], lines: [{ description: 'Refund of invoice #3', amount: 1_000, amount_excluding_tax: 1_000, discount_amount: 0, tax_amount: 0 }] });
  });
});
