import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { openSqliteReadStore } from '../../platform/readStore/sqlite/sqliteReadStore.ts';
import type { ReadStore } from '../../platform/readStore/readStore.ts';

/** A fresh store location for one test, and connections to it (several stand for several processes). */
export type StoreFixture<Store> = { connect(): Promise<Store>; dispose(): Promise<void> };

/**
 * Opens `n` connections to a fresh fixture from `factory`; every connection is closed and every
 * fixture disposed after each test. Call inside a `describe`.
 */
export function useStoreFixtures<Store extends { close(): Promise<void> }>(factory: () => Promise<StoreFixture<Store>>) {
  const opened: Store[] = [];
  const fixtures: StoreFixture<Store>[] = [];
  /** A fresh fixture, disposed after the test; its connections are the caller's to close. */
  const fixture = async () => {
    const made = await factory();
    fixtures.push(made);
    return made;
  };
  const connections = async (n: number) => {
    const fresh = await fixture();
    const stores: Store[] = [];
    for (let i = 0; i < n; i++) stores.push(await fresh.connect());
    opened.push(...stores);
    return stores;
  };
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((s) => s.close()));
    await Promise.all(fixtures.splice(0).map((f) => f.dispose()));
  });
  return { fixture, connections, open: async () => (await connections(1))[0]! };
}

/** A fresh SQLite file in its own temporary directory, which dispose() removes. */
export function tempSqliteFile(): { file: string; dispose(): Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-contract-'));
  return { file: join(dir, 'commerce.db'), dispose: async () => rmSync(dir, { recursive: true, force: true }) };
}

/** A SQLite read store on a fresh file: the factory for useStoreFixtures. */
export async function sqliteReadStoreFixture(): Promise<StoreFixture<ReadStore>> {
  const { file, dispose } = tempSqliteFile();
  return { connect: async () => openSqliteReadStore({ file }), dispose };
}
