import { formatMoney, type AppliedDiscount, type AppliedTax, type PricingRecord } from '../../../platform/domain/index.ts';
import type { SessionLine } from '../../checkout/domain/checkoutSession.ts';

/**
 * What a receipt prints of an invoice's pricing, the same on the page, in the email (text and
 * HTML) and in the PDF: each line with its discount and VAT, the subtotal, the discount with its
 * code, the VAT per rate, the total, the buyer's tax details and, for a reverse charge, the
 * statement the EU requires. Every figure is the one recorded on the invoice (`pricing` and the
 * priced lines): nothing is computed again here. Pure.
 */

export const REVERSE_CHARGE_STATEMENT = 'Reverse charge: VAT to be accounted for by the recipient (Article 196, Council Directive 2006/112/EC)';

export type FigureLine = {
  name: string;
  amount: string;
  /** `Discount -€2.00`; null when the line had none. */
  discount: string | null;
  /** `VAT 19% €3.42` or `Reverse charge`; null when the invoice has no tax. */
  tax: string | null;
};

export type FigureTotal = { id: 'subtotal' | 'discount' | 'tax' | 'total'; label: string; amount: string };

export type ReceiptFigures = {
  lines: FigureLine[];
  /** Subtotal, discount, VAT and total; the total alone for an invoice without pricing. */
  totals: FigureTotal[];
  /** The buyer's business name, country and VAT number, those given. */
  buyer: string[];
  statement: string | null;
};

/** `19`, `5.5`, `8.1`: a rate as people write it. */
export const formatPercentage = (percentage: number): string => `${Number(percentage.toFixed(4))}%`;

export const isReverseCharge = (tax: AppliedTax | null | undefined): boolean => tax?.taxability_reason === 'reverse_charge';

/** `VAT 19%`, or `Reverse charge` where the buyer accounts for the VAT. */
export function taxLabel(tax: AppliedTax): string {
  if (isReverseCharge(tax)) return 'Reverse charge';
  return `VAT ${formatPercentage(tax.tax_rate?.percentage ?? tax.percentage)}${tax.behavior === 'inclusive' ? ' (included)' : ''}`;
}

/** The code the buyer typed, else the coupon's name or id: what a buyer recognises. */
export const discountCode = (discount: AppliedDiscount): string => discount.promotion_code?.code ?? discount.coupon.name ?? discount.coupon.id;

/** `Discount (LAUNCH20)`. */
export const discountLabel = (discount: AppliedDiscount | null): string => (discount ? `Discount (${discountCode(discount)})` : 'Discount');

let regions: Intl.DisplayNames | null = null;

/** `Germany` for `DE`; the code itself when Intl does not know it. */
export function countryName(code: string): string {
  try {
    regions ??= new Intl.DisplayNames(['en'], { type: 'region' });
    return regions.of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

export function receiptFigures(r: { lines: readonly SessionLine[]; total: number; currency: string; pricing?: PricingRecord | null }): ReceiptFigures {
  const money = (minor: number) => formatMoney(minor, r.currency);
  const pricing = r.pricing ?? null;
  const tax = pricing?.tax ?? null;
  const lines = r.lines.map((l): FigureLine => ({
    name: l.name,
    amount: money(l.amount),
    discount: pricing && l.discount_amount ? `Discount ${money(-l.discount_amount)}` : null,
    tax: pricing && tax ? (isReverseCharge(tax) ? 'Reverse charge' : `${taxLabel(tax)} ${money(l.tax_amount ?? 0)}`) : null,
  }));
  if (!pricing) return { lines, totals: [{ id: 'total', label: 'Total', amount: money(r.total) }], buyer: [], statement: null };
  const totals: FigureTotal[] = [{ id: 'subtotal', label: 'Subtotal', amount: money(pricing.subtotal) }];
  if (pricing.total_discount !== 0 || pricing.discount) totals.push({ id: 'discount', label: discountLabel(pricing.discount), amount: money(-pricing.total_discount) });
  if (tax) totals.push({ id: 'tax', label: taxLabel(tax), amount: money(pricing.total_tax) });
  totals.push({ id: 'total', label: 'Total', amount: money(r.total) });
  const details = pricing.customer_details;
  const buyer = details
    ? [
        ...(details.business_name ? [details.business_name] : []),
        ...(details.address?.country ? [countryName(details.address.country)] : []),
        ...(details.tax_id ? [`VAT ${details.tax_id.value}`] : []),
      ]
    : [];
  return { lines, totals, buyer, statement: isReverseCharge(tax) || details?.tax_exempt === 'reverse' ? REVERSE_CHARGE_STATEMENT : null };
}

/**
 * One line for lists (the portal's invoices and purchases): `Discount (LAUNCH20) -€25.00 · VAT 19%
 * €19.00`, or `Reverse charge`; null without a discount or a tax.
 */
export function pricingSummary(pricing: PricingRecord | null | undefined, currency: string): string | null {
  if (!pricing) return null;
  const parts: string[] = [];
  if (pricing.total_discount !== 0) parts.push(`${discountLabel(pricing.discount)} ${formatMoney(-pricing.total_discount, currency)}`);
  if (pricing.tax) parts.push(isReverseCharge(pricing.tax) ? 'Reverse charge' : `${taxLabel(pricing.tax)} ${formatMoney(pricing.total_tax, currency)}`);
  return parts.length ? parts.join(' · ') : null;
}
