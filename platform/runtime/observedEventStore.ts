import type { EventStore } from '../eventStore/eventStore.ts';
import { noteAppended } from '../lib/appendTracker.ts';
import type { Metrics } from './metrics.ts';

/**
 * A decorator over any event store adapter: counts the events each successful append wrote, and
 * tells `onAppended` (the server's subscriber thread, which then looks for them at once), and
 * tells the request under way the position it reached (read-your-writes, platform/lib/appendTracker.ts).
 * It wraps the port, so it works the same on SQLite and EventStoreDB.
 */
export function observeEventStore(store: EventStore, metrics: Metrics, onAppended: () => void = () => undefined): EventStore {
  return {
    async append(stream, events, expected) {
      const result = await store.append(stream, events, expected);
      metrics.eventsAppended(events.map((e) => e.type));
      noteAppended(result.position);
      onAppended();
      return result;
    },
    atomicAppendMany: store.atomicAppendMany,
    async appendMany(appends) {
      const results = await store.appendMany(appends);
      metrics.eventsAppended(appends.flatMap((a) => a.events.map((e) => e.type)));
      for (const r of results) noteAppended(r.position);
      onAppended();
      return results;
    },
    readStream: (stream) => store.readStream(stream),
    readEvent: (stream, revision) => store.readEvent(stream, revision),
    readAll: (options) => store.readAll(options),
    headPosition: () => store.headPosition(),
    ...(store.endPosition ? { endPosition: () => store.endPosition!() } : {}),
    subscribe: (handler, options) => store.subscribe(handler, options),
    ...(store.wake ? { wake: () => store.wake!() } : {}),
    close: () => store.close(),
  };
}
