import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteReadStore } from '../../projections/sqlite/sqliteReadStore.ts';
import { UnitOfWork } from '../../projections/unitOfWork.ts';

describe('UnitOfWork', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });
  const store = () => {
    const dir = mkdtempSync(join(tmpdir(), 'uow-'));
    dirs.push(dir);
    return openSqliteReadStore({ file: join(dir, 'read.db') });
  };

  it("reads the batch's own writes back, frozen, and commits them as written", async () => {
    const readStore = store();
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
    await readStore.close();
  });
});
