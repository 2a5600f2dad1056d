import { nanoid } from 'nanoid';
import type { ActionInput } from './domain/actions.ts';
import { sequenceDecider, sequenceStream, type SequenceState, type SequenceStatus } from './domain/sequence.ts';
import { triggerDecider, triggerStream, type TriggerState } from './domain/trigger.ts';
import { conflict, fold, notFound } from '../../platform/domain/index.ts';
import { allocateId, type CommandContext, handleCommand, toNewEvent } from '../../platform/es/index.ts';

/** Counter names of allocateId: sequence and trigger ids. */
export const SEQUENCE_COUNTER = 'automation_sequence';
export const TRIGGER_COUNTER = 'automation_trigger';

/** Route keys of catch URLs: 24 characters of nanoid's 64-letter alphabet, 144 bits. */
export const newRouteKey = () => nanoid(24);

/** Points a trigger route key at its trigger, so the catch route finds it without a read model. */
export const triggerKeyStream = (routeKey: string) => `automation_trigger_key-${routeKey}`;

export async function createSequence(
  ctx: CommandContext,
  input: { organizationId: string; name: string; status?: SequenceStatus; actions: ActionInput[]; key?: string | null; id?: number },
): Promise<{ id: number; route_key: string }> {
  // An import brings the id its key claim names (automationKeys.ts).
  const id = input.id ?? (await allocateId(ctx.store, SEQUENCE_COUNTER, ctx.metadata));
  const routeKey = newRouteKey();
  await handleCommand(ctx, sequenceStream(id), sequenceDecider, {
    type: 'CreateSequence',
    ...input,
    id,
    key: input.key ?? null,
    status: input.status ?? 'active',
    routeKey,
    now: ctx.metadata.occurred_at,
  });
  return { id, route_key: routeKey };
}

/** Re-import: sets name, status and actions; records nothing when they are unchanged. */
export async function updateSequence(
  ctx: CommandContext,
  id: number,
  input: { name: string; status: SequenceStatus; actions: ActionInput[] },
): Promise<{ changed: boolean }> {
  const result = await handleCommand(ctx, sequenceStream(id), sequenceDecider, { type: 'UpdateSequence', ...input, now: ctx.metadata.occurred_at });
  return { changed: result.events.length > 0 };
}

export async function setSequenceStatus(ctx: CommandContext, id: number, status: SequenceStatus, organizationId?: string): Promise<{ id: number; status: SequenceStatus; changed: boolean }> {
  const state = fold(sequenceDecider, (await ctx.store.readStream(sequenceStream(id))) as never);
  if (state.status === 'none' || (organizationId !== undefined && state.organizationId !== organizationId)) throw notFound('Sequence');
  const result = await handleCommand(ctx, sequenceStream(id), sequenceDecider, {
    type: status === 'paused' ? 'PauseSequence' : 'ResumeSequence',
    now: ctx.metadata.occurred_at,
  });
  return { id, status, changed: result.events.length > 0 };
}

export async function createTrigger(
  ctx: CommandContext,
  input: { organizationId: string; sequenceId: number; name: string; enabled?: boolean; key?: string | null; id?: number; eventType?: string },
): Promise<{ id: number; route_key: string }> {
  const sequence = fold(sequenceDecider, (await ctx.store.readStream(sequenceStream(input.sequenceId))) as never);
  const id = input.id ?? (await allocateId(ctx.store, TRIGGER_COUNTER, ctx.metadata));
  // An event trigger has no catch URL: no route key is claimed for it.
  const routeKey = input.eventType === undefined ? newRouteKey() : '';
  if (input.eventType === undefined) await claimRouteKey(ctx, routeKey, id);
  await handleCommand(ctx, triggerStream(id), triggerDecider, {
    type: 'CreateTrigger',
    ...input,
    id,
    sequenceOrganizationId: sequence.status === 'none' ? null : sequence.organizationId,
    key: input.key ?? null,
    enabled: input.enabled ?? true,
    routeKey,
    now: ctx.metadata.occurred_at,
  });
  return { id, route_key: routeKey };
}

/** Rotates the trigger's URL: the old route key stops matching the trigger's state at once. */
export async function replaceTrigger(ctx: CommandContext, id: number, organizationId?: string): Promise<{ id: number; route_key: string }> {
  const state = await loadTrigger(ctx, id);
  if (state.status === 'none' || (organizationId !== undefined && state.organizationId !== organizationId)) throw notFound('Trigger');
  if (state.triggerType === 'event') throw conflict('event_trigger', 'An event trigger has no catch URL to replace.');
  const routeKey = newRouteKey();
  await claimRouteKey(ctx, routeKey, id);
  await handleCommand(ctx, triggerStream(id), triggerDecider, { type: 'ReplaceTrigger', routeKey, now: ctx.metadata.occurred_at });
  return { id, route_key: routeKey };
}

export async function setTriggerEnabled(ctx: CommandContext, id: number, enabled: boolean): Promise<void> {
  await handleCommand(ctx, triggerStream(id), triggerDecider, { type: 'SetTriggerEnabled', enabled, now: ctx.metadata.occurred_at });
}

/** The sequence of this id, or null when its stream is empty. */
export async function loadSequence(ctx: Pick<CommandContext, 'store'>, id: number): Promise<Exclude<SequenceState, { status: 'none' }> | null> {
  const state = fold(sequenceDecider, (await ctx.store.readStream(sequenceStream(id))) as never);
  return state.status === 'none' ? null : state;
}

export async function loadTrigger(ctx: Pick<CommandContext, 'store'>, id: number): Promise<TriggerState> {
  return fold(triggerDecider, (await ctx.store.readStream(triggerStream(id))) as never);
}

async function claimRouteKey(ctx: CommandContext, routeKey: string, triggerId: number): Promise<void> {
  await ctx.store.append(
    triggerKeyStream(routeKey),
    [toNewEvent({ type: 'TriggerRouteKeyClaimed', data: { trigger_id: triggerId } }, ctx.metadata)],
    'no_stream',
  );
}
