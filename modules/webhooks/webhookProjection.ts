import type { RecordedEvent } from '../../platform/eventStore/index.ts';
import type { DeliveryStatus, WebhookDeliveriesSentEvent, WebhookDeliveryEvent } from './domain/webhookDelivery.ts';
import type { DisabledReason, WebhookEndpointEvent } from './domain/webhookEndpoint.ts';
import type { Projection } from '../../platform/es/index.ts';

export const WEBHOOK_ENDPOINTS = 'webhook_endpoints';
export const WEBHOOK_DELIVERIES = 'webhook_deliveries';
export const WEBHOOK_ATTEMPTS = 'webhook_attempts';

type DataOf<E extends { type: string; data: unknown }, T extends E['type']> = Extract<E, { type: T }>['data'];

/** An endpoint without its secrets (the read store never holds them). */
export type EndpointDoc = Omit<DataOf<WebhookEndpointEvent, 'WebhookEndpointCreated'>, 'secret'> & {
  disabled_reason: DisabledReason | null;
  updated_at: number;
  /** Log position of its creation: events before it are not sent to it (internal, never shown). */
  created_position: number;
  /** When its deliveries started failing without a success since; null while healthy. */
  failing_since: number | null;
};

export type DeliveryDoc = Omit<DataOf<WebhookDeliveryEvent, 'WebhookDeliveryCreated'>, 'payload' | 'prior_attempts'> & {
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: number | null;
  updated_at: number;
  /** Log position of its creation: the dispatcher's order (internal, never shown). */
  position: number;
  /** The batch record's stream, for one sent from the fan-out without a stream of its own (internal, never shown). */
  sent_in?: string;
};

export type AttemptDoc = Omit<DataOf<WebhookDeliveryEvent, 'WebhookDeliveryAttempted'>, 'retryable'> &
  Pick<DeliveryDoc, 'endpoint_id' | 'organization_id' | 'event_id'> & { id: string; delivery_id: string };

export const streamId = (stream: string) => stream.slice(stream.indexOf('-') + 1);

/** An attempt's document, keyed by its delivery and number. */
const attemptDoc = (
  delivery: Pick<DeliveryDoc, 'id' | 'endpoint_id' | 'organization_id' | 'event_id'>,
  attempt: Omit<AttemptDoc, 'id' | 'delivery_id' | 'endpoint_id' | 'organization_id' | 'event_id'>,
): AttemptDoc => ({
  id: `${delivery.id}:${attempt.attempt}`,
  delivery_id: delivery.id,
  endpoint_id: delivery.endpoint_id,
  organization_id: delivery.organization_id,
  event_id: delivery.event_id,
  ...attempt,
});

/** Event webhook endpoints, their deliveries and every attempt (what the CLI lists and the dispatcher polls). */
export const webhookProjection: Projection = {
  name: 'webhooks',
  collections: [WEBHOOK_ENDPOINTS, WEBHOOK_DELIVERIES, WEBHOOK_ATTEMPTS],
  writeOnly: [WEBHOOK_ATTEMPTS],
  indexes: [
    { collection: WEBHOOK_ENDPOINTS, fields: ['organization_id', 'created_at'] },
    { collection: WEBHOOK_DELIVERIES, fields: ['status', 'next_attempt_at', 'position', 'id'] },
    { collection: WEBHOOK_DELIVERIES, fields: ['endpoint_id', 'resource', 'status', 'position'] },
    { collection: WEBHOOK_DELIVERIES, fields: ['endpoint_id', 'created_at'] },
    { collection: WEBHOOK_ATTEMPTS, fields: ['delivery_id', 'attempt'] },
  ],
  eventTypes: [
    'WebhookEndpointCreated',
    'WebhookEndpointUpdated',
    'WebhookEndpointSecretRotated',
    'WebhookEndpointDisabled',
    'WebhookEndpointDeleted',
    'WebhookDeliveryCreated',
    'WebhookDeliveryAttempted',
    'WebhookDeliveryResendRequested',
    'WebhookDeliveryAbandoned',
    'WebhookDeliveriesSent',
  ],
  async apply(recorded: RecordedEvent, tx) {
    const event = recorded as unknown as WebhookEndpointEvent | WebhookDeliveryEvent | WebhookDeliveriesSentEvent;
    const id = streamId(recorded.stream);
    const at = recorded.metadata.occurred_at;
    switch (event.type) {
      case 'WebhookEndpointCreated': {
        const { secret: _secret, ...d } = event.data;
        tx.upsert(WEBHOOK_ENDPOINTS, {
          ...d,
          disabled_reason: d.enabled ? null : 'manual',
          updated_at: d.created_at,
          created_position: recorded.position,
          failing_since: null,
        } satisfies EndpointDoc);
        return;
      }
      case 'WebhookEndpointDeleted':
        tx.delete(WEBHOOK_ENDPOINTS, id);
        return;
      case 'WebhookEndpointUpdated':
      case 'WebhookEndpointSecretRotated':
      case 'WebhookEndpointDisabled': {
        const doc = await tx.get<EndpointDoc>(WEBHOOK_ENDPOINTS, id);
        if (!doc) return;
        if (event.type === 'WebhookEndpointUpdated') {
          const { updated_at, ...changes } = event.data;
          const enabled = changes.enabled ?? doc.enabled;
          tx.upsert(WEBHOOK_ENDPOINTS, {
            ...doc,
            ...changes,
            enabled,
            disabled_reason: enabled ? null : changes.enabled === false ? 'manual' : doc.disabled_reason,
            // Enabled again by hand: its failures start counting afresh.
            failing_since: changes.enabled === true ? null : doc.failing_since,
            updated_at,
          } satisfies EndpointDoc);
        } else if (event.type === 'WebhookEndpointDisabled') {
          tx.upsert(WEBHOOK_ENDPOINTS, { ...doc, enabled: false, disabled_reason: event.data.reason, updated_at: event.data.disabled_at } satisfies EndpointDoc);
        } else {
          tx.upsert(WEBHOOK_ENDPOINTS, { ...doc, updated_at: event.data.rotated_at } satisfies EndpointDoc);
        }
        return;
      }
      case 'WebhookDeliveriesSent': {
        const { endpoint_id, organization_id, deliveries } = event.data;
        for (const { id, event_id, event_type, resource, created_at, status_code, duration_ms, response_excerpt, attempted_at } of deliveries) {
          const sent = { status: 'succeeded', attempts: 1, next_attempt_at: null, created_at, updated_at: attempted_at, position: recorded.position, sent_in: recorded.stream } as const;
          tx.upsert(WEBHOOK_DELIVERIES, { id, endpoint_id, organization_id, event_id, event_type, resource, ...sent } satisfies DeliveryDoc);
          const attempt = { attempt: 1, manual: false, success: true, status_code, error: null, duration_ms, response_excerpt, attempted_at, next_attempt_at: null };
          tx.upsert(WEBHOOK_ATTEMPTS, attemptDoc({ id, endpoint_id, organization_id, event_id }, attempt));
        }
        const endpoint = await tx.get<EndpointDoc>(WEBHOOK_ENDPOINTS, endpoint_id);
        if (endpoint && endpoint.failing_since !== null && deliveries.length > 0) tx.upsert(WEBHOOK_ENDPOINTS, { ...endpoint, failing_since: null } satisfies EndpointDoc);
        return;
      }
      case 'WebhookDeliveryCreated': {
        const { payload: _payload, prior_attempts, ...d } = event.data;
        tx.upsert(WEBHOOK_DELIVERIES, {
          ...d,
          status: 'pending',
          attempts: prior_attempts ?? 0,
          next_attempt_at: d.created_at,
          updated_at: d.created_at,
          position: recorded.position,
        } satisfies DeliveryDoc);
        return;
      }
    }
    const delivery = await tx.get<DeliveryDoc>(WEBHOOK_DELIVERIES, id);
    if (!delivery) return;
    switch (event.type) {
      case 'WebhookDeliveryAttempted': {
        const d = event.data;
        const status: DeliveryStatus = d.success ? 'succeeded' : d.next_attempt_at === null ? 'failed' : 'pending';
        tx.upsert(WEBHOOK_DELIVERIES, { ...delivery, status, attempts: d.attempt, next_attempt_at: d.next_attempt_at, updated_at: at } satisfies DeliveryDoc);
        const { attempt, manual, success, status_code, error, duration_ms, response_excerpt, attempted_at, next_attempt_at } = d;
        tx.upsert(WEBHOOK_ATTEMPTS, attemptDoc(delivery, { attempt, manual, success, status_code, error, duration_ms, response_excerpt, attempted_at, next_attempt_at }));
        const endpoint = await tx.get<EndpointDoc>(WEBHOOK_ENDPOINTS, delivery.endpoint_id);
        if (endpoint) {
          const failingSince = d.success ? null : (endpoint.failing_since ?? d.attempted_at);
          if (failingSince !== endpoint.failing_since) tx.upsert(WEBHOOK_ENDPOINTS, { ...endpoint, failing_since: failingSince } satisfies EndpointDoc);
        }
        return;
      }
      case 'WebhookDeliveryResendRequested':
        tx.upsert(WEBHOOK_DELIVERIES, { ...delivery, status: 'pending', next_attempt_at: event.data.requested_at, updated_at: at } satisfies DeliveryDoc);
        return;
      case 'WebhookDeliveryAbandoned':
        tx.upsert(WEBHOOK_DELIVERIES, { ...delivery, status: 'failed', next_attempt_at: null, updated_at: at } satisfies DeliveryDoc);
        return;
    }
  },
};
