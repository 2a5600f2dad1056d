import type { Decider, DomainEvent } from '../shared/decider.ts';
import type { Action } from './actions.ts';

/** How long a repeated Idempotency-Key / Webhook-Id replays the first answer. */
export const DEDUPE_WINDOW_SECONDS = 24 * 60 * 60;

export type ReceivedWebhook = {
  trigger_id: number;
  sequence_id: number;
  organization_id: string;
  method: string;
  webhook_payload: Record<string, unknown>;
  webhook_query: Record<string, string | string[]>;
  /** The relevant headers only; authorization and x-api-key masked. */
  headers: Record<string, string>;
  received_at: number;
  /** The Idempotency-Key or Webhook-Id the sender gave, if any. */
  dedupe_key: string | null;
};

/**
 * One catch request is one stream (keyed by the sender's dedupe key, or random): the reception,
 * then the workflow it started (its id is the global position of WorkflowStarted) or the skip.
 * Both are appended together, so a request is recorded whole or not at all.
 */
export type WebhookReceptionEvent =
  | DomainEvent<'WebhookReceived', ReceivedWebhook>
  | DomainEvent<'WorkflowStarted', { trigger_id: number; sequence_id: number; organization_id: string; actions: Action[]; started_at: number }>
  | DomainEvent<'WebhookSkipped', { trigger_id: number; reason: 'trigger_disabled' | 'sequence_paused' }>;

export type ReceiveWebhook = {
  type: 'ReceiveWebhook';
  webhook: ReceivedWebhook;
  triggerEnabled: boolean;
  sequenceActive: boolean;
  actions: Action[];
  now: number;
};

export type WebhookReceptionState = { lastReceivedAt: number | null };

export const webhookReceptionStream = (key: string) => `automation_webhook-${key}`;

export const webhookReceptionDecider: Decider<WebhookReceptionState, ReceiveWebhook, WebhookReceptionEvent> = {
  initialState: () => ({ lastReceivedAt: null }),
  evolve(state, event) {
    return event.type === 'WebhookReceived' ? { lastReceivedAt: event.data.received_at } : state;
  },
  decide(command, state) {
    // A retry of the same delivery within the window: the first answer stands, nothing new starts.
    if (state.lastReceivedAt !== null && command.now - state.lastReceivedAt < DEDUPE_WINDOW_SECONDS) return [];
    const w = command.webhook;
    const received: WebhookReceptionEvent = { type: 'WebhookReceived', data: w };
    if (!command.triggerEnabled || !command.sequenceActive) {
      return [received, { type: 'WebhookSkipped', data: { trigger_id: w.trigger_id, reason: command.triggerEnabled ? 'sequence_paused' : 'trigger_disabled' } }];
    }
    return [
      received,
      {
        type: 'WorkflowStarted',
        data: { trigger_id: w.trigger_id, sequence_id: w.sequence_id, organization_id: w.organization_id, actions: command.actions, started_at: command.now },
      },
    ];
  },
};
