import Database from 'better-sqlite3';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Opens (creating if needed) a SQLite file in WAL mode. Two processes (the server and the CLI)
 * may use one file at once: WAL lets readers run beside the one writer, and busy_timeout makes a
 * writer wait for the other's short transaction instead of failing.
 */
export function openDatabase(file: string, options: { synchronous: 'FULL' | 'NORMAL' }): Database.Database {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${options.synchronous}`);
  db.pragma('busy_timeout = 5000');
  db.pragma('foreign_keys = ON');
  return db;
}
