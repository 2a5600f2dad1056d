import type { Actor, EventStore } from '../../platform/eventStore/index.ts';
import type { Filter, ReadStore } from '../../platform/readStore/index.ts';
import type { InvoiceEvent } from '../checkout/index.ts';
import { subscriptionEventTime } from './domain/eventTime.ts';
import { metricsAsOf, type SubscriptionMetrics } from './domain/metrics.ts';
import { statementAsOf, type Statement } from './domain/statement.ts';
import { invoiceStream } from './domain/invoiceView.ts';
import { subscriptionDecider, subscriptionStream, type SubscriptionEvent, type SubscriptionState } from './domain/subscription.ts';
import { INVOICES, SUBSCRIPTION_TIMELINES, SUBSCRIPTIONS, type InvoiceDoc, type SubscriptionDoc, type TimelineDoc } from './subscriptionProjection.ts';
import { presentSubscription, type SubscriptionResource } from './resources.ts';
import { timeOnClock } from './testClockCommands.ts';

/** What the seller and integrators read of subscriptions: the read models for lists, the log for history and statements. */

type Reader = Pick<EventStore, 'readStream'>;

/** A page of documents, newest first (ties by id). */
async function pageOf<T extends { id: string }>(readStore: ReadStore, collection: string, filter: Filter, skip: number, limit: number): Promise<{ items: T[]; total: number }> {
  const [items, total] = await Promise.all([
    readStore.find<T & { [k: string]: unknown }>(collection, { filter, sort: [['created_at', -1], ['id', -1]], skip, limit }),
    readStore.count(collection, filter),
  ]);
  return { items, total };
}

export function listSubscriptions(readStore: ReadStore, organizationId: string, q: { status?: string | undefined; customerEmail?: string | undefined; skip: number; limit: number }) {
  const filter: Filter = { organization_id: organizationId };
  if (q.status) filter.status = q.status;
  if (q.customerEmail) filter['customer.email'] = q.customerEmail;
  return pageOf<SubscriptionDoc>(readStore, SUBSCRIPTIONS, filter, q.skip, q.limit);
}

export function listInvoices(readStore: ReadStore, organizationId: string, q: { subscription?: string | undefined; status?: string | undefined; skip: number; limit: number }) {
  const filter: Filter = { organization_id: organizationId };
  if (q.subscription) filter.subscription = q.subscription;
  if (q.status === 'refunded' || q.status === 'partially_refunded') filter.refund_status = q.status;
  else if (q.status) filter.status = q.status;
  return pageOf<InvoiceDoc>(readStore, INVOICES, filter, q.skip, q.limit);
}

/** The answer of a GET: the document without what only the projection keeps. */
export function subscriptionOf(doc: SubscriptionDoc): SubscriptionResource {
  const { organization_id: _o, updated_at: _u, state: _s, ...resource } = doc;
  // A document of the read model's previous version lacks it until the rebuild takes over.
  return { ...resource, discount: resource.discount ?? null };
}

export type SubscriptionLog = { organizationId: string | null; events: SubscriptionEvent[]; recorded: Awaited<ReturnType<EventStore['readStream']>> };

export async function readSubscription(store: Reader, id: string): Promise<SubscriptionLog> {
  const recorded = await store.readStream(subscriptionStream(id));
  const events = recorded as unknown as SubscriptionEvent[];
  const first = events[0];
  return { organizationId: first?.type === 'SubscriptionCreated' ? first.data.organization_id : null, events, recorded };
}

export type SubscriptionHistoryEntry = {
  sequence: number;
  type: string;
  /** When it happened in the subscription's time (its test clock's, if any). */
  at: number;
  /** When it was recorded. */
  occurred_at: number;
  actor: Actor;
  data: Record<string, unknown>;
  state: SubscriptionResource;
};

/** Every event of the subscription with the subscription as it stood after it. */
export function subscriptionHistory(log: SubscriptionLog): SubscriptionHistoryEntry[] {
  const entries: SubscriptionHistoryEntry[] = [];
  let state: SubscriptionState = subscriptionDecider.initialState();
  log.events.forEach((event, i) => {
    state = subscriptionDecider.evolve(state, event);
    if (state.status === 'none') return;
    const recorded = log.recorded[i]!;
    entries.push({
      sequence: recorded.revision + 1,
      type: event.type,
      at: subscriptionEventTime(event),
      occurred_at: recorded.metadata.occurred_at,
      actor: recorded.metadata.actor,
      data: event.data as unknown as Record<string, unknown>,
      state: presentSubscription(state, recorded.revision + 1),
    });
  });
  return entries;
}

/** The subscription's own time: its test clock's frozen time when it lives on one, else the wall clock. */
export async function subscriptionTime(store: Reader, log: SubscriptionLog, wallClock: number): Promise<number> {
  const first = log.events[0];
  return timeOnClock(store, first?.type === 'SubscriptionCreated' ? first.data.test_clock : null, wallClock);
}

/** The statement as of `asOf`, from the subscription's stream and its invoices' streams. */
export async function subscriptionStatement(store: Reader, id: string, log: SubscriptionLog, asOf: number): Promise<Statement> {
  const ids = new Set<string>();
  for (const e of log.events) {
    if (e.type === 'SubscriptionCreated' && e.data.first_invoice) ids.add(e.data.first_invoice.id);
    if (e.type === 'SubscriptionInvoiceCreated') ids.add(e.data.invoice_id);
  }
  const invoices = new Map<string, InvoiceEvent[]>();
  await Promise.all([...ids].map(async (invoiceId) => invoices.set(invoiceId, (await store.readStream(invoiceStream(invoiceId))) as unknown as InvoiceEvent[])));
  return statementAsOf(id, log.events, invoices, asOf);
}

export async function subscriptionMetrics(readStore: ReadStore, organizationId: string, mode: 'test' | 'live', asOf: number): Promise<SubscriptionMetrics> {
  const docs = await readStore.find<TimelineDoc>(SUBSCRIPTION_TIMELINES, { filter: { organization_id: organizationId, mode, created_at: { $lte: asOf } } });
  return metricsAsOf(docs, asOf);
}
