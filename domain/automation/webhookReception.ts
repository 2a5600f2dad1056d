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
  /** A test run of the sequence against the trigger's chosen sample (recorded, run, never a sample itself). */
  test?: true;
};

/** A request that repeated a dedupe key within the window: recorded, answered as the first was, starting nothing. */
export type RepeatedWebhook = ReceivedWebhook & {
  /** The workflow the first request started, which this one was answered with; null when it was skipped. */
  answered_workflow_id: number | null;
};

/**
 * A catch request is recorded on a stream of its own. A request with a dedupe key claims the
 * stream named by the key: the reception, then the workflow it started (its id is the global
 * position of WorkflowStarted) or the skip, appended together, so a request is recorded whole or
 * not at all. A repeat of the key within the window is recorded as WebhookRepeated on a new random
 * stream, not on the key's: a sender that puts the same key on every request (a misconfigured
 * constant) would otherwise grow one stream that each later request reads whole.
 */
export type WebhookReceptionEvent =
  | DomainEvent<'WebhookReceived', ReceivedWebhook>
  | DomainEvent<
      'WorkflowStarted',
      /** `test`: a person's test run against the trigger's chosen sample, not a received request. */
      { trigger_id: number; sequence_id: number; organization_id: string; actions: Action[]; started_at: number; test?: true }
    >
  | DomainEvent<'WebhookSkipped', { trigger_id: number; reason: 'trigger_disabled' | 'sequence_paused' }>
  | DomainEvent<'WebhookRepeated', RepeatedWebhook>
  /**
   * A failed workflow of this reception is to run again (recorded after WorkflowRetried on the
   * workflow's stream): here, so the automation subscriber, which follows receptions, picks it up.
   */
  | DomainEvent<'WorkflowRetryRequested', { workflow_id: number; requested_at: number }>;

export type ReceiveWebhook = {
  type: 'ReceiveWebhook';
  webhook: ReceivedWebhook;
  triggerEnabled: boolean;
  sequenceActive: boolean;
  actions: Action[];
  now: number;
};

/** Decided after ReceiveWebhook decided nothing (a repeat), on a stream of the repeat's own. */
export type RecordRepeat = { type: 'RecordRepeat'; webhook: ReceivedWebhook; answeredWorkflowId: number | null };

export type WebhookReceptionCommand = ReceiveWebhook | RecordRepeat;

export type WebhookReceptionState = { lastReceivedAt: number | null };

export const webhookReceptionStream = (key: string) => `automation_webhook-${key}`;

export const webhookReceptionDecider: Decider<WebhookReceptionState, WebhookReceptionCommand, WebhookReceptionEvent> = {
  initialState: () => ({ lastReceivedAt: null }),
  evolve(state, event) {
    // The window runs from the request that started (or skipped), not from its repeats.
    return event.type === 'WebhookReceived' ? { lastReceivedAt: event.data.received_at } : state;
  },
  decide(command, state) {
    if (command.type === 'RecordRepeat') {
      return { type: 'WebhookRepeated', data: { ...command.webhook, answered_workflow_id: command.answeredWorkflowId } };
    }
    // A retry of the same delivery within the window: the first answer stands, nothing new starts
    // on this stream (the caller records the repeat with RecordRepeat).
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
        data: {
          trigger_id: w.trigger_id,
          sequence_id: w.sequence_id,
          organization_id: w.organization_id,
          actions: command.actions,
          started_at: command.now,
          ...(w.test ? { test: true as const } : {}),
        },
      },
    ];
  },
};
