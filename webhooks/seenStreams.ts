import type { EventStore, RecordedEvent } from '../platform/eventStore/eventStore.ts';

/** The streams a sale's webhook is built from (eventObject folds them): short, read once per sale. */
const KEPT_PREFIXES = ['checkout_session-', 'invoice-'] as const;
/** About two thousand sales in flight (their session and invoice streams). */
const MAX_STREAMS = 2_000;

/**
 * The checkout session and invoice streams as the fan-out's subscription has delivered them, so
 * building a sale's webhook reads none of them again. The subscription delivers every event of
 * these streams in log order, so a stream it has seen from its first event (revision 0) is held
 * whole up to the batch in hand, which is all a webhook of that batch may fold. A stream seen
 * from a later revision (begun before this process started), or dropped to keep the bound, is
 * read from the store as before.
 */
export class SeenStreams {
  private readonly streams = new Map<string, RecordedEvent[]>();

  /** Called with each batch before its events are announced. */
  see(events: readonly RecordedEvent[]): void {
    for (const event of events) {
      if (!KEPT_PREFIXES.some((p) => event.stream.startsWith(p))) continue;
      const held = this.streams.get(event.stream);
      if (!held) {
        if (event.revision !== 0) continue;
        if (this.streams.size >= MAX_STREAMS) this.streams.delete(this.streams.keys().next().value!);
        this.streams.set(event.stream, [event]);
        continue;
      }
      const last = held[held.length - 1]!.revision;
      // A batch handled again (after a failure) repeats what is held.
      if (event.revision <= last) continue;
      if (event.revision !== last + 1) {
        this.streams.delete(event.stream);
        continue;
      }
      held.push(event);
      // Most recently appended last: the bound drops the streams of sales long done.
      this.streams.delete(event.stream);
      this.streams.set(event.stream, held);
    }
  }

  /** The store, with reads of the streams held answered from memory. */
  over(store: Pick<EventStore, 'readStream' | 'readAll'>): Pick<EventStore, 'readStream' | 'readAll'> {
    return {
      readStream: (stream) => {
        const held = this.streams.get(stream);
        return held ? Promise.resolve(held.slice()) : store.readStream(stream);
      },
      readAll: (options) => store.readAll(options),
    };
  }
}
