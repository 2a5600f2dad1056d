import { customAlphabet } from 'nanoid';
import { fold, notFound } from '../../platform/domain/index.ts';
import type { EventStore } from '../../platform/eventStore/index.ts';
import { handleCommand, type CommandContext } from '../../platform/es/index.ts';
import { testClockDecider, testClockStream, type TestClockState } from './domain/testClock.ts';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 24 of 62 symbols, as session ids: a clock id says nothing of how many clocks there are. */
export const newTestClockId = customAlphabet(alphabet, 24);

export type KnownTestClock = Exclude<TestClockState, { status: 'none' }>;

/** The time a subscription lives in: its test clock's frozen time (a deleted clock's last), else `fallback`. */
export async function timeOnClock(store: Pick<EventStore, 'readStream'>, clockId: string | null, fallback: number): Promise<number> {
  if (!clockId) return fallback;
  const clock = fold(testClockDecider, (await store.readStream(testClockStream(clockId))) as never);
  return clock.status === 'none' ? fallback : clock.frozen_time;
}

/** The clock as its stream says; null when unknown. Deleted clocks are returned as such. */
export async function loadTestClock(ctx: Pick<CommandContext, 'store'>, id: string): Promise<KnownTestClock | null> {
  const state = fold(testClockDecider, (await ctx.store.readStream(testClockStream(id))) as never);
  return state.status === 'none' ? null : state;
}

export async function createTestClock(ctx: CommandContext, input: { organizationId: string; name: string | null; frozenTime: number }) {
  const id = `clock_${newTestClockId()}`;
  const result = await handleCommand(ctx, testClockStream(id), testClockDecider, {
    type: 'CreateTestClock',
    id,
    organizationId: input.organizationId,
    name: input.name,
    frozenTime: input.frozenTime,
    now: ctx.metadata.occurred_at,
  });
  return result.state as KnownTestClock;
}

/** Runs a command on a clock of the organization; another organization's answers as unknown. */
async function onOwnClock(ctx: CommandContext, organizationId: string, id: string, command: Parameters<typeof testClockDecider.decide>[0]) {
  const stream = testClockStream(id);
  const events = await ctx.store.readStream(stream);
  const state = fold(testClockDecider, events as never);
  if (state.status === 'none' || state.organization_id !== organizationId) throw notFound('Test clock');
  const result = await handleCommand(ctx, stream, testClockDecider, command, { known: events });
  return result.state as KnownTestClock;
}

/** Moves the clock forward; the advance job then makes what fell due happen and marks it ready. */
export const advanceTestClock = (ctx: CommandContext, organizationId: string, id: string, frozenTime: number) =>
  onOwnClock(ctx, organizationId, id, { type: 'AdvanceTestClock', frozenTime, now: ctx.metadata.occurred_at });

export const deleteTestClock = (ctx: CommandContext, organizationId: string, id: string) =>
  onOwnClock(ctx, organizationId, id, { type: 'DeleteTestClock', now: ctx.metadata.occurred_at });

/** Records that everything due up to the clock's time happened; a no-op unless it is advancing. */
export async function finishTestClockAdvance(ctx: CommandContext, id: string) {
  const result = await handleCommand(ctx, testClockStream(id), testClockDecider, { type: 'FinishAdvance', now: ctx.metadata.occurred_at });
  return { finished: result.events.length > 0 };
}
