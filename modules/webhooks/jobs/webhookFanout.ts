import type { Services } from '../../../platform/runtime/index.ts';
import { handleCommand } from '../../../platform/es/index.ts';
import type { RecordedEvent } from '../../../platform/eventStore/index.ts';
import { PUBLIC_TYPE_OF, type WebhookEventType } from '../domain/eventTypes.ts';
import { deliveryId, webhookDeliveryDecider, webhookDeliveryStream, type DeliveryCreation } from '../domain/webhookDelivery.ts';
import { WEBHOOK_ENDPOINTS, type EndpointDoc } from '../webhookProjection.ts';
import { eventObject } from '../eventObject.ts';
import { orderKey } from './inFlight.ts';
import { webhookContext, webhooksApplied } from './webhookDispatch.ts';

/** A webhook's body, fixed when its delivery is created: `{id, type, created, organization_id, data: {object}}`. */
export const webhookBody = (event: RecordedEvent, type: WebhookEventType, organizationId: string, object: Record<string, unknown>): string =>
  JSON.stringify({ id: event.id, type, created: event.metadata.occurred_at, organization_id: organizationId, data: { object } });

type Planned = DeliveryCreation & { correlation: string };

/** Streams folded only up to the event announced: a batch holding one whole need not read it again. */
const FOLDED_TO_THE_EVENT = ['checkout_session-', 'invoice-'];

function batchReader(store: Services['store'], events: readonly RecordedEvent[]): Pick<Services['store'], 'readStream' | 'readAll'> {
  const whole = new Map<string, RecordedEvent[]>();
  for (const e of events) {
    if (!FOLDED_TO_THE_EVENT.some((p) => e.stream.startsWith(p))) continue;
    const held = whole.get(e.stream);
    if (held && held.length === e.revision) held.push(e);
    else if (!held && e.revision === 0) whole.set(e.stream, [e]);
  }
  return {
    readStream: async (stream) => whole.get(stream)?.slice() ?? store.readStream(stream),
    readAll: (options) => store.readAll(options),
  };
}

/**
 * Records one pending delivery per announced event and subscribed endpoint, its body fixed now.
 * Its id is (endpoint, event), so a batch handled again after a crash records nothing twice.
 * Resolves with the log position of the last record (null when none was made).
 */
export async function fanOut(services: Services, events: readonly RecordedEvent[]): Promise<number | null> {
  const announced = events.filter((e) => PUBLIC_TYPE_OF[e.type] !== undefined);
  if (announced.length === 0) return null;
  // Wait for the endpoints' read model to apply this batch: an endpoint created before an event gets it.
  const last = announced[announced.length - 1]!.position;
  if (!(await webhooksApplied(services, last, 30_000))) throw new Error('webhook fan-out: the read models did not catch up');
  const endpointsOf = new Map<string, Promise<EndpointDoc[]>>();
  const endpoints = (organizationId: string) => {
    let found = endpointsOf.get(organizationId);
    if (!found) endpointsOf.set(organizationId, (found = services.readStore.find<EndpointDoc>(WEBHOOK_ENDPOINTS, { filter: { organization_id: organizationId, enabled: true } })));
    return found;
  };
  // A resource's deliveries to one endpoint, in log order: the dispatcher sends them in that order.
  const byKey = new Map<string, Planned[]>();
  const reader = batchReader(services.store, events);
  for (const event of announced) {
    const type = PUBLIC_TYPE_OF[event.type]!;
    const known = event.metadata.organization_id;
    if (known !== null && !(await endpoints(known)).some((e) => e.event_types.includes(type))) continue;
    const built = await eventObject(reader, type, event);
    const organizationId = known ?? built?.organizationId ?? null;
    if (!built || organizationId === null) continue;
    const subscribed = (await endpoints(organizationId)).filter((e) => e.event_types.includes(type) && e.created_position < event.position);
    if (subscribed.length === 0) continue;
    const payload = webhookBody(event, type, organizationId, built.object);
    for (const endpoint of subscribed) {
      const d: Planned = { id: deliveryId(endpoint.id, event.id), endpointId: endpoint.id, organizationId, eventId: event.id, eventType: type, resource: event.stream, payload, correlation: event.metadata.correlation_id };
      const key = orderKey(endpoint.id, event.stream);
      const group = byKey.get(key);
      if (group) group.push(d);
      else byKey.set(key, [d]);
    }
  }
  const now = Math.floor(services.clock() / 1000);
  let position: number | null = null;
  const create = async ({ correlation, ...d }: Planned) => {
    const created = await handleCommand(webhookContext(services, d.organizationId, correlation), webhookDeliveryStream(d.id), webhookDeliveryDecider, { type: 'Create', ...d, now }, { known: [] });
    if (created.position !== null && (position === null || created.position > position)) position = created.position;
  };
  // Keys side by side (their appends share group commits), each key's one after the other.
  await Promise.all(
    [...byKey.values()].map(async (group) => {
      for (const d of group) await create(d);
    }),
  );
  return position;
}
