import { z } from 'zod';

const Unix = z.number().int().describe('Unix seconds.');
const PerCurrency = z.record(z.string(), z.number().int()).describe('Minor units per currency code.');

export const CustomerIdParams = z.object({ id: z.string().regex(/^cus_[A-Za-z0-9]{1,40}$/, 'must be a customer id (cus_…)') });

/** Stripe's Customer, with what the seller wants to know of them at a glance. */
export const CustomerSchema = z.object({
  id: z.string().describe('cus_…'),
  object: z.literal('customer'),
  email: z.string().nullable().describe('As first given at checkout; `redacted+<id>@invalid` after an erasure.'),
  name: z.string().nullable(),
  created: Unix.describe("Stripe's name for created_at."),
  created_at: Unix,
  livemode: z.boolean(),
  metadata: z.record(z.string(), z.string()),
  purchases_count: z.number().int().describe('Completed checkouts.'),
  invoices_count: z.number().int().describe("Invoices made out to them: their checkouts' and their subscriptions'."),
  total_spent: PerCurrency.describe('What their paid invoices came to, per currency.'),
  total_refunded: PerCurrency.describe('What was refunded of those payments, per currency.'),
  subscriptions: z.array(z.object({ id: z.string(), status: z.string() })),
  last_purchase_at: Unix.nullable().describe('Their latest completed checkout or paid invoice.'),
  redacted: z.boolean().describe('Erased on request: personal fields read as redacted.'),
});
export type Customer = z.infer<typeof CustomerSchema>;

export const CustomerInvoiceSchema = z.object({
  id: z.string(),
  number: z.number().int(),
  session_id: z.string().nullable().describe('The checkout it paid; null for a subscription renewal.'),
  subscription_id: z.string().nullable(),
  currency: z.string(),
  amount: z.number().int().describe('The amount due, minor units.'),
  created_at: Unix,
  paid_at: Unix.nullable(),
  amount_refunded: z.number().int(),
});
export const CustomerInvoicesSchema = z.object({ data: z.array(CustomerInvoiceSchema) });
export type CustomerInvoices = z.infer<typeof CustomerInvoicesSchema>;

export const CustomerHistoryEntrySchema = z.object({
  sequence: z.number().int(),
  position: z.number().int().describe('The event log position: the order of the entries.'),
  type: z.string().describe('The event type (CheckoutSessionCreated, InvoicePaid, SubscriptionCreated…).'),
  object: z.enum(['customer', 'checkout_session', 'invoice', 'subscription']),
  object_id: z.string(),
  occurred_at: Unix,
  actor: z.record(z.string(), z.unknown()),
});

export const CustomerHistorySchema = z.object({ customer_id: z.string(), data: z.array(CustomerHistoryEntrySchema) });
export type CustomerHistory = z.infer<typeof CustomerHistorySchema>;
