import { type Decider, DomainError, type DomainEvent, notFound } from '../../../platform/domain/index.ts';
import type { WebhookEventType } from './eventTypes.ts';

/**
 * One event sent to one endpoint, its body fixed at creation (every attempt sends the same bytes
 * under the same `webhook-id`). Due times are recorded, so a restart resumes the schedule.
 */

/** Seconds to wait after the n-th failed attempt (Svix's schedule). */
export const RETRY_SCHEDULE_SECONDS = [5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600] as const;
export const MAX_ATTEMPTS = RETRY_SCHEDULE_SECONDS.length + 1;
/** An endpoint whose deliveries have failed without a success for this long is disabled. */
export const DISABLE_AFTER_FAILING_SECONDS = 5 * 24 * 3600;

export type AttemptOutcome = {
  success: boolean;
  /** 0 when no response was had (then `error` says why). */
  status_code: number;
  error: string | null;
  /** Whether another attempt could succeed (network errors, timeouts, 429, 5xx). */
  retryable: boolean;
  duration_ms: number;
  response_excerpt: string;
};

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export type WebhookDeliveryEvent =
  | DomainEvent<
      'WebhookDeliveryCreated',
      {
        id: string;
        endpoint_id: string;
        organization_id: string;
        event_id: string;
        event_type: WebhookEventType;
        /** The stream of the resource the event is about: its deliveries to one endpoint go in order. */
        resource: string;
        payload: string;
        created_at: number;
        /** Attempts recorded before this stream existed (a `WebhookDeliveriesSent` delivery reopened). */
        prior_attempts?: number;
      }
    >
  | DomainEvent<'WebhookDeliveryAttempted', AttemptOutcome & { attempt: number; manual: boolean; attempted_at: number; next_attempt_at: number | null }>
  | DomainEvent<'WebhookDeliveryResendRequested', { requested_at: number }>
  | DomainEvent<'WebhookDeliveryAbandoned', { reason: 'endpoint_disabled' | 'endpoint_deleted'; abandoned_at: number }>;

export type DeliveryCreation = {
  id: string;
  endpointId: string;
  organizationId: string;
  eventId: string;
  eventType: WebhookEventType;
  resource: string;
  payload: string;
};

export type WebhookDeliveryCommand =
  | ({ type: 'Create'; now: number } & DeliveryCreation)
  | { type: 'RecordAttempt'; outcome: AttemptOutcome; now: number }
  | {
      type: 'Resend';
      organizationId: string;
      now: number;
      /** The delivery as a batch recorded it, when it has no stream of its own yet. */
      sent?: { endpointId: string; organizationId: string; delivery: SentDelivery };
    }
  | { type: 'Abandon'; reason: 'endpoint_disabled' | 'endpoint_deleted'; now: number };

export type WebhookDeliveryState = {
  id: string | null;
  endpoint_id: string;
  organization_id: string;
  event_id: string;
  event_type: WebhookEventType | null;
  payload: string;
  status: DeliveryStatus;
  attempts: number;
  /** Unix seconds; null when nothing more is to be tried. */
  next_attempt_at: number | null;
  /** A resend asked by hand is one attempt, not a new schedule. */
  manual: boolean;
};

/** One stream per (endpoint, event): its creation is idempotent, whatever the fan-out replays. */
export const deliveryId = (endpointId: string, eventId: string) => `${endpointId}_${eventId}`;
export const webhookDeliveryStream = (id: string) => `webhook_delivery-${id}`;

export const webhookDeliveryDecider: Decider<WebhookDeliveryState, WebhookDeliveryCommand, WebhookDeliveryEvent> = {
  initialState: () => ({
    id: null,
    endpoint_id: '',
    organization_id: '',
    event_id: '',
    event_type: null,
    payload: '',
    status: 'pending',
    attempts: 0,
    next_attempt_at: null,
    manual: false,
  }),
  evolve(state, event) {
    switch (event.type) {
      case 'WebhookDeliveryCreated': {
        const { id, endpoint_id, organization_id, event_id, event_type, payload, prior_attempts, created_at } = event.data;
        return { ...state, id, endpoint_id, organization_id, event_id, event_type, payload, status: 'pending', attempts: prior_attempts ?? 0, next_attempt_at: created_at };
      }
      case 'WebhookDeliveryAttempted': {
        const d = event.data;
        const status: DeliveryStatus = d.success ? 'succeeded' : d.next_attempt_at === null ? 'failed' : 'pending';
        return { ...state, attempts: d.attempt, status, next_attempt_at: d.next_attempt_at, manual: false };
      }
      case 'WebhookDeliveryResendRequested':
        return { ...state, status: 'pending', next_attempt_at: event.data.requested_at, manual: true };
      case 'WebhookDeliveryAbandoned':
        return { ...state, status: 'failed', next_attempt_at: null };
    }
  },
  decide(command, state) {
    if (command.type === 'Create') {
      if (state.id !== null) return [];
      const { id, endpointId, organizationId, eventId, eventType, resource, payload, now } = command;
      return {
        type: 'WebhookDeliveryCreated',
        data: { id, endpoint_id: endpointId, organization_id: organizationId, event_id: eventId, event_type: eventType, resource, payload, created_at: now },
      };
    }
    if (state.id === null && command.type === 'Resend' && command.sent?.organizationId === command.organizationId) return reopened(command.sent, command.now);
    if (state.id === null) throw notFound('Webhook delivery', 'webhook_delivery_not_found');
    switch (command.type) {
      case 'RecordAttempt': {
        // A second worker's late attempt (after a lease handover) is not recorded twice.
        if (state.status !== 'pending') return [];
        const attempt = state.attempts + 1;
        const { outcome, now } = command;
        const scheduled = attempt - 1 < RETRY_SCHEDULE_SECONDS.length ? RETRY_SCHEDULE_SECONDS[attempt - 1]! : null;
        const next = outcome.success || !outcome.retryable || state.manual || scheduled === null ? null : now + scheduled;
        return { type: 'WebhookDeliveryAttempted', data: { ...outcome, attempt, manual: state.manual, attempted_at: now, next_attempt_at: next } };
      }
      case 'Resend':
        if (command.organizationId !== state.organization_id) throw notFound('Webhook delivery', 'webhook_delivery_not_found');
        if (state.status === 'pending') throw new DomainError('conflict', 'webhook_delivery_pending', 'The delivery is still being attempted.');
        return { type: 'WebhookDeliveryResendRequested', data: { requested_at: command.now } };
      case 'Abandon':
        if (state.status !== 'pending') return [];
        return { type: 'WebhookDeliveryAbandoned', data: { reason: command.reason, abandoned_at: command.now } };
    }
  },
};

/**
 * A delivery recorded with others of its endpoint in one `WebhookDeliveriesSent` event after its
 * first attempt succeeded. Older logs hold these; new deliveries each get a stream.
 */
export type SentDelivery = {
  id: string;
  event_id: string;
  event_type: WebhookEventType;
  resource: string;
  payload: string;
  created_at: number;
  status_code: number;
  duration_ms: number;
  response_excerpt: string;
  attempted_at: number;
};

export type WebhookDeliveriesSentEvent = DomainEvent<'WebhookDeliveriesSent', { endpoint_id: string; organization_id: string; deliveries: SentDelivery[] }>;

/** A batch-recorded delivery given a stream of its own, to be sent once more. */
function reopened(sent: { endpointId: string; organizationId: string; delivery: SentDelivery }, now: number): WebhookDeliveryEvent[] {
  const { id, event_id, event_type, resource, payload, created_at } = sent.delivery;
  return [
    {
      type: 'WebhookDeliveryCreated',
      data: { id, endpoint_id: sent.endpointId, organization_id: sent.organizationId, event_id, event_type, resource, payload, created_at, prior_attempts: 1 },
    },
    { type: 'WebhookDeliveryResendRequested', data: { requested_at: now } },
  ];
}
