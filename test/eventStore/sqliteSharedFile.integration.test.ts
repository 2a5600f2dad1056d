import { randomUUID } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StoreUnavailableError, type EventStore, type RecordedEvent } from '../../platform/eventStore/eventStore.ts';
import { openSqliteEventStore } from '../../platform/eventStore/sqlite/sqliteEventStore.ts';
import { tempSqliteFile } from '../contracts/storeFixtures.ts';
import { holdWriteLock } from '../helpers/sqliteStores.ts';

const metadata = { correlation_id: 'test', actor: { type: 'cli' as const }, organization_id: null, occurred_at: 1_700_000_000 };
const event = (type = 'Tested') => ({ id: randomUUID(), type, data: { n: 1 }, metadata });

/**
 * Two connections on one file, as the server's thread and its subscriber thread (or the CLI) have:
 * one's write lock does not stall the other's event loop, and one's appends reach the other's
 * subscriptions as soon as it is told.
 */
describe('the SQLite event store beside another connection on its file', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });
  const file = () => {
    const { file: path, dispose } = tempSqliteFile();
    cleanup.push(dispose);
    return path;
  };
  const open = (path: string, options: { busyTimeoutMs?: number; pollIntervalMs?: number; autocheckpointPages?: number } = {}): EventStore => {
    const store = openSqliteEventStore({ file: path, ...options });
    cleanup.push(() => store.close());
    return store;
  };

  it('an append waits for the write lock off the event loop, and commits once it is free', async () => {
    const path = file();
    const store = open(path, { busyTimeoutMs: 10_000 });
    await store.append('warm-1', [event()], 'no_stream');
    const release = holdWriteLock(path);
    let settled = false;
    const append = store.append('locked-1', [event()], 'no_stream').finally(() => (settled = true));
    // Timers keep firing while the append waits: SQLite's busy handler would hold the thread
    // until the lock was released (the timer below could then never release it).
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    try {
      await vi.waitFor(() => expect(ticks).toBeGreaterThanOrEqual(3), { timeout: 5000 });
      expect(settled).toBe(false);
    } finally {
      clearInterval(timer);
      release();
    }
    const result = await append;
    expect(result.revision).toBe(0);
    expect((await store.readStream('locked-1')).map((e) => e.type)).toEqual(['Tested']);
  });

  it('fails as unavailable, writing nothing, once the lock was held past the busy timeout', async () => {
    const path = file();
    const store = open(path, { busyTimeoutMs: 100 });
    const head = await store.headPosition();
    const release = holdWriteLock(path);
    try {
      await expect(store.append('locked-2', [event()], 'no_stream')).rejects.toBeInstanceOf(StoreUnavailableError);
    } finally {
      release();
    }
    expect(await store.headPosition()).toBe(head);
    expect((await store.append('locked-2', [event()], 'no_stream')).revision).toBe(0);
  });

  it('wake() makes subscriptions read another connection’s appends at once, not at their next poll', async () => {
    const path = file();
    const writer = open(path);
    // A poll a minute away: only wake() can bring the events in time.
    const reader = open(path, { pollIntervalMs: 60_000 });
    await writer.append('before-1', [event('Before')], 'no_stream');
    const seen: RecordedEvent[] = [];
    const subscription = reader.subscribe(async (events) => void seen.push(...events), { after: null });
    cleanup.push(() => subscription.stop());
    await vi.waitFor(() => expect(seen.map((e) => e.type)).toEqual(['Before']), { timeout: 5000 });
    for (let i = 0; i < 3; i++) {
      await writer.append(`after-${i}`, [event('After')], 'no_stream');
      reader.wake!();
      await vi.waitFor(() => expect(seen.filter((e) => e.type === 'After')).toHaveLength(i + 1), { timeout: 5000 });
    }
    // A filtered subscription too, started after the events.
    const filtered: RecordedEvent[] = [];
    const only = reader.subscribe(async (events) => void filtered.push(...events), { after: null, streamPrefixes: ['after-'] });
    cleanup.push(() => only.stop());
    await vi.waitFor(() => expect(filtered).toHaveLength(3), { timeout: 5000 });
    await writer.append('after-3', [event('After')], 'no_stream');
    reader.wake!();
    await vi.waitFor(() => expect(filtered).toHaveLength(4), { timeout: 5000 });
    await vi.waitFor(() => expect(seen.filter((e) => e.type === 'After')).toHaveLength(4), { timeout: 5000 });
  });
  it('a connection with a high autocheckpoint bound leaves the WAL to the connection that checkpoints', async () => {
    const path = file();
    const api = open(path, { autocheckpointPages: 16_384 });
    // Well past SQLite's default of 1,000 pages, in commits of this connection alone.
    const big = 'x'.repeat(3000);
    for (let i = 0; i < 60; i++) {
      await api.append(`bulk-${i}`, Array.from({ length: 40 }, () => ({ id: randomUUID(), type: 'Bulk', data: { big }, metadata })), 'no_stream');
    }
    const probe = new Database(path);
    try {
      // Its answer gives the WAL's length in frames (copying them leaves the length as it is).
      expect((probe.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>)[0]!.log).toBeGreaterThan(1000);
    } finally {
      probe.close();
    }
  });
});
