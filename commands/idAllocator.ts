import { randomUUID } from 'node:crypto';
import { WrongExpectedRevisionError, type EventMetadata, type EventStore } from './eventStore.ts';

/**
 * Allocates the integer ids the API shows (Sqid route keys, trigger and workflow ids, invoice
 * numbers) through the event store itself: each id is one event on a counter stream, appended
 * with the expected revision, so several processes on one store never hand out the same id.
 * The id is the event's revision + 1 (ids start at 1).
 */
export async function allocateId(store: EventStore, counter: string, metadata: EventMetadata): Promise<number> {
  const stream = `counter-${counter}`;
  const cache = lastKnown.get(store) ?? new Map<string, number>();
  lastKnown.set(store, cache);
  // The last revision this process saw is a good guess; a wrong one costs one retry.
  let known = cache.get(stream) ?? (await lastRevision(store, stream));
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      const { revision } = await store.append(
        stream,
        [{ id: randomUUID(), type: 'IdAllocated', data: { id: known + 2 }, metadata }],
        known === -1 ? 'no_stream' : known,
      );
      cache.set(stream, revision);
      return revision + 1;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      known = error.actual ?? -1;
    }
  }
  throw new Error(`could not allocate an id on ${stream}: too much contention`);
}

const lastKnown = new WeakMap<EventStore, Map<string, number>>();

async function lastRevision(store: EventStore, stream: string): Promise<number> {
  const events = await store.readStream(stream);
  return events.length === 0 ? -1 : events[events.length - 1]!.revision;
}
