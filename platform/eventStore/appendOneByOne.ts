import type { AppendResult, EventStore, StreamAppend } from './eventStore.ts';

/**
 * appendMany for a store without transactions across streams (EventStoreDB): one append per
 * stream, in the given order, stopping at the first failure. What was appended before it stays;
 * each append is still idempotent by event id, so retrying the same appends is safe.
 */
export async function appendOneByOne(store: Pick<EventStore, 'append'>, appends: readonly StreamAppend[]): Promise<AppendResult[]> {
  const results: AppendResult[] = [];
  for (const { stream, events, expected } of appends) results.push(await store.append(stream, events, expected));
  return results;
}
