import type Database from 'better-sqlite3';
import { closeSync, existsSync, fdatasync, fsyncSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { StoreUnavailableError } from '../eventStore.ts';

/** fsyncs of the WAL at once: a commit made while one runs need not wait for it to end before its own starts. */
const MAX_IN_FLIGHT = Math.max(1, Number(process.env.COMMERCE_WAL_SYNCS ?? 2));

/** A commit waiting for the fsync that makes it durable. */
type Waiter = {
  /** Position of its first event (null when it wrote none): readers stay below it until it is durable. */
  first: number | null;
  settle: () => void;
  fail: (error: unknown) => void;
};

export type WalSync = {
  /** Calls `settle` once everything committed so far is on disk (`fail` if the fsync failed). */
  afterCommit(first: number | null, settle: () => void, fail: (error: unknown) => void): void;
  /** The highest position readers may see: below the first event still waiting for its fsync. */
  durableCap(): number;
  /** Set once an fsync failed: what was committed since is not known to be on disk, so no append is taken. */
  readonly failure: unknown;
  /** Resolves once no commit waits for an fsync. */
  idle(): Promise<void>;
  close(): void;
};

/**
 * Group commit with the fsync off the event loop. The connection commits with synchronous=NORMAL
 * (SQLite writes the WAL frames without syncing them); this then fsyncs the WAL file on the libuv
 * thread pool and settles the commits it covered only afterwards, so an acknowledged append is on
 * disk, as with synchronous=FULL. While one fsync runs, the next commits go on (on the event
 * loop) and share the following fsync.
 *
 * Why that is as durable: fsync flushes every page of the file, whoever wrote it, and the WAL is
 * written in order, so once it returns every frame up to the last commit is on disk. A checkpoint
 * (which moves frames into the database file and may then reuse the WAL) syncs the WAL before and
 * the database file after, in NORMAL as in FULL. NORMAL in WAL mode keeps the file consistent
 * through a power loss; it only drops the commits not synced yet, which here were never
 * acknowledged. The WAL's directory entry is synced once at open; the WAL is only deleted when the
 * last connection closes, and this one stays open.
 */
export type SyncFile = (fd: number, done: (error: NodeJS.ErrnoException | null) => void) => void;

export function openWalSync(db: Database.Database, file: string, syncFile: SyncFile = fdatasync): WalSync {
  const walFile = `${file}-wal`;
  const wal = file !== ':memory:' && db.pragma('journal_mode', { simple: true }) === 'wal' && existsSync(walFile);
  if (!wal) {
    // No WAL file to sync (an in-memory database): SQLite's own sync, settled at once.
    db.pragma('synchronous = FULL');
    return {
      afterCommit: (_first, settle) => settle(),
      durableCap: () => Number.MAX_SAFE_INTEGER,
      failure: null,
      idle: () => Promise.resolve(),
      close: () => undefined,
    };
  }
  db.pragma('synchronous = NORMAL');
  const fd = openSync(walFile, 'r');
  const dir = openSync(dirname(walFile), 'r');
  try {
    fsyncSync(dir);
  } finally {
    closeSync(dir);
  }

  /** Committed, not covered yet by an fsync in flight. */
  let waiting: Waiter[] = [];
  /** The commits each fsync in flight covers, oldest first. */
  const inFlight: Waiter[][] = [];
  let failure: unknown = null;
  /** After a failed fsync: readers stay below the first event it left unsettled, for good. */
  let failedCap = Number.MAX_SAFE_INTEGER;
  let idleWaiters: Array<() => void> = [];

  function start(): void {
    const covered = waiting;
    waiting = [];
    inFlight.push(covered);
    syncFile(fd, (error) => {
      if (error && failure === null) {
        failure = new StoreUnavailableError(`event log: fsync failed (${error.code ?? error.message}); restart the service`, { cause: error });
      }
      if (failure !== null) {
        // After a failed fsync the kernel may have dropped the pages it could not write, and a
        // later fsync would succeed without them: nothing unsettled is known to be on disk.
        const all = inFlight.splice(0).flat().concat(waiting);
        waiting = [];
        for (const w of all) if (w.first !== null) failedCap = Math.min(failedCap, w.first - 1);
        for (const w of all) w.fail(failure);
      } else {
        // This fsync covers every commit made before it started, those of the fsyncs started
        // before it included (which may return later): all of them are settled, in order.
        const index = inFlight.indexOf(covered);
        if (index >= 0) for (const group of inFlight.splice(0, index + 1)) for (const w of group) w.settle();
        if (waiting.length > 0 && inFlight.length < MAX_IN_FLIGHT) start();
      }
      if (inFlight.length === 0 && waiting.length === 0) {
        const done = idleWaiters;
        idleWaiters = [];
        for (const resolve of done) resolve();
      }
    });
  }

  return {
    afterCommit(first, settle, fail) {
      if (failure !== null) return fail(failure);
      waiting.push({ first, settle, fail });
      if (inFlight.length < MAX_IN_FLIGHT) start();
    },
    durableCap() {
      if (failure !== null) return failedCap;
      for (const group of inFlight) for (const w of group) if (w.first !== null) return w.first - 1;
      for (const w of waiting) if (w.first !== null) return w.first - 1;
      return Number.MAX_SAFE_INTEGER;
    },
    get failure() {
      return failure;
    },
    idle() {
      if (inFlight.length === 0 && waiting.length === 0) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    close() {
      closeSync(fd);
    },
  };
}
