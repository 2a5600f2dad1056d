import type { RecordedEvent } from '../../platform/eventStore/index.ts';
import type { Projection, ProjectionTx } from '../../platform/es/index.ts';
import type { InvoiceEvent } from '../checkout/index.ts';
import { subscriptionEventTime } from './domain/eventTime.ts';
import { evolveInvoiceView, type InvoiceView } from './domain/invoiceView.ts';
import { extendTimeline, monthlyAmount, type TimelinePoint } from './domain/metrics.ts';
import { nextDueAt } from './domain/dueActions.ts';
import { SUBSCRIPTION_EVENT_TYPES, subscriptionDecider, type Active, type SubscriptionEvent, type SubscriptionState } from './domain/subscription.ts';
import { presentSubscription, type SubscriptionResource } from './resources.ts';

export const SUBSCRIPTIONS = 'subscriptions';
/** When each subscription next has something due, on which clock (`''`: real time): what billing passes over. */
export const SUBSCRIPTION_SCHEDULE = 'subscription_schedule';
export type ScheduleDoc = { id: string; organization_id: string; clock: string; due_at: number | null };
/** Every invoice of the organization: checkouts' and subscriptions'. */
export const INVOICES = 'invoices';
/** Per subscription, its status and monthly amount after each change: what the metrics read. */
export const SUBSCRIPTION_TIMELINES = 'subscription_timelines';

export type SubscriptionDoc = SubscriptionResource & {
  organization_id: string;
  updated_at: number;
  /** The decider's state after the last event: the next event evolves it. */
  state: Active;
};

export type InvoiceDoc = InvoiceView & { updated_at: number };

export type TimelineDoc = { id: string; organization_id: string; mode: 'test' | 'live'; currency: string; created_at: number; timeline: TimelinePoint[] };

const INVOICE_EVENTS = [
  'InvoiceCreated',
  'InvoiceRepriced',
  'InvoiceCustomerChanged',
  'InvoicePaid',
  'InvoiceVoided',
  'InvoicePaymentFailed',
  'InvoiceMarkedUncollectible',
  'InvoiceRefunded',
] as const satisfies ReadonlyArray<InvoiceEvent['type']>;

const streamId = (stream: string) => stream.slice(stream.indexOf('-') + 1);

async function applySubscription(recorded: RecordedEvent, tx: ProjectionTx): Promise<void> {
  const event = recorded as unknown as SubscriptionEvent;
  const id = streamId(recorded.stream);
  const current = event.type === 'SubscriptionCreated' ? null : await tx.get<SubscriptionDoc>(SUBSCRIPTIONS, id);
  const before: SubscriptionState = current?.state ?? subscriptionDecider.initialState();
  const state = subscriptionDecider.evolve(before, event);
  if (state.status === 'none') return;
  const at = subscriptionEventTime(event);
  const doc: SubscriptionDoc = { ...presentSubscription(state, recorded.revision + 1), organization_id: state.sub.organization_id, updated_at: at, state };
  tx.upsert(SUBSCRIPTIONS, doc);
  // The billing process's index: small documents, found by clock and due time.
  tx.upsert(SUBSCRIPTION_SCHEDULE, { id, organization_id: state.sub.organization_id, clock: state.sub.test_clock ?? '', due_at: nextDueAt(state) } satisfies ScheduleDoc);

  const timeline = event.type === 'SubscriptionCreated' ? null : await tx.get<TimelineDoc>(SUBSCRIPTION_TIMELINES, id);
  const point: TimelinePoint = { at, status: state.status, monthly: monthlyAmount(state.amount, state.plan.invoice_interval) };
  const points = extendTimeline(timeline?.timeline ?? [], point);
  if (!timeline || points.length !== timeline.timeline.length) {
    tx.upsert(SUBSCRIPTION_TIMELINES, { id, organization_id: state.sub.organization_id, mode: state.sub.mode, currency: state.sub.currency, created_at: state.sub.created_at, timeline: points });
  }
  // The checkout's invoice was made before the subscription: it learns which subscription it
  // started, and the first period it paid.
  if (event.type === 'SubscriptionCreated' && event.data.first_invoice) {
    const invoice = await tx.get<InvoiceDoc>(INVOICES, event.data.first_invoice.id);
    const period = invoice?.period ?? { start: event.data.current_period_start, end: event.data.current_period_end };
    if (invoice) tx.upsert(INVOICES, { ...invoice, subscription: id, billing_reason: 'subscription_create', period });
  }
}

async function applyInvoice(recorded: RecordedEvent, tx: ProjectionTx): Promise<void> {
  const event = recorded as unknown as InvoiceEvent;
  const id = streamId(recorded.stream);
  const current = event.type === 'InvoiceCreated' ? null : await tx.get<InvoiceDoc>(INVOICES, id);
  const view = evolveInvoiceView(current, event);
  if (!view) return;
  tx.upsert(INVOICES, { ...view, updated_at: recorded.metadata.occurred_at });
}

/** Subscriptions as their GET shows them, every invoice as its GET shows it, and the metrics' timelines. */
export const subscriptionProjection: Projection = {
  name: 'subscriptions',
  version: 3,
  collections: [SUBSCRIPTIONS, INVOICES, SUBSCRIPTION_TIMELINES, SUBSCRIPTION_SCHEDULE],
  indexes: [
    { collection: SUBSCRIPTIONS, fields: ['organization_id', 'created_at'] },
    { collection: SUBSCRIPTIONS, fields: ['organization_id', 'status', 'created_at'] },
    { collection: SUBSCRIPTIONS, fields: ['organization_id', 'customer.email', 'created_at'] },
    // A product's subscriptions: what a benefit added to it is granted to.
    { collection: SUBSCRIPTIONS, fields: ['organization_id', 'plan.product_id'] },
    { collection: INVOICES, fields: ['organization_id', 'created_at'] },
    { collection: INVOICES, fields: ['organization_id', 'subscription', 'created_at'] },
    { collection: INVOICES, fields: ['organization_id', 'status', 'created_at'] },
    { collection: INVOICES, fields: ['organization_id', 'refund_status', 'created_at'] },
    { collection: SUBSCRIPTION_TIMELINES, fields: ['organization_id', 'mode', 'created_at'] },
    { collection: SUBSCRIPTION_SCHEDULE, fields: ['clock', 'due_at'] },
  ],
  eventTypes: [...SUBSCRIPTION_EVENT_TYPES, ...INVOICE_EVENTS],
  async apply(recorded, tx) {
    if (recorded.stream.startsWith('subscription-')) await applySubscription(recorded, tx);
    else if (recorded.stream.startsWith('invoice-')) await applyInvoice(recorded, tx);
  },
};
