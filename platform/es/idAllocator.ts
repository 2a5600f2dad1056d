import { timeOrderedUuid } from './timeOrderedUuid.ts';
import { WrongExpectedRevisionError, type EventMetadata, type EventStore } from '../eventStore/eventStore.ts';

type Waiter = { metadata: EventMetadata; subject: string | undefined; resolve: (id: number) => void; reject: (error: unknown) => void };
type Counter = { known: number | null; waiting: Waiter[]; running: boolean };

/**
 * Allocates the integer ids the API shows (Sqid route keys, trigger ids, invoice numbers) as
 * events on a counter stream, appended with the expected revision, so processes sharing a store
 * never hand out the same id: the id is the event's revision + 1. Workflow ids are reserved in
 * blocks instead (modules/automation/workflowIds.ts).
 *
 * Whoever of this process waits when an append starts gets one event in it: a burst of N callers
 * costs one append, not N rounds of conflicts that would exhaust the retries.
 *
 * `subject` names the stream the id is for, so a command addressed by route key finds its stream
 * in the log alone (allocatedStream), not in a read model that may lag.
 */
export function allocateId(store: EventStore, counter: string, metadata: EventMetadata, subject?: string): Promise<number> {
  const stream = `counter-${counter}`;
  const counters = state.get(store) ?? new Map<string, Counter>();
  state.set(store, counters);
  let entry = counters.get(stream);
  if (!entry) {
    entry = { known: null, waiting: [], running: false };
    counters.set(stream, entry);
  }
  const c = entry;
  return new Promise<number>((resolve, reject) => {
    c.waiting.push({ metadata, subject, resolve, reject });
    if (!c.running) void drain(store, stream, c);
  });
}

async function drain(store: EventStore, stream: string, c: Counter): Promise<void> {
  c.running = true;
  try {
    while (c.waiting.length > 0) {
      const group = c.waiting.splice(0, 1000);
      try {
        const first = await appendGroup(store, stream, c, group);
        group.forEach((w, i) => w.resolve(first + i));
      } catch (error) {
        for (const w of group) w.reject(error);
      }
    }
  } finally {
    c.running = false;
  }
}

/** Appends one IdAllocated event per waiter; returns the first id. Retries only on another process's append. */
async function appendGroup(store: EventStore, stream: string, c: Counter, group: Waiter[]): Promise<number> {
  // The last revision this process saw is a good guess, and a new counter the first one: a wrong
  // guess costs one failed append, whose conflict names the stream's revision. Reading the stream
  // instead would read every id ever allocated (an invoice counter's millions).
  let known = c.known ?? -1;
  for (let attempt = 0; attempt < 50; attempt++) {
    try {
      const events = group.map((w, i) => ({ id: timeOrderedUuid(), type: 'IdAllocated', data: { id: known + 2 + i, ...(w.subject ? { stream: w.subject } : {}) }, metadata: w.metadata }));
      const { revision } = await store.append(stream, events, known === -1 ? 'no_stream' : known);
      c.known = revision;
      return revision - group.length + 2;
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      // An adapter that cannot name the revision of a stream that exists: read it once.
      known = error.actual ?? (known === -1 ? await lastRevision(store, stream) : -1);
    }
  }
  throw new Error(`could not allocate an id on ${stream}: too much contention`);
}

const state = new WeakMap<EventStore, Map<string, Counter>>();

async function lastRevision(store: EventStore, stream: string): Promise<number> {
  const events = await store.readStream(stream);
  return events.length === 0 ? -1 : events[events.length - 1]!.revision;
}

/**
 * The stream an id of `counter` was allocated for, from the counter's own event (null for an id
 * not allocated, or allocated without naming its stream).
 */
export async function allocatedStream(store: EventStore, counter: string, id: number): Promise<string | null> {
  if (!Number.isSafeInteger(id) || id < 1) return null;
  const event = await store.readEvent(`counter-${counter}`, id - 1);
  const stream = (event?.data as { stream?: unknown } | undefined)?.stream;
  return typeof stream === 'string' ? stream : null;
}
