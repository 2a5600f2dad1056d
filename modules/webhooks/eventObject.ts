import { automationProjection, receptionsIn, Workflow, type WorkflowDoc, WORKFLOWS } from '../automation/index.ts';
import { CATALOG_PRODUCTS, catalogProjection, type ProductDoc, productResource } from '../catalog/index.ts';
import { type CheckoutEvent, checkoutProjection, checkoutSessionStream, evolveSessionView, invoicePricing, invoiceStream, type OfferDoc, OFFERS, presentSessionResource, type SessionView, viewAt } from '../checkout/index.ts';
import { benefitGrantObject } from '../benefits/index.ts';
import { couponRedemptionObject } from '../discounts/index.ts';
import type { EventStore, RecordedEvent } from '../../platform/eventStore/index.ts';
import type { Projection, ProjectionTx } from '../../platform/es/index.ts';
import type { Doc } from '../../platform/readStore/index.ts';
import { encodeRouteKey } from '../../platform/lib/index.ts';
import type { WebhookEventType } from './domain/eventTypes.ts';
import { subscriptionEventObject, subscriptionInvoiceObject } from './subscriptionObjects.ts';
import { streamId as tail } from './webhookProjection.ts';

type Reader = Pick<EventStore, 'readStream' | 'readAll'>;

/** The resource an event is about, as it stood right after that event, and who owns it. */
export type EventObject = { object: Record<string, unknown>; organizationId: string | null };

const upTo = (events: RecordedEvent[], position: number) => events.filter((e) => e.position <= position);

/** A session folded from its own stream and its invoice's (as the history route does), up to `position`. */
async function sessionAt(store: Reader, sessionId: string, position: number): Promise<SessionView | null> {
  const sessionEvents = upTo(await store.readStream(checkoutSessionStream(sessionId)), position);
  const started = sessionEvents.find((e) => e.type === 'CheckoutSessionStarted');
  const invoiceEvents = started ? upTo(await store.readStream(invoiceStream((started.data as { invoice_id: string }).invoice_id)), position) : [];
  let view: SessionView | null = null;
  for (const e of [...sessionEvents, ...invoiceEvents].sort((a, b) => a.position - b.position)) view = evolveSessionView(view, e as unknown as CheckoutEvent);
  return view;
}

/**
 * `data.object` of the webhook for `event`, from the resource's streams folded up to the event
 * (never a read model); null when it cannot be read: unannounced rather than half-described.
 */
export async function eventObject(store: Reader, type: WebhookEventType, event: RecordedEvent): Promise<EventObject | null> {
  const at = event.metadata.occurred_at;
  switch (type) {
    case 'checkout.session.completed':
    case 'checkout.session.expired': {
      const view = await sessionAt(store, tail(event.stream), event.position);
      return view && { object: presentSessionResource(viewAt(view, at), at), organizationId: view.organization_id };
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
    case 'customer.subscription.deleted':
    case 'customer.subscription.trial_will_end':
    case 'invoice.upcoming':
      return subscriptionEventObject(store, event);
    case 'invoice.created':
    case 'invoice.payment_failed':
      return subscriptionInvoiceObject(store, event);
    case 'invoice.paid':
    case 'invoice.voided':
    case 'invoice.refunded':
    case 'invoice.disputed': {
      const invoiceEvents = await store.readStream(event.stream);
      const created = invoiceEvents.find((e) => e.type === 'InvoiceCreated');
      if (!created) return null;
      // A subscription's renewal or change has no session: it is shown as its invoice route shows it.
      if ((created.data as { session_id: string | null }).session_id === null) {
        const built = await subscriptionInvoiceObject(store, event);
        return built && { ...built, object: { ...built.object, ...announced(type, event) } };
      }
      const view = await sessionAt(store, (created.data as { session_id: string }).session_id, event.position);
      if (!view?.invoice) return null;
      const { id, number, status, total, currency, customer, pricing } = view.invoice;
      const paid = invoiceEvents.find((e) => e.type === 'InvoicePaid' && e.position <= event.position);
      return {
        object: {
          id,
          number,
          status,
          total,
          currency,
          customer: customer ? { email: customer.email, name: customer.name } : null,
          session_id: view.id,
          offer: { id: view.offer.id, slug: view.offer.slug, name: view.offer.name },
          mode: view.mode,
          payment: paid ? (paid.data as { card: { brand: string; last4: string } }).card : null,
          ...invoicePricing(pricing, total),
          ...announced(type, event),
        },
        organizationId: view.organization_id,
      };
    }
    case 'promo.participant.enrolled': {
      const d = event.data as { email: string; reference: string | null; enrolled_at: number; workflow_id: number | null };
      return {
        object: { promo: tail(event.stream), email: d.email, reference: d.reference, enrolled_at: d.enrolled_at, workflow_id: d.workflow_id ?? null },
        organizationId: event.metadata.organization_id,
      };
    }
    case 'product.published':
    case 'product.archived': {
      const docs = await foldDocs(catalogProjection, upTo(await store.readStream(event.stream), event.position));
      const product = docs.get(CATALOG_PRODUCTS)?.get(tail(event.stream)) as ProductDoc | undefined;
      return product ? { object: productResource(product), organizationId: product.organization_id } : null;
    }
    case 'offer.published': {
      const docs = await foldDocs(checkoutProjection, upTo(await store.readStream(event.stream), event.position));
      const offer = docs.get(OFFERS)?.get(tail(event.stream)) as OfferDoc | undefined;
      if (!offer) return null;
      const { route_key, uuid, slug, name, status, price, currency, plan, created_at, updated_at, published_at, archived_at } = offer;
      return {
        object: { id: route_key || encodeRouteKey(offer.number), uuid, slug, name, status, price, currency, plan, created_at, updated_at, published_at, archived_at },
        organizationId: offer.organization_id,
      };
    }
    case 'workflow.failed': {
      const { workflow_id: workflowId, reception_stream: receptionStream } = event.data as { workflow_id: number; reception_stream?: string };
      const start = await workflowStart(store, workflowId, receptionStream);
      if (!start) return null;
      const docs = await foldDocs(automationProjection, [start, ...upTo(await store.readStream(event.stream), event.position)]);
      const doc = docs.get(WORKFLOWS)?.get(String(workflowId)) as WorkflowDoc | undefined;
      return doc ? { object: Workflow.parse(doc), organizationId: doc.organization_id } : null;
    }
    case 'coupon.redeemed':
      return couponRedemptionObject(store, event);
    case 'benefit.granted':
    case 'benefit.revoked':
      return benefitGrantObject(store, event);
  }
}

/** What a refund or dispute event adds to the invoice it is about. */
function announced(type: WebhookEventType, event: RecordedEvent): Record<string, unknown> {
  if (type === 'invoice.refunded') {
    const d = event.data as { refund_id: string; charge_id: string; amount: number; amount_refunded: number; fully_refunded: boolean };
    return { refund: { id: d.refund_id, charge_id: d.charge_id, amount: d.amount, amount_refunded: d.amount_refunded, fully_refunded: d.fully_refunded } };
  }
  if (type === 'invoice.disputed') {
    const d = event.data as { dispute_id: string; charge_id: string; amount: number; currency: string; reason: string; status: string };
    return { dispute: { id: d.dispute_id, charge_id: d.charge_id, amount: d.amount, currency: d.currency, reason: d.reason, status: d.status } };
  }
  return {};
}

/**
 * The event that started a workflow: its reception, on the stream the failure names; or, for an
 * older workflow, the WorkflowStarted at the log position that is its id.
 */
async function workflowStart(store: Reader, workflowId: number, receptionStream: string | undefined): Promise<RecordedEvent | undefined> {
  if (receptionStream) {
    const events = await store.readStream(receptionStream);
    const reception = (await receptionsIn(events)).find((r) => r.outcome.status === 'started' && r.outcome.workflow_id === workflowId);
    return reception && events.find((e) => e.position === reception.position && e.type === 'WebhookReceived');
  }
  const [start] = await store.readAll({ after: null, from: workflowId, limit: 1, streamPrefixes: ['automation_webhook-'] });
  return start && start.position === workflowId && start.type === 'WorkflowStarted' ? start : undefined;
}

/** A projection's own `apply` run in memory: the documents as of the last event, not as a read model that lags or moved on has them. */
async function foldDocs(projection: Projection, events: readonly RecordedEvent[]): Promise<Map<string, Map<string, Doc>>> {
  const collections = new Map<string, Map<string, Doc>>();
  const of = (name: string) => {
    let c = collections.get(name);
    if (!c) collections.set(name, (c = new Map()));
    return c;
  };
  const tx: ProjectionTx = {
    get: async <T extends Doc>(collection: string, id: string) => (of(collection).get(id) as T | undefined) ?? null,
    upsert: (collection, doc) => void of(collection).set(doc.id, structuredClone(doc)),
    delete: (collection, id) => void of(collection).delete(id),
  };
  for (const event of events) if (projection.eventTypes.includes(event.type)) await projection.apply(event, tx);
  return collections;
}
