import { StreamNotFoundError, UnavailableError, type AppendResult, type EventStoreDBClient, type Filter, type ResolvedEvent } from '@eventstore/db-client';
import { Readable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { StoreUnavailableError, WrongExpectedRevisionError, type NewEvent } from '../../../eventStore/eventStore.ts';
import { openEsdbEventStore } from '../../../eventStore/esdb/esdbEventStore.ts';

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
});
