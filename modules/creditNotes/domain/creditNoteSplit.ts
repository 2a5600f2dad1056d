import type { AppliedDiscount, AppliedTax, PricingRecord, TaxabilityReason } from '../../../platform/domain/index.ts';
import type { InvoiceLine } from '../../checkout/domain/invoice.ts';

/**
 * What a refund gives back, split into net and tax in the invoice's proportion (Stripe's
 * CreditNote `tax_amounts`, `discount_amounts`, `lines`). The invoice's recorded figures are
 * apportioned, never computed again:
 *
 * - The tax (and the discount) a note gives back is the invoice's, in the share the refunds have
 *   reached so far, less what earlier notes gave back. Each share is rounded by largest remainder
 *   between its two parts (tax and net), a tie going to the net: all the notes of an invoice never
 *   give back more tax than it charged, and once it is refunded in full they give back exactly it.
 * - A refund of the whole invoice at once credits each line as it was charged; a partial one
 *   credits one line, the refund.
 */

export type CreditNoteTaxAmount = {
  amount: number;
  inclusive: boolean;
  tax_rate: AppliedTax['tax_rate'];
  /** The rate applied, in percent (0 for a reverse charge), as the invoice's `total_tax_amounts` say it. */
  percentage: number;
  taxability_reason: TaxabilityReason;
  /** What the tax is on: the refund less its tax. */
  taxable_amount: number;
};

export type CreditNoteDiscountAmount = { amount: number; discount: AppliedDiscount };

export type CreditNoteLine = {
  description: string;
  /** Refunded, tax included. */
  amount: number;
  amount_excluding_tax: number;
  discount_amount: number;
  tax_amount: number;
};

export type CreditNoteSplit = {
  /** Before discounts and tax added on top (Stripe's CreditNote `subtotal`). */
  subtotal: number;
  total_excluding_tax: number;
  tax_amounts: CreditNoteTaxAmount[];
  discount_amounts: CreditNoteDiscountAmount[];
  lines: CreditNoteLine[];
};

/**
 * `of` in the proportion `part / whole`, the two parts of `part` (this and the rest) rounded by
 * largest remainder: the unit left over goes to this share only when its remainder is the larger.
 */
export function proportionalShare(part: number, whole: number, of: number): number {
  if (whole <= 0 || part <= 0 || of === 0) return 0;
  const capped = BigInt(Math.min(part, whole));
  const exact = capped * BigInt(of);
  const w = BigInt(whole);
  const floor = exact / w;
  const remainder = exact - floor * w;
  return Number(remainder * 2n > w ? floor + 1n : floor);
}

export type CreditedInvoice = { number: number; lines: readonly InvoiceLine[]; total: number; pricing: PricingRecord | null };

/**
 * The split of one refund: `amount` refunded, `refundedBefore` by the notes issued before it.
 * An invoice without pricing: no tax, no discount, the refund net as it is.
 */
export function splitRefund(invoice: CreditedInvoice, amount: number, refundedBefore: number): CreditNoteSplit {
  const pricing = invoice.pricing;
  const whole = invoice.total;
  const backUntil = (of: number, refunded: number) => proportionalShare(refunded, whole, of);
  const tax = pricing ? backUntil(pricing.total_tax, refundedBefore + amount) - backUntil(pricing.total_tax, refundedBefore) : 0;
  const discount = pricing ? backUntil(pricing.total_discount, refundedBefore + amount) - backUntil(pricing.total_discount, refundedBefore) : 0;
  const exclusive = pricing?.tax?.behavior === 'exclusive';
  const net = amount - tax;
  const full = refundedBefore === 0 && amount >= whole;
  const lines: CreditNoteLine[] = full
    ? invoice.lines.map((l) => {
        const lineTax = pricing ? (l.tax_amount ?? 0) : 0;
        const charged = pricing ? (l.taxable_amount ?? l.amount) + (exclusive ? lineTax : 0) : l.amount;
        return { description: l.name, amount: charged, amount_excluding_tax: charged - lineTax, discount_amount: pricing ? (l.discount_amount ?? 0) : 0, tax_amount: lineTax };
      })
    : [{ description: `Refund of invoice #${invoice.number}`, amount, amount_excluding_tax: net, discount_amount: discount, tax_amount: tax }];
  return {
    subtotal: amount + discount - (exclusive ? tax : 0),
    total_excluding_tax: net,
    tax_amounts: pricing?.tax
      ? [{ amount: tax, inclusive: pricing.tax.behavior === 'inclusive', tax_rate: pricing.tax.tax_rate, percentage: pricing.tax.percentage, taxability_reason: pricing.tax.taxability_reason, taxable_amount: net }]
      : [],
    discount_amounts: pricing?.discount ? [{ amount: discount, discount: pricing.discount }] : [],
    lines,
  };
}
