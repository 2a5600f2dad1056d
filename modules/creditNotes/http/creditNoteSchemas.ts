import { z } from 'zod';

/** A credit note: Stripe's CreditNote shape, money in minor units, times in Unix seconds. */
export const CreditNoteSchema = z.object({
  id: z.string().describe('cn_…'),
  object: z.literal('credit_note'),
  number: z.string().describe("CN-0001: the organization's own sequence, with no gap."),
  invoice: z.string().describe('The invoice it credits (in_…).'),
  invoice_number: z.number().int(),
  refund: z.string().describe('The refund it records (re_…).'),
  amount: z.number().int().describe('Minor units of `currency` refunded.'),
  currency: z.string(),
  reason: z.enum(['duplicate', 'fraudulent', 'order_change', 'product_unsatisfactory']).nullable(),
  customer: z.object({ email: z.string().nullable(), name: z.string().nullable() }).nullable(),
  mode: z.enum(['test', 'live']).nullable(),
  created: z.number().int(),
  subtotal: z.number().int().describe('The refund before discounts and before tax added on top.'),
  total_excluding_tax: z.number().int().describe('The refund less its tax.'),
  tax_amounts: z
    .array(
      z.object({
        amount: z.number().int(),
        inclusive: z.boolean(),
        tax_rate: z.object({ id: z.string(), display_name: z.string(), percentage: z.number(), country: z.string(), state: z.string().nullable(), jurisdiction: z.string().nullable() }).nullable(),
        percentage: z.number().describe('The rate applied, in percent (0 for a reverse charge).'),
        taxability_reason: z.enum(['standard_rated', 'reverse_charge', 'not_collecting', 'zero_rated', 'customer_exempt']),
        taxable_amount: z.number().int(),
      }),
    )
    .describe("The tax given back, in the invoice's proportion (largest remainder; never more than the invoice charged)."),
  discount_amounts: z.array(z.object({ amount: z.number().int(), discount: z.record(z.string(), z.unknown()) })).describe("The invoice's discount, in the proportion refunded."),
  lines: z
    .array(z.object({ description: z.string(), amount: z.number().int(), amount_excluding_tax: z.number().int(), discount_amount: z.number().int(), tax_amount: z.number().int() }))
    .describe("The invoice's lines for a refund of all of it at once; else one line, the refund."),
});
