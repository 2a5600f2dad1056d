import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { runUnderLeases, type LeasedWork, type Running } from '../../platform/runtime/leasedWork.ts';
import type { ReadStore } from '../../platform/readStore/readStore.ts';
import { openSqliteReadStore } from '../../platform/readStore/sqlite/sqliteReadStore.ts';

const TTL = 3000;
const quiet = { error: () => undefined, info: () => undefined };

/** Several workers over one SQLite file, each with its own connection as separate processes have. */
describe('leased work (several workers on one SQLite file, fake timers)', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  let file: string;

  beforeEach(() => {
    vi.useFakeTimers({ now: 1_700_000_000_000, toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const dir = mkdtempSync(join(tmpdir(), 'leases-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    file = join(dir, 'commerce.db');
  });
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
    vi.useRealTimers();
  });

  const openStore = (): ReadStore => {
    const readStore = openSqliteReadStore({ file });
    cleanup.push(() => readStore.close());
    return readStore;
  };

  /** Work that records, per worker, which leases it is running under. */
  const running = new Map<string, Set<string>>();
  const work = (owner: string, names: string[], start?: (name: string) => Promise<void>): LeasedWork[] =>
    names.map((name) => ({
      name,
      async start(): Promise<Running> {
        await start?.(name);
        const mine = running.get(owner) ?? new Set<string>();
        running.set(owner, mine);
        mine.add(name);
        return { stop: async () => void mine.delete(name) };
      },
    }));
  const held = (owner: string) => running.get(owner)?.size ?? 0;
  const worker = (owner: string, names: string[], readStore = openStore(), start?: (name: string) => Promise<void>) => {
    const w = runUnderLeases(work(owner, names, start), { readStore, owner, ttlMs: TTL, logger: quiet, pool: 'test' });
    cleanup.push(() => w.stop());
    return w;
  };
  /** Advances the clock a tick at a time (a third of a lease) until `condition` holds. */
  const advanceUntil = async (condition: () => boolean, maxMs = 20 * TTL) => {
    for (let spent = 0; !condition(); spent += TTL / 3) {
      if (spent > maxMs) throw new Error('condition not met in time');
      await vi.advanceTimersByTimeAsync(TTL / 3);
    }
  };

  it('renews a lease while its work is still starting (a rebuild longer than the lease): no second worker starts it', async () => {
    running.clear();
    let finishRebuild!: () => void;
    const rebuild = new Promise<void>((resolve) => (finishRebuild = resolve));
    const starts: string[] = [];
    worker('a', ['projection:catalog'], openStore(), async () => {
      starts.push('a');
      await rebuild;
    });
    await advanceUntil(() => starts.length === 1);
    worker('b', ['projection:catalog'], openStore(), async () => void starts.push('b'));
    // Cleanup runs in reverse: the rebuild ends before the workers stop, whatever the test found.
    cleanup.push(() => finishRebuild());
    // Ten lease lifetimes of rebuild: `a` keeps renewing, `b` finds it held each time.
    await vi.advanceTimersByTimeAsync(10 * TTL);
    const leases = new (await import('better-sqlite3')).default(file, { readonly: true });
    try {
      const row = leases.prepare('SELECT * FROM leases').all() as Array<Record<string, unknown>>;
      expect(row).toEqual([expect.objectContaining({ name: 'projection:catalog', owner: 'a' })]);
      expect(Number(row[0]!.expires_at)).toBeGreaterThan(Date.now());
    } finally {
      leases.close();
    }
    expect(starts).toEqual(['a']);
    finishRebuild();
    await advanceUntil(() => held('a') === 1);
    expect(held('b')).toBe(0);
  });

  it('spreads the leases over the live workers, and gives them all back to the survivor', async () => {
    running.clear();
    const names = ['p:1', 'p:2', 'p:3', 'p:4', 'p:5'];
    worker('a', names);
    await advanceUntil(() => held('a') === 5);
    const b = worker('b', names);
    // `a` hands over one per tick down to its share (ceil(5 / 2) = 3), and `b` takes them.
    await advanceUntil(() => held('a') === 3 && held('b') === 2);
    const c = worker('c', names);
    await advanceUntil(() => held('a') + held('b') + held('c') === 5 && Math.max(held('a'), held('b'), held('c')) === 2);
    await c.stop();
    await b.stop();
    await advanceUntil(() => held('a') === 5);
    expect(held('b') + held('c')).toBe(0);
  });

  it('hands a newcomer a lease whose work runs, not one still starting (its rebuild would be thrown away)', async () => {
    running.clear();
    let finishRebuild!: () => void;
    const rebuild = new Promise<void>((resolve) => (finishRebuild = resolve));
    const started: string[] = [];
    worker('a', ['p:1', 'p:2'], openStore(), async (name) => {
      started.push(`a ${name}`);
      if (name === 'p:2') await rebuild;
    });
    await advanceUntil(() => held('a') === 1 && started.length === 2);
    worker('b', ['p:1', 'p:2'], openStore(), async (name) => void started.push(`b ${name}`));
    cleanup.push(() => finishRebuild());
    await advanceUntil(() => held('b') === 1);
    expect(running.get('b')).toEqual(new Set(['p:1']));
    finishRebuild();
    await advanceUntil(() => held('a') === 1);
    expect(running.get('a')).toEqual(new Set(['p:2']));
    expect(started).toEqual(['a p:1', 'a p:2', 'b p:1']);
  });

  it('a store error keeps the work going until the lease would run out, then stops it; the lease is taken again once the store answers', async () => {
    running.clear();
    const real = openStore();
    let failing = false;
    // The read store as it is, whose lease calls fail while `failing` (a MongoDB election).
    const flaky: ReadStore = {
      ...real,
      acquireLease: (...args) => (failing ? Promise.reject(new Error('not primary')) : real.acquireLease(...args)),
    };
    worker('a', ['job:automation'], flaky);
    await advanceUntil(() => held('a') === 1);
    failing = true;
    // Two ticks of errors (two thirds of a lease): still within the lease renewed before them.
    await vi.advanceTimersByTimeAsync((2 * TTL) / 3);
    expect(held('a')).toBe(1);
    // Past its expiry unrenewed: stopped, so another worker could take over safely.
    await advanceUntil(() => held('a') === 0, 2 * TTL);
    failing = false;
    await advanceUntil(() => held('a') === 1);
  });
});
