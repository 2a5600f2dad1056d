import { type EventMetadata, type EventStore, WrongExpectedRevisionError } from '../../platform/eventStore/index.ts';
import { timeOrderedUuid } from '../../platform/es/index.ts';

/**
 * Workflow ids are reserved in blocks: one WorkflowIdsReserved event on this stream per BLOCK
 * workflows, appended with the expected revision, so processes sharing a store never hand out the
 * same id, and a busy catch URL pays one extra append per BLOCK webhooks instead of one each.
 * The ids are carried in the reception events, so they are the same in a copy of the log (which
 * copies this stream too, and so goes on after the last block).
 */
export const WORKFLOW_IDS_STREAM = 'counter-automation_workflow_ids';
const BLOCK = 100;

type Known = { revision: number; last: number };
type Pool = { next: number; last: number; known: Known | null; reserving: Promise<void> | null };
const pools = new WeakMap<EventStore, Pool>();

/**
 * The next workflow id: unique in the store, increasing within a process (several processes take
 * interleaved blocks), far below 2^53. Ids left in a block when a process stops are skipped.
 */
export async function nextWorkflowId(store: EventStore, metadata: EventMetadata): Promise<number> {
  let pool = pools.get(store);
  if (!pool) {
    pool = { next: 1, last: 0, known: null, reserving: null };
    pools.set(store, pool);
  }
  while (pool.next > pool.last) {
    const p = pool;
    // Callers waiting together share one reservation.
    p.reserving ??= reserve(store, p, metadata).finally(() => (p.reserving = null));
    await p.reserving;
  }
  return pool.next++;
}

async function reserve(store: EventStore, pool: Pool, metadata: EventMetadata): Promise<void> {
  let known = pool.known;
  for (let attempt = 0; attempt < 50; attempt++) {
    known ??= await lastReserved(store);
    const first = known.last + 1;
    const last = first + BLOCK - 1;
    try {
      const event = { id: timeOrderedUuid(), type: 'WorkflowIdsReserved', data: { first, last }, metadata };
      const { revision } = await store.append(WORKFLOW_IDS_STREAM, [event], known.revision === -1 ? 'no_stream' : known.revision);
      pool.known = { revision, last };
      pool.next = first;
      pool.last = last;
      return;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      known = null; // another process reserved meanwhile
    }
  }
  throw new Error('could not reserve workflow ids: too much contention');
}

/**
 * The last id reserved. Before the first reservation, workflow ids were the log positions of
 * their WorkflowStarted events, so the first block starts above the head of the log: no new id
 * can be an old one.
 */
async function lastReserved(store: EventStore): Promise<Known> {
  const events = await store.readStream(WORKFLOW_IDS_STREAM);
  const tail = events[events.length - 1];
  if (tail) return { revision: tail.revision, last: (tail.data as { last: number }).last };
  return { revision: -1, last: (await store.headPosition()) ?? 0 };
}
