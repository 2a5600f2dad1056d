import type { BackgroundJob, Services } from '../../../platform/runtime/index.ts';
import { followFromCheckpoint, handleCommand, type Logger } from '../../../platform/es/index.ts';
import { nextWorkflowId, type ReceivedWebhook, sequenceDecider, sequenceStream, type TriggerDoc, TRIGGERS, webhookReceptionDecider, webhookReceptionStream } from '../../automation/index.ts';
import { fold } from '../../../platform/domain/index.ts';
import { PUBLIC_TYPE_OF, SOURCE_STREAM_PREFIXES } from '../domain/eventTypes.ts';
import { type EventMetadata, type RecordedEvent, WrongExpectedRevisionError } from '../../../platform/eventStore/index.ts';
import { eventObject } from '../eventObject.ts';

export const EVENT_TRIGGER_CHECKPOINT = 'event_triggers';
const BATCH_EVENTS = 200;

/** One reception per (trigger, event): a second run over the same event finds the stream taken. */
export const eventReceptionStream = (triggerId: number, eventId: string) => webhookReceptionStream(`ev${triggerId}-${eventId}`);

/**
 * Records a reception, with the workflow it starts, for each enabled event trigger subscribed to
 * an announced event of a batch (the automation runner runs them). Returns how many it recorded.
 */
export async function startEventTriggers(services: Services, events: readonly RecordedEvent[]): Promise<number> {
  const announced = events.filter((e) => PUBLIC_TYPE_OF[e.type] !== undefined);
  if (announced.length === 0) return 0;
  // Wait for the triggers' read model to apply this batch: a trigger created before an event gets it.
  const last = announced[announced.length - 1]!.position;
  if (services.projections && !(await services.projections.waitFor(last, 30_000))) throw new Error('event triggers: the read models did not catch up');
  let recorded = 0;
  for (const event of announced) {
    const type = PUBLIC_TYPE_OF[event.type]!;
    const known = event.metadata.organization_id;
    const triggersOf = (organizationId: string) =>
      services.readStore
        .find<TriggerDoc>(TRIGGERS, { filter: { organization_id: organizationId, event_type: type } })
        .then((found) => found.filter((t) => t.trigger_type === 'event' && t.enabled && (t.created_position ?? 0) < event.position));
    if (known !== null && (await triggersOf(known)).length === 0) continue;
    const built = await eventObject(services.store, type, event);
    const organizationId = known ?? built?.organizationId ?? null;
    if (!built || organizationId === null) continue;
    const triggers = await triggersOf(organizationId);
    if (triggers.length === 0) continue;
    // A workflow.failed trigger's own failures start nothing, or such a sequence would loop for ever.
    if (type === 'workflow.failed' && (await startedOnFailure(services, built.object))) continue;
    const payload = { id: event.id, type, created: event.metadata.occurred_at, organization_id: organizationId, data: { object: built.object } };
    for (const trigger of triggers) {
      if (await recordReception(services, trigger, event, payload)) recorded++;
    }
  }
  return recorded;
}

async function startedOnFailure(services: Services, workflow: Record<string, unknown>): Promise<boolean> {
  const trigger = await services.readStore.get<TriggerDoc>(TRIGGERS, String(workflow.trigger_id));
  return trigger?.trigger_type === 'event' && trigger.event_type === 'workflow.failed';
}

async function recordReception(services: Services, trigger: TriggerDoc, event: RecordedEvent, payload: Record<string, unknown>): Promise<boolean> {
  const stream = eventReceptionStream(trigger.trigger_id, event.id);
  // Already recorded (a batch handled again after a crash): nothing starts twice.
  if ((await services.store.readStream(stream)).length > 0) return false;
  const sequence = fold(sequenceDecider, (await services.store.readStream(sequenceStream(trigger.sequence_id))) as never);
  if (sequence.status === 'none') return false;
  const metadata: EventMetadata = {
    correlation_id: event.metadata.correlation_id,
    actor: { type: 'system', name: 'automation' },
    organization_id: trigger.organization_id,
    occurred_at: Math.floor(services.clock() / 1000),
  };
  const active = sequence.status === 'active';
  const webhook: ReceivedWebhook = {
    trigger_id: trigger.trigger_id,
    sequence_id: trigger.sequence_id,
    organization_id: trigger.organization_id,
    method: 'EVENT',
    webhook_payload: {},
    webhook_query: {},
    headers: {},
    received_at: metadata.occurred_at,
    dedupe_key: null,
    event: payload,
  };
  try {
    const result = await handleCommand({ store: services.store, metadata }, stream, webhookReceptionDecider, {
      type: 'ReceiveWebhook',
      webhook,
      // The trigger was enabled when its read model was read; a sequence paused since is skipped.
      triggerEnabled: true,
      sequenceActive: active,
      actions: sequence.actions,
      workflowId: active ? await nextWorkflowId(services.store, metadata) : null,
      now: metadata.occurred_at,
    }, { known: [] });
    // Nothing appended: another process recorded it first.
    return result.events.length > 0;
  } catch (error) {
    if (error instanceof WrongExpectedRevisionError) return false;
    throw error;
  }
}

/** Event triggers: a log subscriber (from its own checkpoint) recording receptions for announced events. */
export const eventTriggerJob: BackgroundJob = {
  name: 'event-triggers',
  async start(services: Services, logger: Logger) {
    const following = await followFromCheckpoint(services, logger, {
      checkpoint: EVENT_TRIGGER_CHECKPOINT,
      streamPrefixes: SOURCE_STREAM_PREFIXES,
      batchSize: BATCH_EVENTS,
      handle: async (events) => {
        await startEventTriggers(services, events);
      },
      remedy: `restore the read store that goes with this log, or delete the checkpoint ${EVENT_TRIGGER_CHECKPOINT} to look at the log's events again (each trigger starts once per event)`,
      failure: 'event triggers failed; retrying from its checkpoint',
    });
    return { stop: () => following.stop() };
  },
};
