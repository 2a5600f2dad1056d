import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EventStore } from '../../platform/eventStore/eventStore.ts';
import { openSqliteEventStore } from '../../platform/eventStore/sqlite/sqliteEventStore.ts';
import type { ReadStore } from '../../platform/readStore/readStore.ts';
import { openSqliteReadStore } from '../../platform/readStore/sqlite/sqliteReadStore.ts';

export type SqliteStores = { file: string; store: EventStore; readStore: ReadStore };

/**
 * A real commerce.db in a new temporary directory, opened as compose opens it (an event store and
 * a read store on the one file). `cleanup` gets the steps that close both and remove the
 * directory; run them in reverse order after the test.
 */
export function openTempStores(cleanup: Array<() => Promise<void> | void>, prefix = 'stores-'): SqliteStores {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'commerce.db');
  const store = openSqliteEventStore({ file });
  const readStore = openSqliteReadStore({ file });
  cleanup.push(async () => {
    await store.close();
    await readStore.close();
  });
  return { file, store, readStore };
}

/**
 * What a long transaction in another process (a sqlite3 shell, a backup tool) looks like: a
 * connection holding the file's write lock until the returned function is called.
 */
export function holdWriteLock(file: string): () => void {
  const other = new Database(file);
  other.exec('BEGIN IMMEDIATE');
  return () => {
    other.exec('COMMIT');
    other.close();
  };
}
