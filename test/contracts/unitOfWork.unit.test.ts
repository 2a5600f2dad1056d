import { describe, expect, it } from 'vitest';
import { UnitOfWork } from '../../platform/es/unitOfWork.ts';
import { sqliteReadStoreFixture, useStoreFixtures } from './storeFixtures.ts';

describe('UnitOfWork', () => {
  // Each test's store is closed and its file removed afterwards.
  const { open: store } = useStoreFixtures(sqliteReadStoreFixture);

  it("reads the batch's own writes back, frozen, and commits them as written", async () => {
    const readStore = await store();
    await readStore.commit('p', [{ op: 'upsert', collection: 'things', doc: { id: 'a', n: 1, tags: ['x'] } }], { expected: null, next: 1 });
    const tx = new UnitOfWork(readStore);

    const stored = (await tx.get<{ id: string; n: number; tags: string[] }>('things', 'a'))!;
    tx.upsert('things', { ...stored, n: stored.n + 1 });
    const pending = (await tx.get<{ id: string; n: number; tags: string[] }>('things', 'a'))!;
    expect(pending.n).toBe(2);
    expect(() => {
      pending.n = 99;
    }).toThrow(TypeError);
    expect(() => pending.tags.push('y')).toThrow(TypeError);
    tx.delete('things', 'gone');
    expect(await tx.get('things', 'gone')).toBeNull();

    await readStore.commit('p', tx.ops(), { expected: 1, next: 2 });
    expect(await readStore.get('things', 'a')).toEqual({ id: 'a', n: 2, tags: ['x'] });
  });
});
