import type { DiscountTerms, TaxBehavior, TaxTerms } from './invoiceTotals.ts';

/**
 * The words sessions, invoices, subscriptions, receipts and reports share about a discount and a
 * tax, in Stripe's names. Each is frozen into the event that applies it, so an invoice still reads
 * as it was charged after the coupon or the rate changed.
 */

export type CouponDuration = 'once' | 'repeating' | 'forever';

/** A coupon as applied (Stripe's Discount): what prices the lines and what the invoice shows. */
export type AppliedDiscount = {
  coupon: {
    id: string;
    name: string | null;
    percent_off: number | null;
    amount_off: number | null;
    currency: string | null;
    duration: CouponDuration;
    duration_in_months: number | null;
    /** Product ids (the catalog's `id`) the coupon is limited to; null: every product. */
    applies_to: { products: string[] } | null;
  };
  /** The customer-facing code the buyer typed; null for a coupon the seller attached to the offer. */
  promotion_code: { id: string; code: string } | null;
};

/** Stripe Tax's reasons, the ones a rate table can give. */
export type TaxabilityReason = 'standard_rated' | 'reverse_charge' | 'not_collecting' | 'zero_rated' | 'customer_exempt';

/** The tax as calculated for a buyer: the rate used and why; recorded with its inputs. */
export type AppliedTax = {
  /** The seller's rate that applied (Stripe's TaxRate, frozen); null when none did (reverse charge, not collecting). */
  tax_rate: { id: string; display_name: string; percentage: number; country: string; state: string | null; jurisdiction: string | null } | null;
  percentage: number;
  behavior: TaxBehavior;
  taxability_reason: TaxabilityReason;
  /** Which calculator decided it: `rate_table` (the seller's rates), or an adapter's name. */
  calculated_by: string;
};

/** What the buyer told the checkout that the tax needs (Stripe's Checkout `customer_details`). */
export type CustomerTaxDetails = {
  address: { country: string; postal_code: string | null; state: string | null } | null;
  business_name: string | null;
  tax_id: { type: string; value: string; country: string; verification: 'unverified' | 'verified' | 'unavailable' } | null;
  /** `reverse` when the buyer accounts for the VAT themselves (EU B2B across borders). */
  tax_exempt: 'none' | 'reverse';
};

/** What a session or invoice records of its pricing besides its lines and total. */
export type PricingRecord = {
  subtotal: number;
  total_discount: number;
  total_tax: number;
  discount: AppliedDiscount | null;
  tax: AppliedTax | null;
  customer_details: CustomerTaxDetails | null;
};

export const discountTerms = (d: AppliedDiscount): DiscountTerms =>
  d.coupon.percent_off !== null ? { percent_off: d.coupon.percent_off } : { amount_off: d.coupon.amount_off ?? 0, currency: d.coupon.currency ?? '' };

export const taxTerms = (t: AppliedTax): TaxTerms => ({ percentage: t.percentage, behavior: t.behavior });
