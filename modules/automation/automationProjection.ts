import type { RecordedEvent } from '../../platform/eventStore/index.ts';
import type { Action } from './domain/actions.ts';
import type { SequenceEvent } from './domain/sequence.ts';
import type { TriggerEvent, TriggerSample } from './domain/trigger.ts';
import type { WebhookReceptionEvent } from './domain/webhookReception.ts';
import type { StepResult, WorkflowEvent } from './domain/workflow.ts';
import type { WebhookEventType } from '../webhooks/index.ts';
import type { Projection } from '../../platform/es/index.ts';

export const SEQUENCES = 'automation_sequences';
export const TRIGGERS = 'automation_triggers';
export const SAMPLES = 'automation_samples';
export const WORKFLOWS = 'automation_workflows';

/** Signing secrets never leave the event log: read models keep only whether one is set. */
export type PublicAction = Omit<Extract<Action, { type: 'send_webhook' }>, 'signing_secret'> & { signed: boolean } | Extract<Action, { type: 'enrol_in_promo' }>;

export type SequenceDoc = {
  id: string;
  sequence_id: number;
  organization_id: string;
  key: string | null;
  name: string;
  status: 'active' | 'paused';
  route_key: string;
  actions: PublicAction[];
  created_at: number;
};
export type TriggerDoc = {
  id: string;
  trigger_id: number;
  organization_id: string;
  sequence_id: number;
  key: string | null;
  name: string;
  trigger_type: 'webhook' | 'event';
  /** What an event trigger starts on (absent for webhook triggers). */
  event_type?: WebhookEventType;
  enabled: boolean;
  /** Empty for an event trigger (it has no catch URL). */
  route_key: string;
  received_count: number;
  /** Where it was created in the log: an event trigger starts on events recorded after it only. */
  created_position?: number;
  created_at: number;
  /** The received request a person chose as the sample record (absent until one is). */
  sample?: TriggerSample;
};
/**
 * Received requests kept per trigger for the trigger test route: the latest ones, each in one of
 * a trigger's slots (received count modulo this), so the collection stays this small per trigger
 * however much traffic a catch URL takes. The event log keeps every request.
 */
export const SAMPLES_KEPT = 10;

export type SampleDoc = {
  /** `<trigger_id>:<slot>`. */
  id: string;
  trigger_id: number;
  organization_id: string;
  /** Orders the samples; not shown (a position changes when the log is copied). */
  position: number;
  /** The reception event's id, shown as the sample's id: the same in a copy of the log. Absent from samples recorded before: the position is shown. */
  event_id?: string;
  method: string;
  payload: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, string>;
  received_at: number;
  /**
   * A request that repeated a dedupe key and started nothing (WebhookRepeated). Shown among the
   * samples, so a sender that repeats its key is seen in the trigger test. Absent from samples
   * recorded before repeats were: read as false.
   */
  repeated?: boolean;
};
export type StepDoc = {
  step: number;
  action: string;
  status: 'running' | 'succeeded' | 'failed';
  attempts: number;
  result: StepResult | null;
  started_at: number;
  completed_at: number | null;
};
export type WorkflowDoc = {
  id: string;
  workflow_id: number;
  organization_id: string;
  trigger_id: number;
  sequence_id: number;
  status: 'running' | 'completed' | 'failed';
  step_count: number;
  steps: StepDoc[];
  started_at: number;
  finished_at: number | null;
  /** A person's test run against the trigger's chosen sample. */
  test?: boolean;
  /** The stream of the reception that started it (absent on documents built by older versions). */
  reception_stream?: string;
};

const tail = (stream: string) => stream.slice(stream.indexOf('-') + 1);

function publicAction(a: Action): PublicAction {
  if (a.type !== 'send_webhook') return a;
  const { signing_secret, ...rest } = a;
  return { ...rest, signed: signing_secret !== null };
}

function startedWorkflow(
  workflowId: number,
  d: { organization_id: string; trigger_id: number; sequence_id: number; test?: true },
  stepCount: number,
  startedAt: number,
  receptionStream: string,
): WorkflowDoc {
  return {
    reception_stream: receptionStream,
    ...(d.test ? { test: true } : {}),
    id: String(workflowId),
    workflow_id: workflowId,
    organization_id: d.organization_id,
    trigger_id: d.trigger_id,
    sequence_id: d.sequence_id,
    status: stepCount === 0 ? 'completed' : 'running',
    step_count: stepCount,
    steps: [],
    started_at: startedAt,
    finished_at: stepCount === 0 ? startedAt : null,
  };
}

type AutomationEvent = SequenceEvent | TriggerEvent | WebhookReceptionEvent | WorkflowEvent;

/** Sequences, triggers, received samples (for the trigger test route) and workflow runs. */
export const automationProjection: Projection = {
  name: 'automation',
  version: 2,
  collections: [SEQUENCES, TRIGGERS, SAMPLES, WORKFLOWS],
  writeOnly: [SAMPLES],
  indexes: [
    { collection: SEQUENCES, fields: ['organization_id'] },
    { collection: TRIGGERS, fields: ['organization_id'] },
    { collection: TRIGGERS, fields: ['sequence_id'] },
    // The event-trigger subscriber: the enabled triggers of an organization's event type.
    { collection: TRIGGERS, fields: ['organization_id', 'event_type'] },
    { collection: SAMPLES, fields: ['trigger_id', 'position'] },
    // The management list of workflow runs, newest first, and a run by its id.
    { collection: WORKFLOWS, fields: ['organization_id', 'workflow_id'] },
    { collection: WORKFLOWS, fields: ['workflow_id'] },
  ],
  eventTypes: [
    'SequenceCreated',
    'SequenceUpdated',
    'SequencePaused',
    'SequenceResumed',
    'TriggerCreated',
    'TriggerReplaced',
    'TriggerEnabled',
    'TriggerDisabled',
    'TriggerSampleChosen',
    'WebhookReceived',
    'WebhookRepeated',
    'WorkflowStarted',
    'WorkflowStepStarted',
    'WorkflowStepCompleted',
    'WorkflowCompleted',
    'WorkflowFailed',
    'WorkflowRetried',
  ],
  async apply(recorded: RecordedEvent, tx) {
    const event = recorded as unknown as AutomationEvent;
    switch (event.type) {
      case 'SequenceCreated': {
        const d = event.data;
        tx.upsert(SEQUENCES, {
          id: String(d.id),
          sequence_id: d.id,
          organization_id: d.organization_id,
          key: d.key ?? null,
          name: d.name,
          status: d.status,
          route_key: d.route_key,
          actions: d.actions.map(publicAction),
          created_at: d.created_at,
        } satisfies SequenceDoc);
        return;
      }
      case 'SequenceUpdated': {
        const doc = await tx.get<SequenceDoc>(SEQUENCES, tail(recorded.stream));
        if (doc) tx.upsert(SEQUENCES, { ...doc, name: event.data.name, status: event.data.status, actions: event.data.actions.map(publicAction) });
        return;
      }
      case 'SequencePaused':
      case 'SequenceResumed': {
        const doc = await tx.get<SequenceDoc>(SEQUENCES, tail(recorded.stream));
        if (doc) tx.upsert(SEQUENCES, { ...doc, status: event.type === 'SequencePaused' ? 'paused' : 'active' });
        return;
      }
      case 'TriggerCreated': {
        const d = event.data;
        tx.upsert(TRIGGERS, {
          id: String(d.id),
          trigger_id: d.id,
          organization_id: d.organization_id,
          sequence_id: d.sequence_id,
          key: d.key ?? null,
          name: d.name,
          trigger_type: d.trigger_type ?? 'webhook',
          ...(d.event_type ? { event_type: d.event_type } : {}),
          enabled: d.enabled,
          route_key: d.route_key,
          received_count: 0,
          created_position: recorded.position,
          created_at: d.created_at,
        } satisfies TriggerDoc);
        return;
      }
      case 'TriggerReplaced':
      case 'TriggerEnabled':
      case 'TriggerDisabled':
      case 'TriggerSampleChosen': {
        const doc = await tx.get<TriggerDoc>(TRIGGERS, tail(recorded.stream));
        if (!doc) return;
        if (event.type === 'TriggerSampleChosen') tx.upsert(TRIGGERS, { ...doc, sample: event.data.sample });
        else if (event.type === 'TriggerReplaced') tx.upsert(TRIGGERS, { ...doc, route_key: event.data.route_key });
        else tx.upsert(TRIGGERS, { ...doc, enabled: event.type === 'TriggerEnabled' });
        return;
      }
      case 'WebhookReceived':
      case 'WebhookRepeated': {
        const d = event.data;
        // The reception carries the workflow it started (a reception recorded before it did is
        // followed by WorkflowStarted, below).
        if (event.type === 'WebhookReceived' && event.data.outcome?.status === 'started') {
          const { workflow_id, actions } = event.data.outcome;
          tx.upsert(WORKFLOWS, startedWorkflow(workflow_id, d, actions.length, d.received_at, recorded.stream));
        }
        // A test run replays the chosen sample: it is no new request to offer as a sample.
        if (d.test) return;
        const trigger = await tx.get<TriggerDoc>(TRIGGERS, String(d.trigger_id));
        const received = trigger?.received_count ?? recorded.position;
        tx.upsert(SAMPLES, {
          id: `${d.trigger_id}:${received % SAMPLES_KEPT}`,
          trigger_id: d.trigger_id,
          organization_id: d.organization_id,
          position: recorded.position,
          event_id: recorded.id,
          method: d.method,
          // An event trigger's sample is the event it started on.
          payload: d.event ?? d.webhook_payload,
          query: d.webhook_query,
          headers: d.headers,
          received_at: d.received_at,
          repeated: event.type === 'WebhookRepeated',
        } satisfies SampleDoc);
        if (trigger) tx.upsert(TRIGGERS, { ...trigger, received_count: trigger.received_count + 1 });
        return;
      }
      case 'WorkflowStarted': {
        // Recorded before receptions carried their outcome: the id is the event's position in the
        // log it was written to (carried as workflow_id by a copy).
        const d = event.data;
        tx.upsert(WORKFLOWS, startedWorkflow(d.workflow_id ?? recorded.position, d, d.actions.length, d.started_at, recorded.stream));
        return;
      }
      case 'WebhookSkipped':
      case 'WorkflowRetryRequested':
        return;
      default: {
        const doc = await tx.get<WorkflowDoc>(WORKFLOWS, String(event.data.workflow_id));
        if (!doc) return;
        if (event.type === 'WorkflowStepStarted') {
          const step: StepDoc = { step: event.data.step, action: event.data.action, status: 'running', attempts: 0, result: null, started_at: event.data.started_at, completed_at: null };
          tx.upsert(WORKFLOWS, { ...doc, steps: [...doc.steps.filter((s) => s.step !== step.step), step] });
        } else if (event.type === 'WorkflowStepCompleted') {
          const d = event.data;
          const previous = doc.steps.find((s) => s.step === d.step);
          const step: StepDoc = {
            step: d.step,
            action: d.action,
            status: d.success ? 'succeeded' : 'failed',
            attempts: d.attempts,
            result: d.result,
            started_at: previous?.started_at ?? d.completed_at,
            completed_at: d.completed_at,
          };
          tx.upsert(WORKFLOWS, { ...doc, steps: [...doc.steps.filter((s) => s.step !== d.step), step].sort((a, b) => a.step - b.step) });
        } else if (event.type === 'WorkflowRetried') {
          const from = event.data.from_step;
          tx.upsert(WORKFLOWS, { ...doc, status: 'running', finished_at: null, steps: doc.steps.filter((s) => s.step < from) });
        } else {
          tx.upsert(WORKFLOWS, {
            ...doc,
            status: event.type === 'WorkflowCompleted' ? 'completed' : 'failed',
            finished_at: event.type === 'WorkflowCompleted' ? event.data.completed_at : event.data.failed_at,
          });
        }
      }
    }
  },
};
