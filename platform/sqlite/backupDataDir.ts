import { closeSync, copyFileSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, renameSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { DEFAULT_BUSY_TIMEOUT_MS } from './openDatabase.ts';

export type BackupResult = {
  /** The new data directory. */
  to: string;
  events: number;
  head_position: number;
  bytes: number;
  seconds: number;
};

export class BackupRefused extends Error {
  override readonly name = 'BackupRefused';
}

/**
 * Copies an embedded data directory into a new one, ready to serve as DATA_DIR: the database as
 * one consistent snapshot (the event log and the read models as of one moment, taken while the
 * server keeps writing: a WAL reader blocks no writer), and the JWT secret beside it, so tokens
 * stay valid after a restore.
 *
 * The snapshot is written under a temporary name, fsynced and then renamed: a backup cut short
 * (a crash, a full disk) leaves no commerce.db that looks whole.
 */
export function backupDataDir(from: string, to: string, busyTimeoutMs = DEFAULT_BUSY_TIMEOUT_MS): BackupResult {
  const started = performance.now();
  const source = join(resolve(from), 'commerce.db');
  const target = resolve(to);
  if (!existsSync(source)) throw new BackupRefused(`no commerce.db in ${resolve(from)}`);
  if (target === resolve(from)) throw new BackupRefused('the backup must go to another directory than DATA_DIR');
  if (existsSync(target) && (!statSync(target).isDirectory() || readdirSync(target).length > 0)) {
    throw new BackupRefused(`${target} exists and is not an empty directory`);
  }
  mkdirSync(target, { recursive: true, mode: 0o700 });

  const partial = join(target, 'commerce.db.partial');
  const db = new Database(source, { fileMustExist: true, timeout: busyTimeoutMs });
  try {
    // VACUUM INTO reads in one transaction, so the copy is a snapshot; it does not sync its output.
    db.prepare('VACUUM INTO ?').run(partial);
  } finally {
    db.close();
  }
  const copy = new Database(partial, { fileMustExist: true });
  let summary: { events: number; head: number | null };
  try {
    // Leases are who runs what now: the restored server must not wait out the old process's.
    if (copy.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'leases'").get()) copy.exec('DELETE FROM leases');
    // Nor count the old process's heartbeat (platform/runtime/leasedWork.ts) as a live worker to share them with.
    if (copy.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'rm_worker_heartbeats'").get()) copy.exec('DELETE FROM rm_worker_heartbeats');
    summary = copy.prepare<[], { events: number; head: number | null }>('SELECT count(*) AS events, max(position) AS head FROM events').get()!;
  } finally {
    copy.close();
  }
  syncFile(partial);
  renameSync(partial, join(target, 'commerce.db'));
  const secret = join(resolve(from), 'jwt-secret');
  if (existsSync(secret)) {
    copyFileSync(secret, join(target, 'jwt-secret'));
    syncFile(join(target, 'jwt-secret'));
  }
  syncFile(target);
  return {
    to: target,
    events: summary.events,
    head_position: summary.head ?? 0,
    bytes: statSync(join(target, 'commerce.db')).size,
    seconds: Number(((performance.now() - started) / 1000).toFixed(3)),
  };
}

function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
