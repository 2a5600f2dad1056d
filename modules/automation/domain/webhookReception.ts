import type { Decider, DomainEvent } from '../../../platform/domain/index.ts';
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
  /**
   * Set when an event trigger started it: the event as event webhooks send it (`{id, type,
   * created, organization_id, data: {object}}`), `{{event.…}}` in templates. The request fields
   * above are then empty (method `EVENT`).
   */
  event?: Record<string, unknown>;
};

export type SkipReason = 'trigger_disabled' | 'sequence_paused';

/**
 * What a reception did, recorded in the reception itself. A started workflow carries its id
 * (allocated before the append, not a log position: it means the same after `events copy`) and
 * the sequence's actions as they were when it started.
 */
export type ReceptionOutcome =
  | { status: 'started'; workflow_id: number; actions: Action[] }
  | { status: 'skipped'; reason: SkipReason };

/** A request that repeated a dedupe key within the window: recorded, answered as the first was, starting nothing. */
export type RepeatedWebhook = ReceivedWebhook & {
  /** The workflow the first request started, which this one was answered with; null when it was skipped. */
  answered_workflow_id: number | null;
};

/**
 * The older shape of a reception, still found in logs: WebhookReceived without `outcome`,
 * followed in the same append by WorkflowStarted (the workflow's id is that event's log position,
 * or its `workflow_id` in a copy of the log) or WebhookSkipped. Never decided; read through
 * receptionsIn.
 */
export type LegacyReceptionEvent =
  | DomainEvent<'WorkflowStarted', { trigger_id: number; sequence_id: number; organization_id: string; actions: Action[]; started_at: number; workflow_id?: number }>
  | DomainEvent<'WebhookSkipped', { trigger_id: number; reason: SkipReason }>;

/**
 * A catch request is recorded on a stream of its own, as one WebhookReceived event that carries
 * its outcome, so a request is recorded whole or not at all. A request with a dedupe key claims
 * the stream named by the key. A repeat of the key within the window is recorded as
 * WebhookRepeated on a new random stream, not on the key's: a sender that puts the same key on
 * every request (a misconfigured constant) would otherwise grow one stream that each later
 * request reads whole.
 */
export type WebhookReceptionEvent =
  | DomainEvent<'WebhookReceived', ReceivedWebhook & { outcome?: ReceptionOutcome }>
  | DomainEvent<'WebhookRepeated', RepeatedWebhook>
  /**
   * A failed workflow of this reception is to run again (recorded after WorkflowRetried on the
   * workflow's stream): here, so the automation subscriber, which follows receptions, picks it up.
   */
  | DomainEvent<'WorkflowRetryRequested', { workflow_id: number; requested_at: number }>
  | LegacyReceptionEvent;

export type ReceiveWebhook = {
  type: 'ReceiveWebhook';
  webhook: ReceivedWebhook;
  triggerEnabled: boolean;
  sequenceActive: boolean;
  actions: Action[];
  /** The id the workflow gets if one starts (allocated by the caller); null when none can. */
  workflowId: number | null;
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
    let outcome: ReceptionOutcome;
    if (!command.triggerEnabled) outcome = { status: 'skipped', reason: 'trigger_disabled' };
    else if (!command.sequenceActive) outcome = { status: 'skipped', reason: 'sequence_paused' };
    else if (command.workflowId === null) throw new Error('a webhook that starts a workflow needs its id');
    else outcome = { status: 'started', workflow_id: command.workflowId, actions: command.actions };
    return { type: 'WebhookReceived', data: { ...command.webhook, outcome } };
  },
};

/** A reception as every reader sees it, whichever way it was recorded. */
export type Reception = {
  webhook: ReceivedWebhook;
  outcome: ReceptionOutcome;
  /** The event that holds the outcome (WebhookReceived, or the legacy WorkflowStarted / WebhookSkipped). */
  position: number;
  /** The reception's stream. */
  stream: string;
};

type LoggedEvent = { type: string; stream: string; position: number; data: unknown };

/**
 * Upcasts a run of reception events, in log order, into receptions: a WebhookReceived with its
 * outcome is one; a legacy one is completed by the WorkflowStarted or WebhookSkipped that follows
 * it on its stream (whose webhook, when the pair was split across two reads, `webhookOf` finds).
 * A legacy workflow keeps the id it always had: its WorkflowStarted's position in the log it was
 * written to (`workflow_id` when a copy carried it over).
 */
export async function receptionsIn(
  events: readonly LoggedEvent[],
  webhookOf: (started: LoggedEvent) => Promise<ReceivedWebhook | undefined> = async () => undefined,
): Promise<Reception[]> {
  const out: Reception[] = [];
  const legacy = new Map<string, ReceivedWebhook>();
  for (const event of events) {
    const e = event as unknown as WebhookReceptionEvent;
    if (e.type === 'WebhookReceived') {
      const { outcome, ...webhook } = e.data;
      if (outcome) out.push({ webhook, outcome, position: event.position, stream: event.stream });
      else legacy.set(event.stream, webhook);
    } else if (e.type === 'WorkflowStarted' || e.type === 'WebhookSkipped') {
      const webhook = legacy.get(event.stream) ?? (await webhookOf(event));
      legacy.delete(event.stream);
      if (!webhook) continue;
      const outcome: ReceptionOutcome =
        e.type === 'WorkflowStarted'
          ? { status: 'started', workflow_id: e.data.workflow_id ?? event.position, actions: e.data.actions }
          : { status: 'skipped', reason: e.data.reason };
      out.push({ webhook, outcome, position: event.position, stream: event.stream });
    }
  }
  return out;
}
