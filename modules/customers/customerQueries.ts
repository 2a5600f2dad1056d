import type { Actor, EventStore, RecordedEvent } from '../../platform/eventStore/index.ts';
import type { Filter, ReadStore } from '../../platform/readStore/index.ts';
import { checkoutSessionStream, invoiceStream } from '../checkout/index.ts';
import { subscriptionStream } from '../subscriptions/index.ts';
import { customerStream, normalizeEmail } from './domain/customer.ts';
import { CUSTOMER_LINKS, CUSTOMERS, type CustomerDoc, type LinkDoc } from './customerProjection.ts';

export type CustomerResource = {
  id: string;
  object: 'customer';
  email: string | null;
  name: string | null;
  created: number;
  created_at: number;
  livemode: boolean;
  metadata: Record<string, string>;
  purchases_count: number;
  invoices_count: number;
  total_spent: Record<string, number>;
  total_refunded: Record<string, number>;
  subscriptions: Array<{ id: string; status: string }>;
  last_purchase_at: number | null;
  redacted: boolean;
};

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

export type CustomerInvoice = {
  id: string;
  number: number;
  session_id: string | null;
  subscription_id: string | null;
  currency: string;
  amount: number;
  created_at: number;
  paid_at: number | null;
  amount_refunded: number;
};

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

export type CustomerHistoryEntry = {
  /** 1-based, in log order. */
  sequence: number;
  position: number;
  type: string;
  object: 'customer' | 'checkout_session' | 'invoice' | 'subscription';
  object_id: string;
  occurred_at: number;
  actor: Actor;
};

const OBJECTS: Array<[prefix: string, object: CustomerHistoryEntry['object']]> = [
  ['customer-', 'customer'],
  ['checkout_session-', 'checkout_session'],
  ['invoice-', 'invoice'],
  ['subscription-', 'subscription'],
];

/**
 * Every event of the customer's sessions, invoices and subscriptions and of the customer itself,
 * in log order, read from the streams the read model links to them (the events are the record).
 * A session's events from before its purchase (created, started, declined) are theirs too.
 */
export async function customerHistory(store: Pick<EventStore, 'readStream'>, readStore: ReadStore, customerId: string): Promise<CustomerHistoryEntry[]> {
  const links = await readStore.find<LinkDoc>(CUSTOMER_LINKS, { filter: { customer_id: customerId } });
  const streams = new Set<string>([customerStream(customerId)]);
  const sessionIds: string[] = [];
  for (const link of links) {
    if (link.kind === 'session') {
      streams.add(checkoutSessionStream(link.object_id));
      sessionIds.push(link.object_id);
    } else if (link.kind === 'invoice') streams.add(invoiceStream(link.object_id));
    else streams.add(subscriptionStream(link.object_id));
  }
  const events: RecordedEvent[] = (await Promise.all([...streams].map((s) => store.readStream(s)))).flat();
  // A session's invoice is linked once paid; one made out to nobody yet is still the session's.
  for (const e of events) {
    if (e.type === 'CheckoutSessionStarted') {
      const stream = invoiceStream((e.data as { invoice_id: string }).invoice_id);
      if (!streams.has(stream)) {
        streams.add(stream);
        events.push(...(await store.readStream(stream)));
      }
    }
  }
  events.sort((a, b) => a.position - b.position);
  return events.map((e, i) => {
    const [prefix, object] = OBJECTS.find(([p]) => e.stream.startsWith(p)) ?? ['', 'customer'];
    return {
      sequence: i + 1,
      position: e.position,
      type: e.type,
      object,
      object_id: e.stream.slice(prefix.length),
      occurred_at: e.metadata.occurred_at,
      actor: e.metadata.actor,
    };
  });
}
