import { z } from 'zod';
import type { SessionView } from './domain/sessionView.ts';
import { InvoiceSchema, OfferRefSchema, presentSession, SessionSchema } from './http/checkoutSchemas.ts';

/**
 * A session as the seller's list shows it, and as event webhooks carry it: with the buyer's email
 * and name and the invoice number at the top, so a table of sales needs no history read per row.
 */
export const SessionResourceSchema = SessionSchema.extend({
  created_at: z.number().int(),
  offer: OfferRefSchema,
  customer_email: z.string().nullable().describe("The buyer's email: as typed at checkout (start or pay), else as the session was created with; null when none is known yet."),
  customer_name: z.string().nullable(),
  invoice_number: z.number().int().nullable().describe("The invoice's number once the buyer started the checkout; null before."),
  customer_id: z.string().nullable().describe('The customer (`cus_…`) the purchase belongs to, once paid; null before, or without an email.'),
  invoice: InvoiceSchema.nullable().describe('Created when the buyer starts the checkout; null before.'),
});

export type SessionResource = z.infer<typeof SessionResourceSchema>;

export function presentSessionResource(view: SessionView, now: number): SessionResource {
  const buyer = view.invoice?.customer ?? view.customer;
  return {
    ...presentSession(view, now),
    created_at: view.created_at,
    offer: { id: view.offer.id, slug: view.offer.slug, name: view.offer.name },
    customer_email: buyer?.email ?? view.customer?.email ?? null,
    customer_name: buyer?.name ?? view.customer?.name ?? null,
    invoice_number: view.invoice?.number ?? null,
    customer_id: view.customer_id ?? null,
  };
}
