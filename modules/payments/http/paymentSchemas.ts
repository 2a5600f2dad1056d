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
  amount: z.number().int(),
  amount_refunded: z.number().int(),
  fully_refunded: z.boolean(),
  currency: z.string(),
});
