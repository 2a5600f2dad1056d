import {
  WrongExpectedRevisionError,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
  type StreamAppend,
} from '../eventStore/eventStore.ts';
import { appendOneByOne } from '../eventStore/appendOneByOne.ts';

/** What a staged store holds: every append the commands made, kept back. */
export type StagedAppends = {
  /** An event store the commands run against: reads see the staged appends, appends are kept back. */
  store: EventStore;
  /**
   * One append per stream the commands appended to, in the order each stream was first appended
   * to, each expecting the revision the stream had when first read: written by `appendMany`,
   * they fail with WrongExpectedRevisionError if another writer moved any of them meanwhile.
   */
  appends(): StreamAppend[];
};

type Entry = { base: RecordedEvent[]; staged: NewEvent[] };

/**
 * Runs commands without writing: the unit of work of a multi-stream change (an import). The
 * commands read and decide as usual (handleCommand, claims, id allocation), on each stream as
 * first read plus what they staged on it; nothing reaches `base` until the caller writes
 * `appends()` at once. Each stream is read from `base` once, so the decisions all see one state
 * of it. Positions of staged events are not known yet (-1); readAll, headPosition and subscribe
 * see `base` alone.
 */
export function stageAppends(base: EventStore): StagedAppends {
  const entries = new Map<string, Promise<Entry>>();
  const order: string[] = [];
  const settled = new Map<string, Entry>();

  function load(stream: string): Promise<Entry> {
    let entry = entries.get(stream);
    if (!entry) {
      entry = base.readStream(stream).then((events) => {
        const loaded = { base: events, staged: [] };
        settled.set(stream, loaded);
        return loaded;
      });
      entries.set(stream, entry);
      // A failed read is not kept: the next read tries again.
      entry.catch(() => entries.delete(stream));
    }
    return entry;
  }

  const baseRevision = (entry: Entry) => (entry.base.length === 0 ? -1 : entry.base[entry.base.length - 1]!.revision);
  const currentRevision = (entry: Entry) => baseRevision(entry) + entry.staged.length;

  async function append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const entry = await load(stream);
    const current = currentRevision(entry);
    const matches = expected === 'any' || (expected === 'no_stream' ? current === -1 : expected === current);
    if (!matches) throw new WrongExpectedRevisionError(stream, expected, current === -1 ? null : current);
    if (entry.staged.length === 0) order.push(stream);
    entry.staged.push(...events);
    return { revision: current + events.length, position: -1 };
  }

  const store: EventStore = {
    atomicAppendMany: true,
    append,
    appendMany: (appends) => appendOneByOne({ append }, appends),
    async readStream(stream) {
      const entry = await load(stream);
      if (entry.staged.length === 0) return entry.base;
      const from = baseRevision(entry) + 1;
      return [...entry.base, ...entry.staged.map((event, i): RecordedEvent => ({ ...event, stream, revision: from + i, position: -1 }))];
    },
    async readEvent(stream, revision) {
      return (await store.readStream(stream))[revision] ?? null;
    },
    readAll: (options) => base.readAll(options),
    headPosition: () => base.headPosition(),
    subscribe: (handler, options) => base.subscribe(handler, options),
    // The base store belongs to the caller.
    close: async () => undefined,
  };

  return {
    store,
    appends: () =>
      order.map((stream) => {
        const entry = settled.get(stream)!;
        const revision = baseRevision(entry);
        return { stream, events: [...entry.staged], expected: revision === -1 ? 'no_stream' : revision };
      }),
  };
}
