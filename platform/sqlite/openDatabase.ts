import Database from 'better-sqlite3';
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { dirname } from 'node:path';

/** How long a write waits for another process's transaction on the file (SQLITE_BUSY_TIMEOUT_MS). */
export const DEFAULT_BUSY_TIMEOUT_MS = 5000;

/** The busy timeout a connection is opened with, in whole milliseconds (DEFAULT_BUSY_TIMEOUT_MS when not given). */
export const busyTimeoutOf = (ms: number | undefined): number => Math.max(0, Math.floor(ms ?? DEFAULT_BUSY_TIMEOUT_MS));

/** SQLite's answer when the wait ran out: another connection kept the file locked. */
export function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED' || (typeof code === 'string' && code.startsWith('SQLITE_BUSY_'));
}

/**
 * Why a write failed for reasons of the machine, not of what was written, if it did: the file
 * locked by another process, the disk full, or the disk failing. SQLite rolls such a transaction
 * back whole, and the same write can succeed later; null for any other error.
 */
export function unavailableReason(error: unknown): string | null {
  if (isBusy(error)) return 'another process kept the database locked';
  const code = (error as { code?: unknown } | null)?.code;
  if (code === 'SQLITE_FULL') return 'the disk is full';
  if (code === 'SQLITE_IOERR' || (typeof code === 'string' && code.startsWith('SQLITE_IOERR_'))) return `disk I/O error (${code})`;
  return null;
}

/**
 * Opens (creating if needed) a SQLite file in WAL mode. Two processes (the server and the CLI)
 * may use one file at once: WAL lets readers run beside the one writer, and busy_timeout makes a
 * writer wait for the other's short transaction instead of failing.
 */
export function openDatabase(file: string, options: { synchronous: 'FULL' | 'NORMAL'; busyTimeoutMs?: number; autocheckpointPages?: number }): Database.Database {
  if (file !== ':memory:') {
    // The file holds what only the service may read (signing secrets of Send Webhook actions,
    // catch-URL keys, buyers' emails), as jwt-secret beside it does: the owner's alone, as SQLite
    // gives the -wal and -shm files the mode of the database file. An existing file keeps its mode.
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    closeSync(openSync(file, 'a', 0o600));
  }
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.synchronous}`);
  db.pragma(`busy_timeout = ${busyTimeoutOf(options.busyTimeoutMs)}`);
  db.pragma('foreign_keys = ON');
  // Freed pages are zeroed: a GDPR erasure's deleted keys and rewritten read models leave no old bytes in the file.
  db.pragma('secure_delete = ON');
  // SQLite's own default is 1,000 pages; a connection that leaves checkpoints to another sets more.
  if (options.autocheckpointPages !== undefined) db.pragma(`wal_autocheckpoint = ${Math.max(0, Math.floor(options.autocheckpointPages))}`);
  return db;
}
