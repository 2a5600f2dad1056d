import {
  BACKWARDS,
  END,
  START,
  StreamNotFoundError,
  UnavailableError,
  convertToCommandError,
  type AllStreamResolvedEvent,
  type AppendResult,
  type EventStoreDBClient,
  type Filter,
  type Position,
  type ReadAllOptions,
  type ResolvedEvent,
} from '@eventstore/db-client';
import { Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { StoreUnavailableError, WrongExpectedRevisionError, type NewEvent } from '../../../platform/eventStore/eventStore.ts';
import { UnsupportedServerError, openEsdbEventStore } from '../../../platform/eventStore/esdb/esdbEventStore.ts';

/**
 * The adapter's own control flow around the client, with a stand-in for the two client calls an
 * append makes (the client's own result type and error classes; no server).
 */
function fakeClient(append: () => Promise<AppendResult>, readStream: () => AsyncIterable<ResolvedEvent>): EventStoreDBClient {
  return { appendToStream: append, readStream } as unknown as EventStoreDBClient;
}

const event = (): NewEvent => ({
  id: '0b6d3f0e-8a43-4b39-9a8c-0f4a5b9f8f11',
  type: 'Happened',
  data: {},
  metadata: { correlation_id: 'r', actor: { type: 'cli' }, organization_id: null, occurred_at: 1 },
});

describe('EventStoreDB adapter (no server)', () => {
  it('an append whose position read-back finds the server gone fails as StoreUnavailableError (503), not a 500', async () => {
    const store = openEsdbEventStore(
      fakeClient(
        async () => ({ success: true, nextExpectedRevision: 1n, position: undefined }),
        async function* () {
          throw new UnavailableError();
        },
      ),
    );
    await expect(store.append('s-1', [event(), { ...event(), id: '1b6d3f0e-8a43-4b39-9a8c-0f4a5b9f8f11' }], 'no_stream')).rejects.toBeInstanceOf(
      StoreUnavailableError,
    );
  });

  it('readEvent reads one event from its revision, null for a missing stream or revision, 503 when the server is gone', async () => {
    let options: { fromRevision?: bigint; maxCount?: number } | undefined;
    const stored: ResolvedEvent = {
      event: {
        streamId: 'product-1',
        id: '6f1c3a52-54a4-4c2e-9d27-9c1f0d9d7a10',
        revision: 3n,
        type: 'ProductPublished',
        created: new Date(0),
        data: { at: 1 },
        metadata: event().metadata,
        isJson: true,
        position: { commit: 8192n, prepare: 8192n },
      },
    } as ResolvedEvent;
    const found = openEsdbEventStore({
      readStream: (_stream: string, o: typeof options) => {
        options = o;
        return (async function* () {
          yield stored;
        })();
      },
    } as unknown as EventStoreDBClient);
    expect(await found.readEvent('product-1', 3)).toMatchObject({ stream: 'product-1', revision: 3, position: 8192, type: 'ProductPublished' });
    expect(options).toMatchObject({ fromRevision: 3n, maxCount: 1 });
    // The stream ends before the revision asked for: the server starts from the next one there is, if any.
    expect(await found.readEvent('product-1', 2)).toBeNull();
    const missing = openEsdbEventStore(fakeClient(async () => ({ success: true, nextExpectedRevision: 0n, position: undefined }), async function* () {
      throw new StreamNotFoundError();
    }));
    expect(await missing.readEvent('product-2', 0)).toBeNull();
    const gone = openEsdbEventStore(fakeClient(async () => ({ success: true, nextExpectedRevision: 0n, position: undefined }), async function* () {
      throw new UnavailableError();
    }));
    await expect(gone.readEvent('product-1', 0)).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('an unsuccessful append result (throwOnAppendFailure=false in the connection string) is a conflict', async () => {
    let reads = 0;
    const store = openEsdbEventStore(
      fakeClient(
        async () => ({ success: false, nextExpectedRevision: 3n, position: undefined }),
        async function* () {
          reads += 1;
        },
      ),
    );
    const append = store.append('s-1', [event()], 1);
    await expect(append).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    await expect(append).rejects.toMatchObject({ stream: 's-1', expected: 1, actual: null });
    expect(reads).toBe(0);
  });

  it('appendMany (no transaction across streams) appends stream after stream in the given order and stops at the first refusal', async () => {
    const calls: string[] = [];
    const client = {
      appendToStream: async (stream: string) => {
        calls.push(stream);
        if (stream === 's-2') return { success: false, nextExpectedRevision: 0n, position: undefined };
        return { success: true, nextExpectedRevision: 0n, position: { commit: 10n, prepare: 10n } };
      },
    } as unknown as EventStoreDBClient;
    const store = openEsdbEventStore(client);
    expect(store.atomicAppendMany).toBe(false);
    const appends = ['s-1', 's-2', 's-3'].map((stream) => ({ stream, events: [event()], expected: 'no_stream' as const }));
    await expect(store.appendMany(appends)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect(calls).toEqual(['s-1', 's-2']);
  });

  it("a subscription the server drops ends with StoreUnavailableError, as the adapter's other calls do", async () => {
    const source = Object.assign(
      new Readable({
        objectMode: true,
        read() {
          this.destroy(new UnavailableError());
        },
      }),
      { unsubscribe: async () => undefined },
    );
    const client = { subscribeToAll: () => source } as unknown as EventStoreDBClient;
    const sub = openEsdbEventStore(client).subscribe(async () => undefined, { after: null });
    await expect(sub.done).rejects.toBeInstanceOf(StoreUnavailableError);
  });

  it('passes the server\'s checkpoints of a filtered subscription on, each once every event before it has been handled', async () => {
    const source = Object.assign(new Readable({ objectMode: true, read() {} }), { unsubscribe: async () => undefined });
    let filter: Filter | undefined;
    const client = {
      subscribeToAll: (options: { filter: Filter }) => {
        filter = options.filter;
        return source;
      },
    } as unknown as EventStoreDBClient;
    const seen: string[] = [];
    let release!: () => void;
    const handling = new Promise<void>((resolve) => (release = resolve));
    const sub = openEsdbEventStore(client).subscribe(
      async (events) => {
        seen.push(`events ${events.map((e) => e.position).join(',')}`);
        await handling;
      },
      { after: null, streamPrefixes: ['automation_webhook-'], onCheckpoint: async (position) => void seen.push(`checkpoint ${position}`) },
    );
    // A client event as its Subscription yields it from $all (see convertGrpcEvent).
    source.push({
      event: {
        streamId: 'automation_webhook-1',
        id: '6f1c3a52-54a4-4c2e-9d27-9c1f0d9d7a10',
        revision: 0n,
        type: 'WebhookReceived',
        created: new Date(0),
        data: {},
        metadata: event().metadata,
        isJson: true,
        position: { commit: 4096n, prepare: 4096n },
      },
    });
    await vi.waitFor(() => expect(seen).toEqual(['events 4096']));
    // The server looked further while that batch was being handled: passed on only after it.
    await filter!.checkpointReached!(null as never, { commit: 90_000n, prepare: 90_000n });
    expect(seen).toEqual(['events 4096']);
    release();
    await vi.waitFor(() => expect(seen).toEqual(['events 4096', 'checkpoint 90000']));
    // Idle: passed on at once; one not past what was handled is dropped.
    await filter!.checkpointReached!(null as never, { commit: 150_000n, prepare: 150_000n });
    await filter!.checkpointReached!(null as never, { commit: 100_000n, prepare: 100_000n });
    expect(seen).toEqual(['events 4096', 'checkpoint 90000', 'checkpoint 150000']);
    await sub.stop();
  });

  it('a checkpoint the caller fails to store ends the subscription with that error, as a failing handler does', async () => {
    const source = Object.assign(new Readable({ objectMode: true, read() {} }), { unsubscribe: async () => undefined });
    let filter: Filter | undefined;
    const client = {
      subscribeToAll: (options: { filter: Filter }) => {
        filter = options.filter;
        return source;
      },
    } as unknown as EventStoreDBClient;
    const conflict = new Error('checkpoint moved by another worker');
    const sub = openEsdbEventStore(client).subscribe(async () => undefined, {
      after: null,
      streamPrefixes: ['automation_webhook-'],
      onCheckpoint: async () => {
        throw conflict;
      },
    });
    await expect(filter!.checkpointReached!(null as never, { commit: 90_000n, prepare: 90_000n })).resolves.toBeUndefined();
    await expect(sub.done).rejects.toBe(conflict);
  });

  describe('reading $all', () => {
    /** A log as the server holds it: our events, with the server's own records between them. */
    const log: AllStreamResolvedEvent[] = [];
    // Ends with a server record (i = 700).
    for (let i = 0; i <= 700; i++) {
      const position = BigInt(1000 + i * 100);
      const system = i % 3 === 1;
      log.push({
        event: {
          streamId: system ? '$stats-127.0.0.1:2113' : `product-${i}`,
          id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
          revision: 0n,
          type: system ? '$statsCollected' : 'ProductCreated',
          created: new Date(0),
          data: {},
          metadata: system ? {} : event().metadata,
          isJson: true,
          position: { commit: position, prepare: position },
        },
      } as AllStreamResolvedEvent);
    }
    const startsAt = (p: Position) => log.findIndex((r) => r.event!.position.commit >= p.commit);

    /** The client's readAll over that log: inclusive from a record's position, refused inside a record, maxCount records. */
    function logClient(calls: ReadAllOptions[]): EventStoreDBClient {
      return {
        readAll: (options: ReadAllOptions) => {
          calls.push(options);
          const { fromPosition, direction, maxCount } = options;
          let records: AllStreamResolvedEvent[];
          if (direction === BACKWARDS) records = fromPosition === END ? [...log].reverse() : [];
          else {
            const from = fromPosition === START || fromPosition === undefined ? 0 : startsAt(fromPosition as Position);
            if (fromPosition !== START && fromPosition !== undefined && log[from]?.event!.position.commit !== (fromPosition as Position).commit) {
              // What the client makes of the server's InvalidPosition answer.
              const refused = convertToCommandError({ code: 3, details: 'Invalid position', message: '3 INVALID_ARGUMENT: Invalid position', name: 'Error' } as never);
              return Object.assign(Readable.from((async function* () { throw refused; })()), { cancel: async () => undefined });
            }
            records = log.slice(from);
          }
          records = records.slice(0, Number(maxCount ?? Number.MAX_SAFE_INTEGER));
          return Object.assign(Readable.from(records), { cancel: async () => undefined });
        },
      } as unknown as EventStoreDBClient;
    }

    it('asks for a bounded page (maxCount) and reads page after page, past the server\'s records, until the limit', async () => {
      const calls: ReadAllOptions[] = [];
      const store = openEsdbEventStore(logClient(calls));
      const events = await store.readAll({ after: null, limit: 450 });
      const ours = log.filter((r) => !r.event!.streamId.startsWith('$'));
      expect(events.map((e) => e.position)).toEqual(ours.slice(0, 450).map((r) => Number(r.event!.position.commit)));
      expect(calls.length).toBeGreaterThan(1);
      for (const call of calls) expect(Number(call.maxCount)).toBeGreaterThan(0);
      expect(Number(calls[0]!.maxCount)).toBeLessThanOrEqual(4096);
      // A page resumes at the last record read (inclusive), which is not repeated.
      expect(new Set(events.map((e) => e.position)).size).toBe(events.length);
      const after = await store.readAll({ after: events[9]!.position, limit: 3 });
      expect(after.map((e) => e.position)).toEqual(events.slice(10, 13).map((e) => e.position));
    });

    it('`from` reads from an event\'s own position; a number no record starts at answers nothing, not an error', async () => {
      const store = openEsdbEventStore(logClient([]));
      const third = Number(log[3]!.event!.position.commit);
      expect((await store.readAll({ after: null, from: third, limit: 1 })).map((e) => e.position)).toEqual([third]);
      // An old workflow id minus one (what the lookup asked for) lies inside a record.
      await expect(store.readAll({ after: third - 1, limit: 1 })).rejects.toThrow(/Invalid position/);
      expect(await store.readAll({ after: null, from: third + 1, limit: 1 })).toEqual([]);
    });

    it('endPosition is the last record of any stream; headPosition the last event of ours', async () => {
      const store = openEsdbEventStore(logClient([]));
      const lastRecord = log[log.length - 1]!;
      expect(lastRecord.event!.streamId.startsWith('$')).toBe(true);
      expect(await store.endPosition!()).toBe(Number(lastRecord.event!.position.commit));
      expect(await store.headPosition()).toBe(Number(log[log.length - 2]!.event!.position.commit));
    });
  });

  it('subscribes with a stream buffer that holds a whole batch (the client\'s default is 16 objects)', async () => {
    const source = Object.assign(new Readable({ objectMode: true, read() {} }), { unsubscribe: async () => undefined });
    let readable: { highWaterMark?: number } | undefined;
    const client = {
      subscribeToAll: (_options: unknown, readableOptions: { highWaterMark?: number }) => {
        readable = readableOptions;
        return source;
      },
    } as unknown as EventStoreDBClient;
    const sub = openEsdbEventStore(client).subscribe(async () => undefined, { after: null, batchSize: 500 });
    expect(readable?.highWaterMark).toBeGreaterThanOrEqual(500);
    await sub.stop();
  });

  it('a server known to skip events (KurrentDB 25.0.0) ends a subscription before it delivers anything', async () => {
    const source = Object.assign(new Readable({ objectMode: true, read() {} }), { unsubscribe: async () => undefined });
    source.push({
      event: {
        streamId: 'automation_webhook-1',
        id: '6f1c3a52-54a4-4c2e-9d27-9c1f0d9d7a10',
        revision: 0n,
        type: 'WebhookReceived',
        created: new Date(0),
        data: {},
        metadata: event().metadata,
        isJson: true,
        position: { commit: 4096n, prepare: 4096n },
      },
    });
    const handled: number[] = [];
    const client = { subscribeToAll: () => source, capabilities: Promise.resolve({ serverVersion: '25.0.0.1582' }) } as unknown as EventStoreDBClient;
    const sub = openEsdbEventStore(client).subscribe(async (events) => void handled.push(...events.map((e) => e.position)), { after: null });
    await expect(sub.done).rejects.toBeInstanceOf(UnsupportedServerError);
    await expect(sub.done).rejects.toThrow(/KurrentDB 25\.0\.0\.1582 can make a subscription skip an event/);
    expect(handled).toEqual([]);

    const fixed = Object.assign(new Readable({ objectMode: true, read() {} }), { unsubscribe: async () => undefined });
    const ok = openEsdbEventStore({ subscribeToAll: () => fixed, capabilities: Promise.resolve({ serverVersion: '25.0.1.0' }) } as unknown as EventStoreDBClient);
    const live = ok.subscribe(async (events) => void handled.push(...events.map((e) => e.position)), { after: null });
    fixed.push({ event: { streamId: 'automation_webhook-2', id: '7f1c3a52-54a4-4c2e-9d27-9c1f0d9d7a10', revision: 0n, type: 'WebhookReceived', created: new Date(0), data: {}, metadata: event().metadata, isJson: true, position: { commit: 8192n, prepare: 8192n } } });
    await vi.waitFor(() => expect(handled).toEqual([8192]));
    await live.stop();
  });
});
