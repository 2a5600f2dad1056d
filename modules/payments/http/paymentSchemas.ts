import { z } from 'zod';

// The answers of the payment management routes (the dashboard infers its types from these).

/** Never a secret: the key masked to its prefix and last four, whether one is connected, and where Stripe should send events. */
export const StripeAccount = z.object({
  connected: z.boolean(),
  key_type: z.enum(['secret', 'restricted']).optional(),
  mode: z.enum(['test', 'live']).optional(),
  secret_key: z.string().optional().describe('Masked: sk_live_••••abcd.'),
  publishable_key: z.string().optional(),
  connected_at: z.number().int().optional(),
  webhook_url: z.string().describe("The endpoint to add in Stripe's dashboard (Developers → Webhooks) for this organization."),
});

export const Refund = z.object({
  invoice_id: z.string(),
  refund_id: z.string(),
  amount: z.number().int().describe('Refunded by this request, minor units.'),
  amount_refunded: z.number().int().describe('Refunded of the invoice in all, minor units.'),
  fully_refunded: z.boolean(),
  currency: z.string(),
  invoice_total: z.number().int(),
  refund_status: z.enum(['refunded', 'partially_refunded']).nullable(),
  credit_note: z.object({ id: z.string(), number: z.string() }).nullable().describe('The credit note this refund made (GET /api/credit_notes/{id}).'),
});

export const RefundParams = z.object({ id: z.string().regex(/^in_[A-Za-z0-9_-]{1,64}$/, 'must be an invoice id (in_…)') });

export const RefundBody = z
  .object({
    amount: z.number().int().min(1).max(99_999_999).optional().describe('Minor units; all that is left when absent.'),
    reason: z.enum(['duplicate', 'fraudulent', 'order_change', 'product_unsatisfactory']).optional().describe("Printed on the refund's credit note."),
  })
  .nullish();
