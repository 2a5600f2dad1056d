import { z } from 'zod';
import type { PricingRecord } from '../../../platform/domain/index.ts';

/**
 * A discount and a tax as answers show them, in Stripe's names: a session's `amount_subtotal`,
 * `total_details` and `discounts`, an invoice's `subtotal`, `tax`, `total_discount_amounts` and
 * `total_tax_amounts`; both carry what the buyer gave the tax (`customer_details`).
 */

export const DiscountSchema = z
  .object({
    coupon: z.object({
      id: z.string(),
      name: z.string().nullable(),
      percent_off: z.number().nullable(),
      amount_off: z.number().int().nullable(),
      currency: z.string().nullable(),
      duration: z.enum(['once', 'repeating', 'forever']),
      duration_in_months: z.number().int().nullable(),
      applies_to: z.object({ products: z.array(z.string()) }).nullable(),
    }),
    promotion_code: z.object({ id: z.string(), code: z.string() }).nullable().describe('The code the buyer typed; null for a coupon the seller attached to the offer.'),
  })
  .describe("A coupon as applied (Stripe's Discount), frozen when applied.");

export const CustomerDetailsSchema = z
  .object({
    address: z.object({ country: z.string(), postal_code: z.string().nullable(), state: z.string().nullable() }).nullable(),
    business_name: z.string().nullable(),
    tax_id: z.object({ type: z.string(), value: z.string(), country: z.string(), verification: z.enum(['unverified', 'verified', 'unavailable']) }).nullable(),
    tax_exempt: z.enum(['none', 'reverse']).describe('`reverse`: an EU business buying across a border with a VAT number accounts for the VAT itself (reverse charge).'),
  })
  .nullable()
  .describe('What the buyer gave the tax (country, postal code, business name, VAT number); null before.');

const TaxRateSchema = z
  .object({ id: z.string(), display_name: z.string(), percentage: z.number(), country: z.string(), state: z.string().nullable(), jurisdiction: z.string().nullable() })
  .nullable();

export const TaxAmountSchema = z.object({
  amount: z.number().int(),
  inclusive: z.boolean().describe('The tax is part of the price (true) or added on top (false).'),
  tax_rate: TaxRateSchema.describe("The seller's rate that applied, as it stood; null for a reverse charge or where the seller does not collect."),
  percentage: z.number().describe('The rate applied, in percent (0 for a reverse charge).'),
  taxability_reason: z.enum(['standard_rated', 'reverse_charge', 'not_collecting', 'zero_rated', 'customer_exempt']),
  taxable_amount: z.number().int().describe('What the tax was computed on, without the tax itself.'),
});

export const SessionPricingShape = {
  amount_subtotal: z.number().int().describe('The lines before discount (tax included when prices include it), minor units.'),
  total_details: z.object({
    amount_discount: z.number().int(),
    amount_tax: z.number().int().describe('Included in the lines when `inclusive`, else added to the total.'),
    breakdown: z.object({
      discounts: z.array(z.object({ amount: z.number().int(), discount: DiscountSchema })),
      taxes: z.array(TaxAmountSchema),
    }),
  }),
  discounts: z.array(DiscountSchema),
  customer_details: CustomerDetailsSchema,
};

export const InvoicePricingShape = {
  subtotal: z.number().int().describe('The lines before discount (tax included when prices include it), minor units.'),
  tax: z.number().int().nullable().describe('The tax of the invoice; null when none was calculated.'),
  total_discount_amounts: z.array(z.object({ amount: z.number().int(), discount: DiscountSchema })),
  total_tax_amounts: z.array(TaxAmountSchema),
  discounts: z.array(DiscountSchema),
  customer_details: CustomerDetailsSchema,
};

function taxAmounts(pricing: PricingRecord | null | undefined): Array<z.infer<typeof TaxAmountSchema>> {
  const tax = pricing?.tax;
  if (!pricing || !tax) return [];
  const inclusive = tax.behavior === 'inclusive';
  return [
    {
      amount: pricing.total_tax,
      inclusive,
      tax_rate: tax.tax_rate,
      percentage: tax.percentage,
      taxability_reason: tax.taxability_reason,
      taxable_amount: pricing.subtotal - pricing.total_discount - (inclusive ? pricing.total_tax : 0),
    },
  ];
}

const discountAmounts = (pricing: PricingRecord | null | undefined) =>
  pricing?.discount ? [{ amount: pricing.total_discount, discount: pricing.discount }] : [];

/** A session's pricing fields; without a pricing record the subtotal is the total and nothing was taken off or added. */
export function sessionPricing(pricing: PricingRecord | null | undefined, total: number) {
  return {
    amount_subtotal: pricing?.subtotal ?? total,
    total_details: {
      amount_discount: pricing?.total_discount ?? 0,
      amount_tax: pricing?.total_tax ?? 0,
      breakdown: { discounts: discountAmounts(pricing), taxes: taxAmounts(pricing) },
    },
    discounts: pricing?.discount ? [pricing.discount] : [],
    customer_details: pricing?.customer_details ?? null,
  };
}

export function invoicePricing(pricing: PricingRecord | null | undefined, total: number) {
  return {
    subtotal: pricing?.subtotal ?? total,
    tax: pricing?.tax ? pricing.total_tax : null,
    total_discount_amounts: discountAmounts(pricing),
    total_tax_amounts: taxAmounts(pricing),
    discounts: pricing?.discount ? [pricing.discount] : [],
    customer_details: pricing?.customer_details ?? null,
  };
}
