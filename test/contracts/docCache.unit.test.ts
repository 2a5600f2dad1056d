import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { RecordedEvent } from '../../platform/eventStore/eventStore.ts';
import { DocCache } from '../../platform/es/docCache.ts';
import type { Projection } from '../../platform/es/projection.ts';
import { applyBatch } from '../../platform/es/projectionRunner.ts';
import { CheckpointConflictError } from '../../platform/readStore/readStore.ts';
import { sqliteReadStoreFixture, useStoreFixtures } from './storeFixtures.ts';

type Counter = { id: string; n: number };

/** Counts `Counted` events per stream: a read-modify-write of one document per event. */
const counting: Projection = {
  name: 'counting',
  collections: ['counters'],
  eventTypes: ['Counted'],
  async apply(event, tx) {
    const doc = await tx.get<Counter>('counters', event.stream);
    tx.upsert('counters', { id: event.stream, n: (doc?.n ?? 0) + 1 });
  },
};

let position = 0;
const counted = (stream: string): RecordedEvent => ({
  id: randomUUID(),
  stream,
  revision: 0,
  position: ++position,
  type: 'Counted',
  data: {},
  metadata: { correlation_id: 'test', actor: { type: 'system', name: 'test' }, organization_id: null, occurred_at: 1_700_000_000 },
});

describe('DocCache with applyBatch', () => {
  // Each test's store is closed and its file removed afterwards.
  const { open: store } = useStoreFixtures(sqliteReadStoreFixture);

  it('serves the next batch the documents the last one committed, frozen, and the results match the store', async () => {
    const readStore = await store();
    const cache = new DocCache();
    let checkpoint = await applyBatch(readStore, counting, [counted('a'), counted('a'), counted('b')], null, cache);
    const cached = cache.get('counters', 'a') as Counter;
    expect(cached).toEqual({ id: 'a', n: 2 });
    expect(Object.isFrozen(cached)).toBe(true);
    checkpoint = await applyBatch(readStore, counting, [counted('a'), counted('b')], checkpoint, cache);
    expect(await readStore.get('counters', 'a')).toEqual({ id: 'a', n: 3 });
    expect(await readStore.get('counters', 'b')).toEqual({ id: 'b', n: 2 });
    expect(await readStore.readCheckpoint('counting')).toBe(checkpoint);
  });

  it('remembers documents read from the store, frozen, so a projection cannot change what later batches see', async () => {
    const readStore = await store();
    await readStore.commit('counting', [{ op: 'upsert', collection: 'counters', doc: { id: 'a', n: 10, tags: ['x'] } }], { expected: null, next: 0 });
    const cache = new DocCache();
    let seen: Counter | null = null;
    const peeking: Projection = {
      ...counting,
      async apply(event, tx) {
        seen = await tx.get<Counter>('counters', event.stream);
      },
    };
    await applyBatch(readStore, peeking, [counted('a')], 0, cache);
    expect(seen).toEqual({ id: 'a', n: 10, tags: ['x'] });
    expect(cache.get('counters', 'a')).toBe(seen);
    const sneaky: Projection = {
      ...counting,
      async apply(event, tx) {
        const doc = (await tx.get<Counter & { tags: string[] }>('counters', event.stream))!;
        doc.tags.push('y');
      },
    };
    const before = (await readStore.readCheckpoint('counting'))!;
    await expect(applyBatch(readStore, sneaky, [counted('a')], before, cache)).rejects.toThrow(TypeError);
    expect(cache.get('counters', 'a')).toEqual({ id: 'a', n: 10, tags: ['x'] });
  });

  it('cannot commit what a stale cache computed once another writer moved the checkpoint; a new cache from the stored state counts right', async () => {
    const readStore = await store();
    const cache = new DocCache();
    const mine = await applyBatch(readStore, counting, [counted('a')], null, cache);
    // Another writer (the CLI catching up) applies the next events and commits first.
    const theirs = await applyBatch(readStore, counting, [counted('a'), counted('a')], mine);
    expect(await readStore.get('counters', 'a')).toEqual({ id: 'a', n: 3 });
    // Our runner, unaware, applies an event with n = 1 in its cache: refused, nothing written.
    await expect(applyBatch(readStore, counting, [counted('a')], mine, cache)).rejects.toBeInstanceOf(CheckpointConflictError);
    expect(await readStore.get('counters', 'a')).toEqual({ id: 'a', n: 3 });
    // Restarted from the stored checkpoint with a new cache, as the runner does.
    await applyBatch(readStore, counting, [counted('a')], theirs, new DocCache());
    expect(await readStore.get('counters', 'a')).toEqual({ id: 'a', n: 4 });
  });

  it('forgets deleted documents and keeps at most its size, dropping the least recently used', () => {
    const cache = new DocCache(2);
    cache.committed([
      { op: 'upsert', collection: 'c', doc: { id: '1' } },
      { op: 'upsert', collection: 'c', doc: { id: '2' } },
    ]);
    cache.get('c', '1');
    cache.remember('c', { id: '1' });
    cache.committed([{ op: 'upsert', collection: 'c', doc: { id: '3' } }]);
    expect(cache.get('c', '2')).toBeUndefined();
    expect(cache.get('c', '1')).toEqual({ id: '1' });
    cache.committed([{ op: 'delete', collection: 'c', id: '1' }]);
    expect(cache.get('c', '1')).toBeUndefined();
    expect(cache.get('c', '3')).toEqual({ id: '3' });
  });

  it('keeps no document of a write-only collection, committed or read', () => {
    const cache = new DocCache(100, new Set(['samples']));
    cache.committed([
      { op: 'upsert', collection: 'samples', doc: { id: 's1', payload: 'x'.repeat(1000) } },
      { op: 'upsert', collection: 'counters', doc: { id: 'c1', n: 1 } },
    ]);
    cache.remember('samples', { id: 's2', payload: 'y' });
    expect(cache.get('samples', 's1')).toBeUndefined();
    expect(cache.get('samples', 's2')).toBeUndefined();
    expect(cache.get('counters', 'c1')).toEqual({ id: 'c1', n: 1 });
  });
});
