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
});
