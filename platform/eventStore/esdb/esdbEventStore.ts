import {
  BACKWARDS,
  END,
  EventStoreDBClient,
  FORWARDS,
  START,
  type AllStreamResolvedEvent,
  type Position,
  type ResolvedEvent,
} from '@eventstore/db-client';
import type {
  AppendResult,
  EventStore,
  ReadAllOptions,
  RecordedEvent,
  SubscribeOptions,
  Subscription,
  SubscriptionHandler,
} from '../eventStore.ts';
import { appendOneByOne } from '../appendOneByOne.ts';
import {
  fromAppendResult,
  fromGlobalPosition,
  isInvalidPosition,
  isStreamNotFound,
  isWrongExpectedVersion,
  matchesPrefixes,
  serverVersionProblem,
  toEsdbExpectedRevision,
  toEventData,
  toPortError,
  toGlobalPosition,
  toRecordedEvent,
  toSubscriptionFilter,
  toWrongExpectedRevision,
} from './esdbMapping.ts';

/**
 * Event store on EventStoreDB / KurrentDB (production profile). A thin adapter: EventStoreDB does
 * the optimistic concurrency, the idempotent appends (our event ids) and the ordering; the
 * translations live in esdbMapping.ts. Given a connection string, the adapter owns the client and
 * disposes it on close; given a client, the caller does.
 */
export function openEsdbEventStore(clientOrUrl: EventStoreDBClient | string): EventStore {
  const owned = typeof clientOrUrl === 'string';
  const client = owned ? EventStoreDBClient.connectionString(clientOrUrl) : clientOrUrl;
  const subscriptions = new Set<Subscription>();
  let serverAccepted = false;

  /**
   * Refuses a server version known to make subscriptions skip events. Asked again after a refusal
   * (the client asks the server once per connection), so an upgraded server is taken without a restart.
   */
  async function checkServer(): Promise<void> {
    if (serverAccepted) return;
    // `capabilities` is the client's own memoised ServerFeatures call (protected in its types).
    const features = (client as unknown as { capabilities?: Promise<{ serverVersion: string }> }).capabilities;
    if (features) {
      let version: string;
      try {
        version = (await features).serverVersion;
      } catch (error) {
        throw toPortError(error);
      }
      const problem = serverVersionProblem(version);
      if (problem) throw new UnsupportedServerError(problem);
    }
    serverAccepted = true;
  }

  /** The position of one stream event: a point read, for appends whose result does not name it. */
  async function positionOfRevision(stream: string, revision: bigint): Promise<number> {
    for await (const resolved of client.readStream(stream, { fromRevision: revision, maxCount: 1, direction: FORWARDS })) {
      const recorded = toRecordedEvent(resolved.event);
      if (recorded) return recorded.position;
    }
    throw new Error(`event ${revision} of ${stream} was appended but cannot be read back`);
  }

  async function readAll({ after, from, limit, streamPrefixes }: ReadAllOptions): Promise<RecordedEvent[]> {
    const out: RecordedEvent[] = [];
    if (limit <= 0) return out;
    // Reading from a position is inclusive: from `after` the event there comes first and is
    // skipped. The client's readAll has no server-side filter: system events and other prefixes
    // are skipped here, and pages are read on until `limit` events of ours are found.
    let start: Position | typeof START = from !== undefined ? fromGlobalPosition(from) : after === null ? START : fromGlobalPosition(after);
    let skipThrough: Position | null = from === undefined && after !== null ? fromGlobalPosition(after) : null;
    const pageSize = Math.min(Math.max(limit + 1, READ_PAGE_MIN), READ_PAGE_MAX);
    for (;;) {
      const read = client.readAll({ fromPosition: start, direction: FORWARDS, resolveLinkTos: false, maxCount: pageSize });
      let records = 0;
      let lastRecord: Position | null = null;
      try {
        for await (const resolved of read as AsyncIterable<AllStreamResolvedEvent>) {
          records += 1;
          const position = resolved.event?.position ?? resolved.link?.position;
          if (position) {
            if (skipThrough && !isAfter(position, skipThrough)) continue;
            lastRecord = position;
          }
          const event = toRecordedEvent(resolved.event);
          if (!event || !matchesPrefixes(event.stream, streamPrefixes)) continue;
          out.push(event);
          if (out.length >= limit) break;
        }
      } catch (error) {
        // `from` names a position no record starts at (an id that never was a position).
        if (from !== undefined && isInvalidPosition(error)) return out;
        throw toPortError(error);
      } finally {
        await stopReading(read);
      }
      if (out.length >= limit || records < pageSize || lastRecord === null) return out;
      start = lastRecord;
      skipThrough = lastRecord;
    }
  }

  function subscribe(handler: SubscriptionHandler, options: SubscribeOptions): Subscription {
    const batchSize = options.batchSize ?? 500;
    const prefixes = options.streamPrefixes;
    const onCheckpoint = options.onCheckpoint;
    let batch: RecordedEvent[] = [];
    /** The last event taken from the source, and the position up to which the caller has everything. */
    let last = options.after;
    let covered = options.after;
    /** A checkpoint the server sent that is not passed on yet, and whether a handler call is under way. */
    let reached: number | null = null;
    let busy = false;
    let stopped = false;
    let checked = false;

    /** Passes the server's checkpoint on once every event before it has gone to the handler. */
    const passCheckpoint = async () => {
      if (stopped || !checked || reached === null || !onCheckpoint || busy || batch.length > 0 || source.readableLength > 0) return;
      const position = reached;
      reached = null;
      if (covered !== null && position <= covered) return;
      busy = true;
      try {
        await onCheckpoint(position);
        covered = position;
      } finally {
        busy = false;
      }
    };

    // Subscribing from a position is exclusive: delivery starts after the checkpoint. The
    // stream's buffer holds a whole batch: the client's default (16 objects) would end a catch-up
    // batch after a few dozen events, since a batch takes what has already arrived.
    const source = client.subscribeToAll(
      {
        fromPosition: options.after === null ? START : fromGlobalPosition(options.after),
        resolveLinkTos: false,
        filter: toSubscriptionFilter(prefixes, {
          onCheckpoint: async (position) => {
            reached = Math.max(reached ?? 0, position);
            await passCheckpoint();
          },
          // Ends the subscription with it, as a failing handler does.
          onError: (error) => source.destroy(error instanceof Error ? error : new Error(String(error))),
        }),
      },
      { highWaterMark: Math.max(batchSize, 16) },
    );

    const run = async () => {
      try {
        // Nothing is delivered, and no checkpoint passed on, before the server's version passed.
        await checkServer();
        checked = true;
        await passCheckpoint();
        for await (const resolved of source as AsyncIterable<AllStreamResolvedEvent>) {
          if (stopped) break;
          const event = toRecordedEvent(resolved.event);
          if (event && (last === null || event.position > last) && matchesPrefixes(event.stream, prefixes)) {
            batch.push(event);
            last = event.position;
          }
          // Batch what has already arrived (catch-up); deliver at once when nothing more is waiting (live).
          if (batch.length > 0 && (batch.length >= batchSize || source.readableLength === 0)) {
            const delivering = batch;
            batch = [];
            busy = true;
            try {
              await handler(delivering);
            } finally {
              busy = false;
            }
            covered = delivering[delivering.length - 1]!.position;
          }
          await passCheckpoint();
        }
      } catch (error) {
        // Cancelling the call on stop() may surface as a premature close: that is our own doing.
        if (!stopped) throw toPortError(error);
      } finally {
        await source.unsubscribe().catch(() => undefined);
        source.destroy();
      }
    };
    const done = run();
    done.catch(() => undefined);
    const subscription: Subscription = {
      done,
      async stop() {
        stopped = true;
        await source.unsubscribe().catch(() => undefined);
        source.destroy();
        await done.catch(() => undefined);
        subscriptions.delete(subscription);
      },
    };
    subscriptions.add(subscription);
    return subscription;
  }

  /** The first position `pick` finds reading `$all` backwards from its end. */
  async function lastPosition(pick: (resolved: AllStreamResolvedEvent) => number | null, maxCount?: number): Promise<number | null> {
    const read = client.readAll({ fromPosition: END, direction: BACKWARDS, resolveLinkTos: false, ...(maxCount ? { maxCount } : {}) });
    try {
      for await (const resolved of read as AsyncIterable<AllStreamResolvedEvent>) {
        const position = pick(resolved);
        if (position !== null) return position;
      }
    } catch (error) {
      throw toPortError(error);
    } finally {
      await stopReading(read);
    }
    return null;
  }

  const store: EventStore = {
    // No transaction spans streams on EventStoreDB: one stream after the other (see the port).
    atomicAppendMany: false,
    appendMany: (appends) => appendOneByOne(store, appends),

    async append(stream, events, expected): Promise<AppendResult> {
      if (events.length === 0) throw new Error('append needs at least one event');
      let result;
      try {
        result = await client.appendToStream(stream, events.map(toEventData), {
          expectedRevision: toEsdbExpectedRevision(expected),
        });
      } catch (error) {
        if (isWrongExpectedVersion(error)) throw toWrongExpectedRevision(error, stream, expected);
        throw toPortError(error);
      }
      const { revision, position: named } = fromAppendResult(result, events.length, stream, expected);
      let position = named;
      if (position === null) {
        // Several events, or an idempotent replay: read the last one's position back. The events
        // are written; a failure here is "not now" (503), and a retry decides again on the
        // stream that holds them.
        try {
          position = await positionOfRevision(stream, result.nextExpectedRevision);
        } catch (error) {
          throw toPortError(error);
        }
      }
      return { revision, position };
    },

    async readStream(stream) {
      const out: RecordedEvent[] = [];
      try {
        for await (const resolved of client.readStream(stream, { fromRevision: START, direction: FORWARDS }) as AsyncIterable<ResolvedEvent>) {
          const event = toRecordedEvent(resolved.event);
          if (event) out.push(event);
        }
      } catch (error) {
        if (isStreamNotFound(error)) return [];
        throw toPortError(error);
      }
      return out;
    },

    async readEvent(stream, revision) {
      if (!Number.isSafeInteger(revision) || revision < 0) return null;
      try {
        for await (const resolved of client.readStream(stream, { fromRevision: BigInt(revision), direction: FORWARDS, maxCount: 1 }) as AsyncIterable<ResolvedEvent>) {
          const event = toRecordedEvent(resolved.event);
          return event && event.revision === revision ? event : null;
        }
      } catch (error) {
        if (isStreamNotFound(error)) return null;
        throw toPortError(error);
      }
      return null;
    },

    readAll,

    // Backwards from the end, past the system events the server writes on its own (stats).
    headPosition: () => lastPosition((resolved) => toRecordedEvent(resolved.event)?.position ?? null),

    // The last record of any stream: a filtered subscription's checkpoints may name the
    // server's own records past our last event.
    endPosition: () =>
      lastPosition((resolved) => {
        const position = resolved.event?.position ?? resolved.link?.position;
        return position ? toGlobalPosition(position) : null;
      }, 1),

    subscribe,

    async close() {
      await Promise.all([...subscriptions].map((s) => s.stop()));
      if (owned) await client.dispose();
    },
  };
  return store;
}

/** A readAll's page: enough for the caller's limit plus the `after` event, within bounds. */
const READ_PAGE_MIN = 100;
const READ_PAGE_MAX = 4096;

/** Whether `a` comes after `b` in `$all`. */
function isAfter(a: Position, b: Position): boolean {
  return a.commit > b.commit || (a.commit === b.commit && a.prepare > b.prepare);
}

/** The server refuses a version known to lose events (serverVersionProblem). */
export class UnsupportedServerError extends Error {
  override readonly name = 'UnsupportedServerError';
}

/** Leaving a read early: destroying the stream alone would leave its gRPC call open. */
async function stopReading(read: { cancel(): Promise<void>; destroy(): unknown }): Promise<void> {
  await read.cancel().catch(() => undefined);
  read.destroy();
}
