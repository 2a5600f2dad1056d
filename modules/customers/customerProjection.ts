import type { RecordedEvent } from '../../platform/eventStore/index.ts';
import type { Projection, ProjectionTx } from '../../platform/es/index.ts';
import type { CheckoutEvent } from '../checkout/index.ts';
import type { SubscriptionEvent } from '../subscriptions/index.ts';
import { FOLLOWED_SUBSCRIPTION_EVENTS } from './domain/followedEvents.ts';
import { normalizeEmail, redactedEmail, type CustomerEvent, type CustomerMode } from './domain/customer.ts';

export const CUSTOMERS = 'customers';
/** Which customer each session, invoice and subscription belongs to, with what an invoice adds to the totals. */
export const CUSTOMER_LINKS = 'customer_links';

export type CustomerDoc = {
  id: string;
  organization_id: string;
  mode: CustomerMode;
  /** Null until its CustomerCreated is applied, and after redaction. */
  email: string | null;
  /** The normalized email the search matches; null after redaction. */
  email_key: string | null;
  name: string | null;
  user_id: string | null;
  created_at: number;
  redacted_at: number | null;
  purchases_count: number;
  invoices_count: number;
  /** Minor units per currency: what paid invoices of theirs came to, and what was refunded of them. */
  total_spent: Record<string, number>;
  total_refunded: Record<string, number>;
  subscriptions: Array<{ id: string; status: string }>;
  last_purchase_at: number | null;
};

export type LinkDoc = {
  /** `session:<id>`, `invoice:<id>` or `subscription:<id>`. */
  id: string;
  kind: 'session' | 'invoice' | 'subscription';
  object_id: string;
  customer_id: string | null;
  organization_id: string;
  at: number;
  /** An invoice's: its number, origin, currency, what its payment counts, when paid, and refunded so far. */
  number?: number;
  session_id?: string | null;
  subscription_id?: string | null;
  currency?: string;
  amount?: number;
  paid_at?: number | null;
  refunded?: number;
};

const CHECKOUT_EVENTS = ['CheckoutSessionCompleted', 'InvoiceCreated', 'InvoicePaid', 'InvoiceRefunded'] as const satisfies ReadonlyArray<CheckoutEvent['type']>;

const add = (sums: Record<string, number>, currency: string, amount: number) => ({ ...sums, [currency]: (sums[currency] ?? 0) + amount });

async function customerOf(tx: ProjectionTx, id: string, organizationId: string, at: number): Promise<CustomerDoc> {
  const doc = await tx.get<CustomerDoc>(CUSTOMERS, id);
  if (doc) return doc;
  // A purchase applied before its customer's creation (no such order is written, but a rebuild
  // of a log copied by hand must not lose money): the creation fills the person in.
  return {
    id, organization_id: organizationId, mode: 'live', email: null, email_key: null, name: null, user_id: null, created_at: at, redacted_at: null,
    purchases_count: 0, invoices_count: 0, total_spent: {}, total_refunded: {}, subscriptions: [], last_purchase_at: null,
  };
}

const latest = (a: number | null, b: number) => (a === null || b > a ? b : a);

/** An invoice becomes the customer's: it counts once, with what it has been paid and refunded so far. */
function attachInvoice(customer: CustomerDoc, link: LinkDoc): CustomerDoc {
  let next = { ...customer, invoices_count: customer.invoices_count + 1 };
  if (link.paid_at != null && link.currency) {
    next = { ...next, total_spent: add(next.total_spent, link.currency, link.amount ?? 0), last_purchase_at: latest(next.last_purchase_at, link.paid_at) };
  }
  if ((link.refunded ?? 0) > 0 && link.currency) next = { ...next, total_refunded: add(next.total_refunded, link.currency, link.refunded!) };
  return next;
}

async function applyCustomer(event: CustomerEvent, recorded: RecordedEvent, tx: ProjectionTx): Promise<void> {
  const id = recorded.stream.slice('customer-'.length);
  if (event.type === 'CustomerCreated') {
    const d = event.data;
    const doc = await customerOf(tx, id, d.organization_id, d.created_at);
    // A redaction is final: a re-applied creation (rebuild) never brings the person back.
    if (doc.redacted_at !== null) return;
    tx.upsert(CUSTOMERS, {
      ...doc,
      organization_id: d.organization_id,
      mode: d.mode,
      email: d.email,
      email_key: d.email ? normalizeEmail(d.email) : null,
      name: d.name,
      user_id: d.user_id,
      created_at: d.created_at,
    } satisfies CustomerDoc);
    return;
  }
  const doc = await tx.get<CustomerDoc>(CUSTOMERS, id);
  if (!doc) return;
  if (event.type === 'CustomerRedacted') {
    tx.upsert(CUSTOMERS, { ...doc, email: redactedEmail(id), email_key: null, name: null, user_id: null, redacted_at: event.data.redacted_at } satisfies CustomerDoc);
    return;
  }
  // A purchase from before customers, as its completion would have counted it.
  const d = event.data;
  tx.upsert(CUSTOMER_LINKS, { id: `session:${d.session_id}`, kind: 'session', object_id: d.session_id, customer_id: id, organization_id: doc.organization_id, at: d.completed_at } satisfies LinkDoc);
  let customer: CustomerDoc = { ...doc, purchases_count: doc.purchases_count + 1, last_purchase_at: latest(doc.last_purchase_at, d.completed_at) };
  for (const invoiceId of [d.invoice_id, ...(d.subscription?.invoice_ids ?? [])]) {
    const link = await tx.get<LinkDoc>(CUSTOMER_LINKS, `invoice:${invoiceId}`);
    if (!link || link.customer_id !== null) continue;
    customer = attachInvoice(customer, link);
    tx.upsert(CUSTOMER_LINKS, { ...link, customer_id: id });
  }
  if (d.subscription) {
    const sub = d.subscription;
    tx.upsert(CUSTOMER_LINKS, { id: `subscription:${sub.id}`, kind: 'subscription', object_id: sub.id, customer_id: id, organization_id: doc.organization_id, at: d.completed_at } satisfies LinkDoc);
    customer = { ...customer, subscriptions: [...customer.subscriptions.filter((s) => s.id !== sub.id), { id: sub.id, status: sub.status }] };
  }
  tx.upsert(CUSTOMERS, customer);
}

async function applyCheckout(event: CheckoutEvent, recorded: RecordedEvent, tx: ProjectionTx): Promise<void> {
  const organizationId = recorded.metadata.organization_id ?? '';
  switch (event.type) {
    case 'CheckoutSessionCompleted': {
      const d = event.data;
      if (!d.customer_id) return;
      const sessionId = recorded.stream.slice('checkout_session-'.length);
      tx.upsert(CUSTOMER_LINKS, { id: `session:${sessionId}`, kind: 'session', object_id: sessionId, customer_id: d.customer_id, organization_id: organizationId, at: d.completed_at } satisfies LinkDoc);
      let customer = await customerOf(tx, d.customer_id, organizationId, d.completed_at);
      customer = { ...customer, purchases_count: customer.purchases_count + 1, last_purchase_at: latest(customer.last_purchase_at, d.completed_at) };
      const link = await tx.get<LinkDoc>(CUSTOMER_LINKS, `invoice:${d.invoice_id}`);
      if (link && link.customer_id === null) {
        customer = attachInvoice(customer, link);
        tx.upsert(CUSTOMER_LINKS, { ...link, customer_id: d.customer_id });
      }
      tx.upsert(CUSTOMERS, customer);
      return;
    }
    case 'InvoiceCreated': {
      const d = event.data;
      const link: LinkDoc = {
        id: `invoice:${d.id}`, kind: 'invoice', object_id: d.id, customer_id: null, organization_id: d.organization_id, at: d.created_at,
        number: d.number, session_id: d.session_id, subscription_id: d.subscription_id ?? null, currency: d.currency, amount: d.amount_due ?? d.total, paid_at: null, refunded: 0,
      };
      // A renewal of a subscription made before customers is its backfilled customer's.
      const customerId = d.customer_id ?? (d.subscription_id ? ((await tx.get<LinkDoc>(CUSTOMER_LINKS, `subscription:${d.subscription_id}`))?.customer_id ?? null) : null);
      if (customerId) {
        tx.upsert(CUSTOMERS, attachInvoice(await customerOf(tx, customerId, d.organization_id, d.created_at), link));
        link.customer_id = customerId;
      }
      tx.upsert(CUSTOMER_LINKS, link);
      return;
    }
    case 'InvoicePaid': {
      const invoiceId = recorded.stream.slice('invoice-'.length);
      const link = await tx.get<LinkDoc>(CUSTOMER_LINKS, `invoice:${invoiceId}`);
      if (!link || link.paid_at != null) return;
      const paid: LinkDoc = { ...link, paid_at: event.data.paid_at };
      const customerId = link.customer_id ?? event.data.customer_id ?? null;
      if (customerId !== null) {
        const customer = await customerOf(tx, customerId, link.organization_id, event.data.paid_at);
        if (link.customer_id === null) {
          tx.upsert(CUSTOMERS, attachInvoice(customer, paid));
        } else {
          tx.upsert(CUSTOMERS, { ...customer, total_spent: add(customer.total_spent, link.currency!, link.amount ?? 0), last_purchase_at: latest(customer.last_purchase_at, event.data.paid_at) });
        }
      }
      tx.upsert(CUSTOMER_LINKS, { ...paid, customer_id: customerId });
      return;
    }
    case 'InvoiceRefunded': {
      const invoiceId = recorded.stream.slice('invoice-'.length);
      const link = await tx.get<LinkDoc>(CUSTOMER_LINKS, `invoice:${invoiceId}`);
      if (!link) return;
      // Each event carries the running total: only what it adds counts, so a replay adds nothing.
      const delta = event.data.amount_refunded - (link.refunded ?? 0);
      if (delta <= 0) return;
      tx.upsert(CUSTOMER_LINKS, { ...link, refunded: event.data.amount_refunded });
      if (link.customer_id === null) return;
      const customer = await customerOf(tx, link.customer_id, link.organization_id, event.data.refunded_at);
      tx.upsert(CUSTOMERS, { ...customer, total_refunded: add(customer.total_refunded, link.currency!, delta) });
      return;
    }
    default:
      return;
  }
}

async function applySubscription(event: SubscriptionEvent, recorded: RecordedEvent, tx: ProjectionTx): Promise<void> {
  const subscriptionId = recorded.stream.slice('subscription-'.length);
  const status = (event.data as { status?: string }).status;
  if (event.type === 'SubscriptionCreated') {
    const d = event.data;
    if (!d.customer_id) return;
    tx.upsert(CUSTOMER_LINKS, { id: `subscription:${subscriptionId}`, kind: 'subscription', object_id: subscriptionId, customer_id: d.customer_id, organization_id: d.organization_id, at: d.created_at } satisfies LinkDoc);
    const customer = await customerOf(tx, d.customer_id, d.organization_id, d.created_at);
    const others = customer.subscriptions.filter((s) => s.id !== subscriptionId);
    tx.upsert(CUSTOMERS, { ...customer, subscriptions: [...others, { id: subscriptionId, status: d.status }] });
    return;
  }
  if (!status) return;
  const link = await tx.get<LinkDoc>(CUSTOMER_LINKS, `subscription:${subscriptionId}`);
  if (!link?.customer_id) return;
  const customer = await tx.get<CustomerDoc>(CUSTOMERS, link.customer_id);
  if (!customer) return;
  const current = customer.subscriptions.find((s) => s.id === subscriptionId);
  if (current?.status === status) return;
  tx.upsert(CUSTOMERS, { ...customer, subscriptions: customer.subscriptions.map((s) => (s.id === subscriptionId ? { ...s, status } : s)) });
}

/**
 * Customers with their counts and sums, and the links from sessions, invoices and subscriptions
 * to them. Money counts from the invoices: a paid invoice adds its amount due to `total_spent` in
 * its currency, its refunds (the running `amount_refunded`) to `total_refunded`. A payment
 * returned because the invoice could not take it (InvoiceUnowedPaymentRefunded) bought nothing and
 * counts in neither.
 */
export const customerProjection: Projection = {
  name: 'customers',
  collections: [CUSTOMERS, CUSTOMER_LINKS],
  indexes: [
    { collection: CUSTOMERS, fields: ['organization_id', 'created_at'] },
    { collection: CUSTOMERS, fields: ['organization_id', 'email_key'] },
    { collection: CUSTOMER_LINKS, fields: ['customer_id'] },
  ],
  eventTypes: ['CustomerCreated', 'CustomerRedacted', 'CustomerPurchaseLinked', ...CHECKOUT_EVENTS, ...FOLLOWED_SUBSCRIPTION_EVENTS],
  async apply(recorded, tx) {
    if (recorded.stream.startsWith('customer-')) return applyCustomer(recorded as unknown as CustomerEvent, recorded, tx);
    if (recorded.stream.startsWith('subscription-')) return applySubscription(recorded as unknown as SubscriptionEvent, recorded, tx);
    if (recorded.stream.startsWith('checkout_session-') || recorded.stream.startsWith('invoice-')) return applyCheckout(recorded as unknown as CheckoutEvent, recorded, tx);
  },
};
