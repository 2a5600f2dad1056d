import { hash } from 'node:crypto';
import { sequenceDecider, sequenceStream } from './domain/sequence.ts';
import {
  receptionsIn,
  webhookReceptionDecider,
  webhookReceptionStream,
  type ReceivedWebhook,
} from './domain/webhookReception.ts';
import { fold } from '../../platform/domain/index.ts';
import type { EventMetadata, EventStore } from '../../platform/eventStore/index.ts';
import { handleCommand, timeOrderedUuid } from '../../platform/es/index.ts';
import { loadTrigger, triggerKeyStream } from './automationCommands.ts';
import { nextWorkflowId } from './workflowIds.ts';

export type CatchRequest = {
  sequenceKey: string;
  triggerKey: string;
  method: string;
  payload: Record<string, unknown>;
  query: Record<string, string | string[]>;
  headers: Record<string, string>;
  dedupeKey: string | null;
};

export type CatchAnswer =
  | { found: false }
  | { found: true; organizationId: string; workflowId: number | null; replayed: boolean };

/**
 * The write side of a catch URL: find the trigger by its key (a replaced URL is dead at once), then
 * record the reception with its outcome as one event. Concurrent retries of a dedupe key race on its
 * stream; the losers get the first answer, each recorded as WebhookRepeated on a stream of its own.
 */
export async function receiveWebhook(
  store: EventStore,
  metadataFor: (organizationId: string) => EventMetadata,
  request: CatchRequest,
): Promise<CatchAnswer> {
  const claim = (await store.readStream(triggerKeyStream(request.triggerKey)))[0];
  if (!claim) return { found: false };
  const triggerId = (claim.data as { trigger_id: number }).trigger_id;
  const trigger = await loadTrigger({ store }, triggerId);
  if (trigger.status === 'none' || trigger.routeKey !== request.triggerKey) return { found: false };
  const sequence = fold(sequenceDecider, (await store.readStream(sequenceStream(trigger.sequenceId))) as never);
  if (sequence.status === 'none' || sequence.routeKey !== request.sequenceKey) return { found: false };

  const metadata = metadataFor(trigger.organizationId);
  const now = metadata.occurred_at;
  const key = request.dedupeKey
    ? `t${triggerId}-${hash('sha256', request.dedupeKey, 'hex').slice(0, 40)}`
    : timeOrderedUuid();
  const stream = webhookReceptionStream(key);
  const webhook: ReceivedWebhook = {
    trigger_id: triggerId,
    sequence_id: trigger.sequenceId,
    organization_id: trigger.organizationId,
    method: request.method,
    webhook_payload: request.payload,
    webhook_query: request.query,
    headers: request.headers,
    received_at: now,
    dedupe_key: request.dedupeKey,
  };
  // Read here rather than inside the command, so a repeat finds the first answer in this same read.
  const known = request.dedupeKey === null ? [] : await store.readStream(stream);
  const starts = trigger.enabled && sequence.status === 'active';
  // Allocated before deciding: a repeat then leaves a gap in the ids, which is allowed.
  const workflowId = starts ? await nextWorkflowId(store, metadata) : null;
  const result = await handleCommand({ store, metadata }, stream, webhookReceptionDecider, {
    type: 'ReceiveWebhook',
    webhook,
    triggerEnabled: trigger.enabled,
    sequenceActive: sequence.status === 'active',
    actions: sequence.actions,
    workflowId,
    now,
  }, { known });
  if (result.events.length > 0) return { found: true, organizationId: trigger.organizationId, workflowId, replayed: false };
  // A repeat: the answer of the latest reception on this key. The command decided on `known`
  // unless a concurrent request appended first, in which case it read the stream again.
  const decidedOn = result.revision === (known.at(-1)?.revision ?? -1) ? known : await store.readStream(stream);
  const outcome = (await receptionsIn(decidedOn)).at(-1)?.outcome;
  const answered = outcome?.status === 'started' ? outcome.workflow_id : null;
  await handleCommand({ store, metadata }, webhookReceptionStream(timeOrderedUuid()), webhookReceptionDecider, {
    type: 'RecordRepeat',
    webhook,
    answeredWorkflowId: answered,
  }, { known: [] });
  return { found: true, organizationId: trigger.organizationId, workflowId: answered, replayed: true };
}
