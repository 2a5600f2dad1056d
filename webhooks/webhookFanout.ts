import type { Services } from '../platform/runtime/services.ts';
import type { RecordedEvent } from '../platform/eventStore/eventStore.ts';
import { PUBLIC_TYPE_OF, type WebhookEventType } from '../domain/webhooks/eventTypes.ts';
import { deliveryId, type DeliveryCreation } from '../domain/webhooks/webhookDelivery.ts';
import { WEBHOOK_ENDPOINTS, type EndpointDoc } from '../projections/webhooks/webhookProjection.ts';
import { eventObject } from './eventObject.ts';
import type { SeenStreams } from './seenStreams.ts';
import { webhooksApplied } from './webhooksApplied.ts';

/** A webhook's body, fixed when its delivery is created: `{id, type, created, organization_id, data: {object}}`. */
export const webhookBody = (event: RecordedEvent, type: WebhookEventType, organizationId: string, object: Record<string, unknown>): string =>
  JSON.stringify({ id: event.id, type, created: event.metadata.occurred_at, organization_id: organizationId, data: { object } });

/** A delivery the fan-out has planned (nothing recorded yet): one announced event for one subscribed endpoint. */
export type PlannedDelivery = DeliveryCreation & {
  /** The announced event's log position and its correlation id. */
  source: number;
  correlation: string;
  created_at: number;
};

/**
 * Turns each announced event of a batch into one delivery per subscribed endpoint, each with its
 * body fixed now, in log order; records nothing (the sender records each delivery once it knows
 * its fate). A delivery's id is (endpoint, event): planned again from the same events (a crash
 * before the checkpoint moved), it is the same delivery. Null when the batch announced nothing.
 */
export async function fanOut(services: Services, events: readonly RecordedEvent[], seen?: SeenStreams): Promise<PlannedDelivery[] | null> {
  seen?.see(events);
  const reader = seen ? seen.over(services.store) : services.store;
  const announced = events.filter((e) => PUBLIC_TYPE_OF[e.type] !== undefined);
  if (announced.length === 0) return null;
  // Endpoints come from their read model: wait until it has applied this batch, so an endpoint
  // created before an event is known when that event is fanned out.
  const last = announced[announced.length - 1]!.position;
  if (!(await webhooksApplied(services, last, 30_000))) throw new Error('webhook fan-out: the read models did not catch up');
  const endpointsOf = new Map<string, Promise<EndpointDoc[]>>();
  const endpoints = (organizationId: string) => {
    let found = endpointsOf.get(organizationId);
    if (!found) endpointsOf.set(organizationId, (found = services.readStore.find<EndpointDoc>(WEBHOOK_ENDPOINTS, { filter: { organization_id: organizationId, enabled: true } })));
    return found;
  };
  const now = Math.floor(services.clock() / 1000);
  const planned: PlannedDelivery[] = [];
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
      planned.push({
        id: deliveryId(endpoint.id, event.id),
        endpointId: endpoint.id,
        organizationId,
        eventId: event.id,
        eventType: type,
        resource: event.stream,
        payload,
        source: event.position,
        correlation: event.metadata.correlation_id,
        created_at: now,
      });
    }
  }
  return planned;
}
