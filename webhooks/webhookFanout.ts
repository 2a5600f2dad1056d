import type { Services } from '../app/services.ts';
import type { EventMetadata, RecordedEvent } from '../eventStore/eventStore.ts';
import { handleCommand } from '../commands/handleCommand.ts';
import { PUBLIC_TYPE_OF, type WebhookEventType } from '../domain/webhooks/eventTypes.ts';
import { deliveryId, webhookDeliveryDecider, webhookDeliveryStream, type WebhookDeliveryState } from '../domain/webhooks/webhookDelivery.ts';
import { WEBHOOK_ENDPOINTS, type EndpointDoc } from '../projections/webhooks/webhookProjection.ts';
import { eventObject } from './eventObject.ts';
import type { SeenStreams } from './seenStreams.ts';
import { webhooksApplied } from './webhooksApplied.ts';

/** A webhook's body, fixed when its delivery is created: `{id, type, created, organization_id, data: {object}}`. */
export const webhookBody = (event: RecordedEvent, type: WebhookEventType, organizationId: string, object: Record<string, unknown>): string =>
  JSON.stringify({ id: event.id, type, created: event.metadata.occurred_at, organization_id: organizationId, data: { object } });

/** A delivery the fan-out has just recorded: its stream as written, for a call without reading it again. */
export type CreatedDelivery = { stream: string; state: WebhookDeliveryState; known: RecordedEvent[]; resource: string; position: number };

/**
 * Turns each announced event of a batch into one delivery per subscribed endpoint, each with its
 * body fixed now. Run again over the same events (a crash before the checkpoint moved), it creates
 * nothing twice: a delivery's stream is named after (endpoint, event). Returns the deliveries it
 * created, in log order, or null when the batch announced nothing.
 */
export async function fanOut(services: Services, events: readonly RecordedEvent[], seen?: SeenStreams): Promise<CreatedDelivery[] | null> {
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
  // Built in log order, then appended together: the store commits concurrent appends in one
  // transaction (one fsync for the batch instead of one per delivery), in the order they were
  // made, so deliveries keep the log's order (the dispatcher's order per resource).
  const creations: Array<() => Promise<CreatedDelivery | null>> = [];
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
    const metadata: EventMetadata = {
      correlation_id: event.metadata.correlation_id,
      actor: { type: 'system', name: 'webhooks' },
      organization_id: organizationId,
      occurred_at: Math.floor(services.clock() / 1000),
    };
    for (const endpoint of subscribed) {
      const id = deliveryId(endpoint.id, event.id);
      const stream = webhookDeliveryStream(id);
      creations.push(async () => {
        const result = await handleCommand(
          { store: services.store, metadata },
          stream,
          webhookDeliveryDecider,
          { type: 'Create', id, endpointId: endpoint.id, organizationId, eventId: event.id, eventType: type, resource: event.stream, payload, now: metadata.occurred_at },
          { known: [] },
        );
        // Created by an earlier run of this batch: nothing new to send from here.
        if (result.position === null) return null;
        const [created] = result.events;
        // The stream as appended (its event's id is not needed: a one-event stream is folded whole).
        const known: RecordedEvent[] = [{ id: '', type: created!.type, data: created!.data, metadata, stream, revision: result.revision, position: result.position }];
        return { stream, state: result.state, known, resource: event.stream, position: result.position };
      });
    }
  }
  const results = await Promise.all(creations.map((create) => create()));
  return results.filter((r): r is CreatedDelivery => r !== null);
}
