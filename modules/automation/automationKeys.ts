import { createHash } from 'node:crypto';
import {
  sequenceKeyStream,
  sequenceStream,
  type SequenceEvent,
  type SequenceKeyClaimedEvent,
} from './domain/sequence.ts';
import { triggerImportKeyStream, triggerStream, type TriggerEvent, type TriggerKeyClaimedEvent } from './domain/trigger.ts';
import { type EventStore, type NewEvent, WrongExpectedRevisionError } from '../../platform/eventStore/index.ts';
import { allocateId, type CommandContext, toNewEvent } from '../../platform/es/index.ts';
import { SEQUENCE_COUNTER, TRIGGER_COUNTER } from './automationCommands.ts';

const digest = (...parts: Array<string | number>) => createHash('sha256').update(parts.join('\u0000')).digest('hex');

const sequenceClaimStream = (organizationId: string, key: string) => sequenceKeyStream(digest(organizationId, key));
const triggerClaimStream = (organizationId: string, sequenceId: number, key: string) => triggerImportKeyStream(digest(organizationId, sequenceId, key));

/**
 * Appends the first event of a claim stream. A claim another writer made first wins: its id is
 * the answer (the id allocated here stays unused, as a gap).
 */
async function claim<T>(store: EventStore, stream: string, event: NewEvent, idOf: (data: T) => number): Promise<number> {
  try {
    await store.append(stream, [event], 'no_stream');
    return idOf(event.data as T);
  } catch (error) {
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
    const [winner] = await store.readStream(stream);
    return idOf(winner!.data as T);
  }
}

/**
 * The id of the organization's sequence with this import key, claiming the key for a new id
 * when none has it. The sequence's own stream may still be empty (a new claim, or a claim whose
 * creation a crash cut off): the caller creates it under this id.
 */
export async function claimSequenceKey(ctx: CommandContext, organizationId: string, key: string): Promise<number> {
  const stream = sequenceClaimStream(organizationId, key);
  const [existing] = await ctx.store.readStream(stream);
  if (existing) return (existing.data as SequenceKeyClaimedEvent['data']).sequence_id;
  const id = await allocateId(ctx.store, SEQUENCE_COUNTER, ctx.metadata);
  const event: SequenceKeyClaimedEvent = { type: 'SequenceKeyClaimed', data: { organization_id: organizationId, key, sequence_id: id } };
  return claim<SequenceKeyClaimedEvent['data']>(ctx.store, stream, toNewEvent(event, ctx.metadata), (d) => d.sequence_id);
}

/** The id of the sequence's trigger with this import key, claiming it for a new id when none has it. */
export async function claimTriggerKey(ctx: CommandContext, organizationId: string, sequenceId: number, key: string): Promise<number> {
  const stream = triggerClaimStream(organizationId, sequenceId, key);
  const [existing] = await ctx.store.readStream(stream);
  if (existing) return (existing.data as TriggerKeyClaimedEvent['data']).trigger_id;
  const id = await allocateId(ctx.store, TRIGGER_COUNTER, ctx.metadata);
  const event: TriggerKeyClaimedEvent = { type: 'TriggerKeyClaimed', data: { organization_id: organizationId, sequence_id: sequenceId, key, trigger_id: id } };
  return claim<TriggerKeyClaimedEvent['data']>(ctx.store, stream, toNewEvent(event, ctx.metadata), (d) => d.trigger_id);
}

/** Written once every sequence and trigger made before key claims existed has its claim. */
export const KEY_CLAIMS_BACKFILLED_STREAM = 'automation_key_claims-backfill';

const backfills = new WeakMap<EventStore, Promise<void>>();

/**
 * Sequences and triggers imported before key claims existed (a log written by an older version)
 * have none, and an import deciding on claims alone would make a second sequence for their key.
 * Before its first import, each process makes sure they are claimed: once the marker stream
 * exists this is one read; before that it walks the sequence and trigger ids (their counter
 * streams say how many were handed out), reads each one's own stream and claims its key for it.
 * Idempotent: a claim that exists is left as it is, so two processes doing it at once agree, and
 * a backfill cut short is done again. Runs on the store itself, not an import's staged one.
 */
export function backfillAutomationKeyClaims(ctx: CommandContext): Promise<void> {
  let running = backfills.get(ctx.store);
  if (!running) {
    running = backfill(ctx);
    backfills.set(ctx.store, running);
    // A failed backfill (a store error) is tried again by the next import.
    running.catch(() => backfills.delete(ctx.store));
  }
  return running;
}

async function backfill(ctx: CommandContext): Promise<void> {
  const { store } = ctx;
  if ((await store.readStream(KEY_CLAIMS_BACKFILLED_STREAM)).length > 0) return;
  const metadata = { ...ctx.metadata, actor: { type: 'system' as const, name: 'key-claims-backfill' }, organization_id: null };
  const claimOld = async (stream: string, event: { type: string; data: unknown }) => {
    try {
      await store.append(stream, [toNewEvent(event, metadata)], 'no_stream');
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
    }
  };
  // Ids start at 1 and are the counter's revision + 1, so the counter's length is the highest id.
  for (let id = 1, last = (await store.readStream(`counter-${SEQUENCE_COUNTER}`)).length; id <= last; id++) {
    const [created] = (await store.readStream(sequenceStream(id))) as unknown as SequenceEvent[];
    if (created?.type !== 'SequenceCreated' || created.data.key === null) continue;
    const d = created.data;
    await claimOld(sequenceClaimStream(d.organization_id, d.key!), {
      type: 'SequenceKeyClaimed',
      data: { organization_id: d.organization_id, key: d.key!, sequence_id: d.id },
    } satisfies SequenceKeyClaimedEvent);
  }
  for (let id = 1, last = (await store.readStream(`counter-${TRIGGER_COUNTER}`)).length; id <= last; id++) {
    const [created] = (await store.readStream(triggerStream(id))) as unknown as TriggerEvent[];
    if (created?.type !== 'TriggerCreated' || created.data.key === null) continue;
    const d = created.data;
    await claimOld(triggerClaimStream(d.organization_id, d.sequence_id, d.key!), {
      type: 'TriggerKeyClaimed',
      data: { organization_id: d.organization_id, sequence_id: d.sequence_id, key: d.key!, trigger_id: d.id },
    } satisfies TriggerKeyClaimedEvent);
  }
  await claimOld(KEY_CLAIMS_BACKFILLED_STREAM, { type: 'AutomationKeyClaimsBackfilled', data: {} });
}
