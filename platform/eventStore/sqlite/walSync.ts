import type Database from 'better-sqlite3';
import { closeSync, existsSync, fdatasync, fsyncSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import { StoreUnavailableError } from '../eventStore.ts';

/** A commit waiting for the sync that makes it durable. */
type Waiter = {
  /** Position of its first event (null when it wrote none): readers stay below it until it is durable. */
  first: number | null;
  settle: () => void;
  fail: (error: unknown) => void;
};

/**
 * Syncs of the WAL running at once. A commit made while one runs starts its own at once rather
 * than waiting for it to return and then for its own: an append waits about one sync, not two.
 */
const MAX_SYNCS_IN_FLIGHT = 2;

export type SyncFile = (fd: number, done: (error: NodeJS.ErrnoException | null) => void) => void;

export type WalSync = {
  /** Registers a commit just made: `settle` runs once a sync started after it returns (`fail` if it failed). */
  committed(first: number | null, settle: () => void, fail: (error: unknown) => void): void;
  /** Starts a sync of what was committed, unless MAX_SYNCS_IN_FLIGHT run (the commits then wait for the next). */
  start(): void;
  /** As many syncs run as may: commits made now would wait for the next one anyway. */
  readonly syncing: boolean;
  /** The highest position readers may see: below the first event still waiting for its sync. */
  durableCap(): number;
  /** Set once a sync failed: what was committed since is not known to be on disk, so no append is taken. */
  readonly failure: unknown;
  /** Resolves once no commit waits for a sync and none runs. */
  idle(): Promise<void>;
  close(): void;
};

/**
 * Group commit with the sync off the event loop. The connection commits with synchronous=NORMAL
 * (WAL frames written, not synced); this syncs the WAL file on the libuv thread pool and settles
 * the commits it covers only afterwards, so an acknowledged append is on disk, as with FULL.
 * Past MAX_SYNCS_IN_FLIGHT appends queue, and `onSynced` (run after each sync) commits them in
 * one transaction: batches grow with the disk's latency.
 *
 * As durable as FULL: fdatasync flushes every written page and the file's size, and the WAL is
 * written in order, so every frame up to the last commit is then on disk. A checkpoint syncs the
 * WAL before and the database file after, in NORMAL as in FULL; a power loss drops only commits
 * never acknowledged. The WAL's directory entry is synced once at open (this connection keeps
 * the WAL from being deleted).
 */
export function openWalSync(db: Database.Database, file: string, onSynced: () => void, syncFile: SyncFile = fdatasync): WalSync {
  const walFile = `${file}-wal`;
  const wal = file !== ':memory:' && db.pragma('journal_mode', { simple: true }) === 'wal' && existsSync(walFile);
  let waiting: Waiter[] = [];
  if (!wal) {
    // No WAL file to sync (an in-memory database): SQLite syncs in the commit, settled at once.
    db.pragma('synchronous = FULL');
    return {
      committed: (_first, settle) => waiting.push({ first: null, settle, fail: () => undefined }),
      start() {
        const done = waiting;
        waiting = [];
        for (const w of done) w.settle();
      },
      syncing: false,
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

  /** The syncs in flight, oldest first, each with the commits it covers. */
  let inFlight: Waiter[][] = [];
  let failure: unknown = null;
  /** After a failed sync: readers stay below the first event it left unsettled, for good. */
  let failedCap = Number.MAX_SAFE_INTEGER;
  let idleWaiters: Array<() => void> = [];

  function start(): void {
    if (inFlight.length >= MAX_SYNCS_IN_FLIGHT || waiting.length === 0) return;
    const these = waiting;
    waiting = [];
    inFlight.push(these);
    syncFile(fd, (error) => {
      // A sync puts on disk all that was written before it started: the syncs started before it
      // are done too, whichever returns first.
      const at = inFlight.indexOf(these);
      const done = at === -1 ? [] : inFlight.splice(0, at + 1).flat();
      if (error && failure === null) {
        failure = new StoreUnavailableError(`event log: fsync failed (${error.code ?? error.message}); restart the service`, { cause: error });
      }
      if (failure !== null) {
        // After a failed sync the kernel may have dropped the pages it could not write, and a
        // later sync would succeed without them: nothing unsettled is known to be on disk.
        const all = done.concat(inFlight.flat(), waiting);
        inFlight = [];
        waiting = [];
        for (const w of all) if (w.first !== null) failedCap = Math.min(failedCap, w.first - 1);
        for (const w of all) w.fail(failure);
      } else {
        for (const w of done) w.settle();
      }
      onSynced();
      if (inFlight.length === 0 && waiting.length === 0) {
        const resolved = idleWaiters;
        idleWaiters = [];
        for (const resolve of resolved) resolve();
      }
    });
  }

  return {
    committed(first, settle, fail) {
      if (failure !== null) return fail(failure);
      waiting.push({ first, settle, fail });
    },
    start,
    get syncing() {
      return inFlight.length >= MAX_SYNCS_IN_FLIGHT;
    },
    durableCap() {
      if (failure !== null) return failedCap;
      for (const sync of inFlight) for (const w of sync) if (w.first !== null) return w.first - 1;
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
