import { fdatasync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StoreUnavailableError, type EventStore, type RecordedEvent } from '../../platform/eventStore/eventStore.ts';
import { openSqliteEventStore } from '../../platform/eventStore/sqlite/sqliteEventStore.ts';
import type { SyncFile } from '../../platform/eventStore/sqlite/walSync.ts';
import { newEvent } from '../contracts/eventStoreContract.ts';
import { tempSqliteFile } from '../contracts/storeFixtures.ts';

/**
 * The event store commits on the event loop and syncs the WAL file off it. These tests hold the
 * real fdatasync of the WAL until they release it, to see what waits for the disk: the append's
 * answer and every reader that reacts to events, but not a command reading its stream.
 */
describe('SQLite event store: an append answers once its commit is synced', () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  /** A store whose WAL syncs wait in `held` until released (each then runs the real fdatasync). */
  function heldStore(): { store: EventStore; held: Array<() => void> } {
    const { file, dispose } = tempSqliteFile();
    const held: Array<() => void> = [];
    const syncWal: SyncFile = (fd, done) => held.push(() => fdatasync(fd, done));
    const store = openSqliteEventStore({ file, pollIntervalMs: 20, syncWal });
    cleanup.push(dispose);
    cleanup.push(async () => {
      // close() waits for the syncs still held.
      const closing = store.close();
      while (held.length > 0) held.shift()!();
      await closing;
    });
    return { store, held };
  }
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

  it('keeps the append pending, and the event from subscriptions and readAll, until the WAL sync returns; readStream sees it at once', async () => {
    const { store, held } = heldStore();
    const delivered: RecordedEvent[] = [];
    const subscription = store.subscribe(async (events) => void delivered.push(...events), { after: null });
    cleanup.push(() => subscription.stop());
    const event = newEvent('Held', { n: 1 });
    let answered = false;
    const append = store.append('held-1', [event], 'no_stream').then((result) => {
      answered = true;
      return result;
    });

    await vi.waitFor(() => expect(held).toHaveLength(1));
    await nextTurn();
    expect(answered).toBe(false);
    expect((await store.readStream('held-1')).map((e) => e.id)).toEqual([event.id]);
    expect(await store.readAll({ after: null, limit: 10 })).toEqual([]);

    held.shift()!();
    const { position } = await append;
    expect((await store.readAll({ after: null, limit: 10 })).map((e) => e.id)).toEqual([event.id]);
    await vi.waitFor(() => expect(delivered.map((e) => e.position)).toEqual([position]), { timeout: 10_000 });
  });

  it('a commit made while one sync runs starts its own; past two in flight, appends wait and go together; a sync settles those started before it', async () => {
    const { store, held } = heldStore();
    let firstAnswered = false;
    const first = store.append('queued-1', [newEvent()], 'no_stream').then((r) => ((firstAnswered = true), r));
    await vi.waitFor(() => expect(held).toHaveLength(1));
    // A second commit does not wait for the first sync: it is written and synced beside it.
    const second = store.append('queued-2', [newEvent()], 'no_stream');
    await vi.waitFor(() => expect(held).toHaveLength(2));
    expect((await store.readStream('queued-2')).length).toBe(1);
    // Two syncs in flight: these wait, in order, for one of them to return.
    const third = store.append('queued-3', [newEvent()], 'no_stream');
    const fourth = store.appendMany([{ stream: 'queued-4', events: [newEvent(), newEvent()], expected: 'no_stream' }]);
    await nextTurn();
    expect(await store.readStream('queued-3')).toEqual([]);

    // The second sync returns first: it put the first commit on disk too.
    held.splice(1, 1)[0]!();
    const [a, b] = await Promise.all([first, second]);
    expect(firstAnswered).toBe(true);
    // The queued appends then go in one commit, with one sync.
    await vi.waitFor(() => expect(held).toHaveLength(2));
    expect((await store.readStream('queued-3')).length).toBe(1);
    while (held.length > 0) held.shift()!();
    const [c, [d]] = await Promise.all([third, fourth]);
    expect([b.position, c.position, d!.position]).toEqual([a.position + 1, a.position + 2, a.position + 4]);
    expect((await store.readAll({ after: null, limit: 10 })).map((e) => e.stream)).toEqual(['queued-1', 'queued-2', 'queued-3', 'queued-4', 'queued-4']);
  });

  it('a failed sync refuses the appends it covered and every append after it, and readers never see them', async () => {
    const { file, dispose } = tempSqliteFile();
    cleanup.push(dispose);
    const kept = openSqliteEventStore({ file });
    await kept.append('before-1', [newEvent()], 'no_stream');
    await kept.close();

    let fail = false;
    const syncWal: SyncFile = (fd, done) => (fail ? done(Object.assign(new Error('EIO: i/o error, fdatasync'), { code: 'EIO' })) : fdatasync(fd, done));
    const store = openSqliteEventStore({ file, syncWal });
    cleanup.push(() => store.close());
    fail = true;
    const refused = await store.append('lost-1', [newEvent()], 'no_stream').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(StoreUnavailableError);
    expect((refused as Error).message).toMatch(/fsync failed \(EIO\)/);
    await expect(store.append('after-1', [newEvent()], 'no_stream')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.appendMany([{ stream: 'after-2', events: [newEvent()], expected: 'no_stream' }])).rejects.toBeInstanceOf(StoreUnavailableError);
    expect((await store.readAll({ after: null, limit: 10 })).map((e) => e.stream)).toEqual(['before-1']);
  });
});
