import type { Filter, ReadStore } from '../../platform/readStore/index.ts';
import type { z } from 'zod';
import { normalizeEmail } from './domain/customer.ts';
import type { Customer, CustomerInvoiceSchema } from './http/customerSchemas.ts';
import { CUSTOMER_LINKS, CUSTOMERS, type CustomerDoc, type LinkDoc } from './customerProjection.ts';

export type CustomerResource = Customer;

export function presentCustomer(doc: CustomerDoc): CustomerResource {
  return {
    id: doc.id,
    object: 'customer',
    email: doc.email,
    name: doc.name,
    created: doc.created_at,
    created_at: doc.created_at,
    livemode: doc.mode === 'live',
    metadata: {},
    purchases_count: doc.purchases_count,
    invoices_count: doc.invoices_count,
    total_spent: doc.total_spent,
    total_refunded: doc.total_refunded,
    subscriptions: doc.subscriptions,
    last_purchase_at: doc.last_purchase_at,
    redacted: doc.redacted_at !== null,
  };
}

/** A page of the organization's customers, newest first; `email` matches whatever its case or spaces. */
export async function listCustomers(
  readStore: ReadStore,
  organizationId: string,
  q: { email?: string | undefined; mode?: 'test' | 'live' | undefined; skip: number; limit: number },
): Promise<{ items: CustomerDoc[]; total: number }> {
  const filter: Filter = { organization_id: organizationId };
  if (q.email) filter.email_key = normalizeEmail(q.email);
  if (q.mode) filter.mode = q.mode;
  const [items, total] = await Promise.all([
    readStore.find<CustomerDoc>(CUSTOMERS, { filter, sort: [['created_at', -1], ['id', -1]], skip: q.skip, limit: q.limit }),
    readStore.count(CUSTOMERS, filter),
  ]);
  return { items, total };
}

export const findCustomer = (readStore: ReadStore, id: string) => readStore.get<CustomerDoc>(CUSTOMERS, id);

export type CustomerInvoice = z.infer<typeof CustomerInvoiceSchema>;

/** The invoices made out to the customer, newest first, with what was paid and refunded of each. */
export async function customerInvoices(readStore: ReadStore, customerId: string): Promise<CustomerInvoice[]> {
  const links = await readStore.find<LinkDoc>(CUSTOMER_LINKS, { filter: { customer_id: customerId, kind: 'invoice' }, sort: [['at', -1], ['id', -1]] });
  return links.map((l) => ({
    id: l.object_id,
    number: l.number ?? 0,
    session_id: l.session_id ?? null,
    subscription_id: l.subscription_id ?? null,
    currency: l.currency ?? '',
    amount: l.amount ?? 0,
    created_at: l.at,
    paid_at: l.paid_at ?? null,
    amount_refunded: l.refunded ?? 0,
  }));
}
