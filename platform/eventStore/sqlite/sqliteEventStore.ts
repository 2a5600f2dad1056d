import type Database from 'better-sqlite3';
import { EventEmitter } from 'node:events';
import {
  firstAfter,
  StoreUnavailableError,
  WrongExpectedRevisionError,
  type AppendResult,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type ReadAllOptions,
  type RecordedEvent,
  type SubscribeOptions,
  type Subscription,
  type StreamAppend,
  type SubscriptionHandler,
} from '../eventStore.ts';
import { deepFreeze } from '../../lib/deepFreeze.ts';
import { busyTimeoutOf, isBusy, openDatabase, unavailableReason } from '../../sqlite/openDatabase.ts';
import { openWalSync, type SyncFile } from './walSync.ts';

export type SqliteEventStoreOptions = {
  /** Path of the database file (shared with the read store in the embedded profile). */
  file: string;
  /** How often subscriptions look for events appended by other processes (the CLI). */
  pollIntervalMs?: number;
  /** How long an append waits for another process's write lock before failing with StoreUnavailableError. */
  busyTimeoutMs?: number;
  /** The WAL's length (pages) at which a commit of this connection checkpoints it (SQLite's default: 1,000). */
  autocheckpointPages?: number;
  /** How the WAL file is synced (fdatasync); tests hold it to see what waits for the disk. */
  syncWal?: SyncFile;
};

type PendingAppend = {
  stream: string;
  events: NewEvent[];
  expected: ExpectedRevision;
  resolve: (result: AppendResult) => void;
  reject: (error: unknown) => void;
};
/** An appendMany waiting for its turn: its own transaction, all or nothing. */
type PendingMany = {
  many: readonly StreamAppend[];
  resolve: (results: AppendResult[]) => void;
  reject: (error: unknown) => void;
};
type Pending = PendingAppend | PendingMany;

type EventRow = {
  position: number;
  id: string;
  stream: string;
  revision: number;
  type: string;
  data: string;
  metadata: string;
};

const SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  stream TEXT NOT NULL,
  revision INTEGER NOT NULL,
  type TEXT NOT NULL,
  data TEXT NOT NULL,
  metadata TEXT NOT NULL,
  UNIQUE (stream, revision)
);`;

/**
 * Event store on one SQLite file. Appends are committed together in one transaction (group
 * commit), and an append resolves only once its commit is synced to disk. The sync runs off the
 * event loop (walSync.ts, two at most at once), and the appends made while the syncs are busy are
 * committed together once one returns: requests keep being served while the disk works, and
 * concurrent ones share one sync.
 *
 * Subscriptions and readAll see an event of this process's only once it is on disk, as another
 * connection sees a synchronous=FULL commit: nothing reacts to (sends a webhook for, projects) an
 * event a power loss could still take back. readStream sees every commit at once, so a command
 * decides on the stream's latest revision; what it appends is synced after what it read.
 */
export function openSqliteEventStore(options: SqliteEventStoreOptions): EventStore {
  const db = openDatabase(options.file, { synchronous: 'FULL', busyTimeoutMs: options.busyTimeoutMs, autocheckpointPages: options.autocheckpointPages });
  db.exec(SCHEMA);
  // After each sync, what queued up meanwhile is committed and the next sync starts.
  const walSync = openWalSync(db, options.file, () => flush(), options.syncWal);
  const pollIntervalMs = options.pollIntervalMs ?? 200;
  const appended = new EventEmitter();
  appended.setMaxListeners(0);

  const lastRevisionStmt = db.prepare<[string], { revision: number | null }>(
    'SELECT max(revision) AS revision FROM events WHERE stream = ?',
  );
  const findByIdStmt = db.prepare<[string], { stream: string; revision: number; position: number }>(
    'SELECT stream, revision, position FROM events WHERE id = ?',
  );
  const insertStmt = db.prepare(
    'INSERT INTO events (id, stream, revision, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)',
  );
  const readStreamStmt = db.prepare<[string], EventRow>('SELECT * FROM events WHERE stream = ? ORDER BY revision');
  const readEventStmt = db.prepare<[string, number], EventRow>('SELECT * FROM events WHERE stream = ? AND revision = ?');
  const readStreamAfterStmt = db.prepare<[string, number], EventRow>(
    'SELECT * FROM events WHERE stream = ? AND revision > ? ORDER BY revision',
  );
  const readAllStmt = db.prepare<[number, number, number], EventRow>(
    'SELECT * FROM events WHERE position > ? AND position <= ? ORDER BY position LIMIT ?',
  );
  const headStmt = db.prepare<[], { position: number | null }>('SELECT max(position) AS position FROM events');
  const savepointStmt = db.prepare('SAVEPOINT append_one');
  const releaseStmt = db.prepare('RELEASE append_one');
  const rollbackToStmt = db.prepare('ROLLBACK TO append_one');
  const readAllFiltered = new Map<string, Database.Statement<unknown[], EventRow>>();

  const subscriptions = new Set<Subscription>();
  let pending: Pending[] = [];
  let flushScheduled = false;
  let closed = false;

  /** Appends one request's events; `written` gets the rows as written (the recent window takes them from there). */
  function appendOne(request: StreamAppend, written: EventRow[]): AppendResult {
    const { stream, events, expected } = request;
    const first = events[0];
    if (!first) throw new Error('append needs at least one event');
    const current = lastRevisionStmt.get(stream)?.revision ?? null;
    // A retried append of events we already hold (same ids) succeeds again without writing. Only
    // worth a look when the stream exists and either any revision goes or the expected one has
    // passed (as it has for a retry of an append that succeeded).
    if (current !== null && (expected === 'any' || !revisionMatches(expected, current))) {
      const existing = findByIdStmt.get(first.id);
      if (existing && existing.stream === stream) {
        const last = findByIdStmt.get(events[events.length - 1]!.id) ?? existing;
        return { revision: last.revision, position: last.position };
      }
    }
    if (!revisionMatches(expected, current)) throw new WrongExpectedRevisionError(stream, expected, current);
    let revision = current ?? -1;
    let position = 0;
    let metadataOf: unknown = undefined;
    let metadata = '';
    for (const event of events) {
      revision += 1;
      // The events of one append usually share one metadata object: serialized once.
      if (event.metadata !== metadataOf) {
        metadataOf = event.metadata;
        metadata = JSON.stringify(event.metadata);
      }
      const data = JSON.stringify(event.data);
      const info = insertStmt.run(event.id, stream, revision, event.type, data, metadata);
      position = Number(info.lastInsertRowid);
      written.push({ id: event.id, stream, revision, position, type: event.type, data, metadata });
    }
    return { revision, position };
  }

  type Outcome = { ok: true; result: AppendResult } | { ok: false; error: unknown };

  /**
   * Without savepoints, an append is refused (wrong revision, a duplicate id) before it writes
   * anything or by its first insert, which leaves nothing behind either. Should a later insert of
   * an append fail, the whole transaction is undone and the batch goes again with a savepoint per
   * append, so one refused append does not undo its neighbours.
   */
  const commitBatch = db.transaction((batch: PendingAppend[], savepoints: boolean) => {
    const outcomes: Outcome[] = [];
    const written: EventRow[] = [];
    for (const request of batch) {
      const mark = written.length;
      if (savepoints) savepointStmt.run();
      try {
        outcomes.push({ ok: true, result: appendOne(request, written) });
        if (savepoints) releaseStmt.run();
      } catch (error) {
        if (!savepoints && written.length !== mark) throw new PartlyWritten();
        if (savepoints) {
          rollbackToStmt.run();
          releaseStmt.run();
          written.length = mark;
        }
        outcomes.push({ ok: false, error });
      }
    }
    return { outcomes, written };
  });

  /** appendMany: every stream's append in one transaction, all written or none. */
  const commitMany = db.transaction((appends: readonly StreamAppend[]) => {
    const written: EventRow[] = [];
    return { results: appends.map((request) => appendOne(request, written)), written };
  });

  /*
   * The write lock is first asked for without waiting: while another connection holds it, the
   * queue waits on a timer rather than in SQLite's busy handler, which would sleep on the event
   * loop. After busyTimeoutMs, or when the store closes, the next try waits in SQLite as any
   * other write does, and fails as unavailable if the lock is still held.
   */
  const busyTimeoutMs = busyTimeoutOf(options.busyTimeoutMs);
  const waitNot = db.prepare('PRAGMA busy_timeout = 0');
  const waitAgain = db.prepare(`PRAGMA busy_timeout = ${busyTimeoutMs}`);
  let busySince: number | null = null;
  const BUSY_RETRY_MS = 1;

  /** Runs one transaction; `LockBusy` when another connection held the write lock and `wait` was false. */
  function inTransaction<T>(run: () => T, wait: boolean): T | typeof LockBusy {
    if (wait) return run();
    waitNot.get();
    try {
      return run();
    } catch (error) {
      if (isBusy(error)) return LockBusy;
      throw error;
    } finally {
      waitAgain.get();
    }
  }

  /**
   * Commits the queued appends, in order: consecutive single appends in one group transaction, an
   * appendMany in its own. Waits while the syncs are busy (one calls flush again when it returns), and
   * while another connection holds the write lock (a timer calls it again).
   */
  function flush(): void {
    flushScheduled = false;
    if (walSync.syncing || pending.length === 0) return;
    const queue = pending;
    pending = [];
    if (walSync.failure !== null) {
      for (const item of queue) item.reject(walSync.failure);
      return;
    }
    const wait = closed || (busySince !== null && Date.now() - busySince >= busyTimeoutMs);
    let group: PendingAppend[] = [];
    let rest: Pending[] | null = null;
    for (let i = 0; i < queue.length; i++) {
      const item = queue[i]!;
      if (!('many' in item)) {
        group.push(item);
        continue;
      }
      if (!commitGroup(group, wait)) {
        rest = [...group, ...queue.slice(i)];
        break;
      }
      group = [];
      if (!commitAppendMany(item, wait)) {
        rest = queue.slice(i);
        break;
      }
    }
    if (rest === null && !commitGroup(group, wait)) rest = group;
    walSync.start();
    if (rest === null) {
      busySince = null;
      return;
    }
    busySince ??= Date.now();
    pending = rest.concat(pending);
    flushScheduled = true;
    setTimeout(flush, BUSY_RETRY_MS);
  }

  /** Commits one group; false when the write lock was busy (nothing written, the group to go again). */
  function commitGroup(batch: PendingAppend[], wait: boolean): boolean {
    if (batch.length === 0) return true;
    return commitOne(
      () => {
        try {
          return commitBatch.immediate(batch, false);
        } catch (error) {
          if (!(error instanceof PartlyWritten)) throw error;
          return commitBatch.immediate(batch, true);
        }
      },
      wait,
      ({ outcomes }) =>
        outcomes.forEach((outcome, i) => {
          const request = batch[i]!;
          if (outcome.ok) request.resolve(outcome.result);
          else request.reject(outcome.error);
        }),
      (error) => {
        for (const request of batch) request.reject(error);
      },
    );
  }

  /** Commits one appendMany; false when the write lock was busy. */
  function commitAppendMany(item: PendingMany, wait: boolean): boolean {
    return commitOne(() => commitMany.immediate(item.many), wait, ({ results }) => item.resolve(results), item.reject);
  }

  /**
   * Runs one commit: `settle` once its sync returns (then the subscriptions hear of it), `fail` if
   * the commit or its sync failed; false when the write lock was busy (nothing written).
   */
  function commitOne<T extends { written: EventRow[] }>(run: () => T, wait: boolean, settle: (committed: T) => void, fail: (error: unknown) => void): boolean {
    let committed;
    try {
      committed = inTransaction(run, wait);
    } catch (error) {
      fail(unavailable(error));
      return true;
    }
    if (committed === LockBusy) return false;
    // The head moved: reads from here on look again (the cached streams we appended to, above all).
    headThisTurn = null;
    const done = committed;
    walSync.committed(
      done.written[0]?.position ?? null,
      () => {
        durable(done.written);
        settle(done);
        appended.emit('appended');
      },
      fail,
    );
    return true;
  }

  /** A failed commit as the port names it: StoreUnavailableError when the machine, not the write, is at fault. */
  function unavailable(error: unknown): unknown {
    const reason = unavailableReason(error);
    return reason ? new StoreUnavailableError(`event log: ${reason}; nothing was written`, { cause: error }) : error;
  }

  function schedule(item: Pending): void {
    pending.push(item);
    if (!flushScheduled) {
      flushScheduled = true;
      setImmediate(flush);
    }
  }

  /** A commit of ours is on disk: the subscriptions may read it. */
  function durable(written: EventRow[]): void {
    commits += 1;
    // Kept for the subscriptions of this connection: a store with none (the server's thread, its
    // projections on the subscriber thread) parses and holds nothing; its reads ask the file.
    if (subscriptions.size > 0) rememberWritten(written);
  }

  // Recorded events are shared between readers (the recent window, the stream cache): frozen, so
  // a reader that mutates one fails loudly instead of corrupting what the others see.
  function toRecorded(row: EventRow): RecordedEvent {
    return deepFreeze({
      id: row.id,
      stream: row.stream,
      revision: row.revision,
      position: row.position,
      type: row.type,
      data: JSON.parse(row.data) as unknown,
      metadata: JSON.parse(row.metadata) as RecordedEvent['metadata'],
    });
  }

  /**
   * Events after `from`, and the position up to which every event has been looked at; for an
   * unfiltered scan also each event's size as stored (its data and metadata JSON).
   */
  type Scan = { events: RecordedEvent[]; scannedTo: number; bytes?: number[] };
  const sizeOf = (row: EventRow) => row.data.length + row.metadata.length;

  function queryAll(from: number, limit: number, streamPrefixes: readonly string[] | undefined): Scan {
    // Below this process's first event still waiting for its fsync (a commit of another process
    // is taken as it comes: with synchronous=FULL it is visible only once synced).
    const cap = walSync.durableCap();
    if (!streamPrefixes || streamPrefixes.length === 0) {
      const rows = readAllStmt.all(from, cap, limit);
      const events = rows.map(toRecorded);
      return { events, scannedTo: events.length > 0 ? events[events.length - 1]!.position : from, bytes: rows.map(sizeOf) };
    }
    const key = streamPrefixes.join('\n');
    let stmt = readAllFiltered.get(key);
    if (!stmt) {
      // GLOB is case-sensitive and needs no escaping for our prefixes (letters, digits, _ and -).
      // `+stream` keeps the planner on the position range: through the (stream, revision) index
      // it would visit every event of the matching streams and sort them, on every read.
      const where = streamPrefixes.map(() => '+stream GLOB ?').join(' OR ');
      stmt = db.prepare<unknown[], EventRow>(
        `SELECT * FROM events WHERE position > ? AND position <= ? AND (${where}) ORDER BY position LIMIT ?`,
      );
      readAllFiltered.set(key, stmt);
    }
    // Bounded by the head read first, so a short answer means everything up to the head was seen
    // (positions only grow: a later commit, ours or another process's, lands above it).
    const head = Math.min(headStmt.get()?.position ?? 0, cap);
    const events = stmt.all(from, head, ...streamPrefixes.map((p) => `${p}*`), limit).map(toRecorded);
    return { events, scannedTo: events.length === limit ? events[events.length - 1]!.position : Math.max(from, head) };
  }

  /*
   * Every subscription of this process reads the same new events after each commit; `recent`
   * lets them share one query and one JSON.parse. It holds EVERY event in (recentFrom, recentTo],
   * taken only from unfiltered query results: a later commit (ours or another process's) always
   * lands above the highest position ever assigned, so that range stays complete. Past recentTo
   * nothing is assumed: a read reaching the window's end asks the database for the rest.
   */
  let recent: RecordedEvent[] = [];
  let recentBytes: number[] = [];
  let recentSize = 0;
  let recentFrom = 0;
  let recentTo = 0;
  // Bounded by size too: a count alone would let a burst of 1 MiB webhooks keep gigabytes.
  // Past either bound the older half goes.
  const RECENT_MAX = 20_000;
  const RECENT_MAX_BYTES = 64 * 1024 * 1024;
  /*
   * Commits of this process on disk so far, and their count when a query last found nothing past
   * recentTo. While the two are equal only another process can have appended since, which the
   * poll timer looks for: a subscription not woken by it skips the empty query after our commits.
   */
  let commits = 0;
  let endSeenAtCommit = -1;
  /** Events a wake() reads ahead into the window for the subscriptions. */
  const WAKE_READ_LIMIT = 1000;

  /*
   * Our own commit continues the window when its first event directly follows the window's end
   * (the write lock held while the rows were numbered kept other processes' events out): the
   * subscriptions then read them from memory instead of reading back what we just wrote.
   */
  function rememberWritten(written: EventRow[]): void {
    const first = written[0];
    if (!first || first.position !== recentTo + 1) return;
    if (written.some((row, i) => row.position !== first.position + i)) return;
    // Events of one append share their metadata: parsed once, shared frozen.
    let metadataJson = '';
    let metadata: RecordedEvent['metadata'] | null = null;
    const events = written.map((row): RecordedEvent => {
      if (metadata === null || row.metadata !== metadataJson) {
        metadataJson = row.metadata;
        metadata = deepFreeze(JSON.parse(row.metadata) as RecordedEvent['metadata']);
      }
      const { id, stream, revision, position, type } = row;
      return deepFreeze({ id, stream, revision, position, type, data: JSON.parse(row.data) as unknown, metadata });
    });
    remember(recentTo, events, written.map(sizeOf));
    endSeenAtCommit = commits;
  }

  function remember(from: number, rows: RecordedEvent[], bytes: number[]): void {
    if (rows.length === 0) return;
    if (from === recentTo) {
      recent.push(...rows);
      recentBytes.push(...bytes);
    } else if (from > recentTo) {
      recent = rows.slice();
      recentBytes = bytes.slice();
      recentSize = 0;
      recentFrom = from;
    } else return;
    for (const b of bytes) recentSize += b;
    recentTo = rows[rows.length - 1]!.position;
    if (recent.length > RECENT_MAX || recentSize > RECENT_MAX_BYTES) {
      let drop = Math.max(0, recent.length - RECENT_MAX / 2);
      for (let i = 0; i < drop; i++) recentSize -= recentBytes[i]!;
      while (drop < recent.length && recentSize > RECENT_MAX_BYTES / 2) recentSize -= recentBytes[drop++]!;
      const dropped = recent.splice(0, drop);
      recentBytes.splice(0, drop);
      // Everything may go (one event over half the bound): the window is then empty at its end.
      recentFrom = dropped.length > 0 ? dropped[dropped.length - 1]!.position : recentFrom;
    }
  }

  /** Reads on from the window's end (`from`), unless `knownEnd` and nothing of ours was committed since the end was last seen. */
  function readTail(from: number, limit: number, streamPrefixes: readonly string[] | undefined, knownEnd: boolean): Scan {
    const filtered = streamPrefixes !== undefined && streamPrefixes.length > 0;
    if (knownEnd && from === recentTo && endSeenAtCommit === commits) return { events: [], scannedTo: from };
    const scan = queryAll(from, limit, streamPrefixes);
    if (!filtered) {
      remember(from, scan.events, scan.bytes!);
      // `from` was the window's end, so a short answer means the window now reaches the file's end.
      if (scan.events.length < limit) endSeenAtCommit = commits;
    }
    return scan;
  }

  function readAllSync({ after, limit, streamPrefixes }: ReadAllOptions, knownEnd = false): Scan {
    const from = after ?? 0;
    const filtered = streamPrefixes !== undefined && streamPrefixes.length > 0;
    if (from < recentFrom || from >= recentTo || limit <= 0) {
      if (limit <= 0 || from < recentFrom || from > recentTo) {
        const scan = queryAll(from, limit, streamPrefixes);
        if (!filtered) remember(from, scan.events, scan.bytes!);
        return scan;
      }
      return readTail(from, limit, streamPrefixes, knownEnd);
    }
    const lo = firstAfter(recent, from);
    const out: RecordedEvent[] = [];
    for (let i = lo; i < recent.length && out.length < limit; i++) {
      const event = recent[i]!;
      if (!filtered || streamPrefixes.some((p) => event.stream.startsWith(p))) out.push(event);
    }
    if (out.length === limit) return { events: out, scannedTo: out[out.length - 1]!.position };
    const rest = readTail(recentTo, limit - out.length, streamPrefixes, knownEnd);
    return { events: out.concat(rest.events), scannedTo: rest.scannedTo };
  }

  /*
   * Hot streams (a catch URL's trigger, its key claim) are read on every request. A stream grows
   * by contiguous revisions, so while its highest revision in the file is the one we hold, so are
   * its events: one index lookup replaces parsing every row, and none is needed while the file's
   * head is the one it was checked at. The head is read once per turn of the event loop and after
   * each commit of ours, so any process's append is seen from the next turn on.
   */
  type CachedStream = { events: RecordedEvent[]; checkedAt: number; bytes: number };
  const streamCache = new Map<string, CachedStream>();
  /* At most 2,000 streams and 32 MiB of their JSON; a stream over a quarter of that is not kept. */
  const STREAM_CACHE_MAX = 2_000;
  const STREAM_CACHE_MAX_BYTES = 32 * 1024 * 1024;
  let streamCacheBytes = 0;
  function uncache(stream: string): void {
    const entry = streamCache.get(stream);
    if (!entry) return;
    streamCacheBytes -= entry.bytes;
    streamCache.delete(stream);
  }
  /** Makes room for `bytes` more, dropping the streams cached longest ago. */
  function makeRoom(bytes: number, keep?: string): void {
    for (const oldest of streamCache.keys()) {
      if (streamCache.size < STREAM_CACHE_MAX && streamCacheBytes + bytes <= STREAM_CACHE_MAX_BYTES) return;
      if (oldest !== keep) uncache(oldest);
    }
  }
  let headThisTurn: number | null = null;
  function currentHead(): number {
    if (headThisTurn === null) {
      headThisTurn = headStmt.get()?.position ?? 0;
      setImmediate(() => (headThisTurn = null));
    }
    return headThisTurn;
  }

  function readStreamSync(stream: string): RecordedEvent[] {
    const head = currentHead();
    const cached = streamCache.get(stream);
    if (cached) {
      const events = cached.events;
      if (cached.checkedAt === head) return events.slice();
      const revision = lastRevisionStmt.get(stream)?.revision ?? null;
      const held = events[events.length - 1]!.revision;
      if (revision !== null && revision > held) {
        // Only the newer rows are read (counter streams grow by one event per allocation).
        let added = 0;
        for (const row of readStreamAfterStmt.all(stream, held)) {
          events.push(toRecorded(row));
          added += sizeOf(row);
        }
        makeRoom(added, stream);
        cached.bytes += added;
        streamCacheBytes += added;
      }
      if (revision !== null && revision >= held && events[events.length - 1]!.revision === events.length - 1 && cached.bytes <= STREAM_CACHE_MAX_BYTES / 4) {
        cached.checkedAt = head;
        return events.slice();
      }
      uncache(stream);
    }
    const rows = readStreamStmt.all(stream);
    const events = rows.map(toRecorded);
    const bytes = rows.reduce((sum, row) => sum + sizeOf(row), 0);
    if (events.length > 0 && bytes <= STREAM_CACHE_MAX_BYTES / 4) {
      makeRoom(bytes);
      streamCache.set(stream, { events, checkedAt: head, bytes });
      streamCacheBytes += bytes;
    }
    return events.slice();
  }

  function subscribe(handler: SubscriptionHandler, options: SubscribeOptions): Subscription {
    let checkpoint = options.after;
    let stopped = false;
    let wake: (() => void) | null = null;
    const batchSize = options.batchSize ?? 500;
    const onAppended = () => wake?.();
    appended.on('appended', onAppended);

    // Resolves true when the poll timer ended the sleep, false when an append of ours did.
    const sleep = () =>
      new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => done(true), pollIntervalMs);
        function done(polled = false) {
          clearTimeout(timer);
          wake = null;
          resolve(polled);
        }
        wake = () => done(false);
      });

    const run = async () => {
      // The first read, and each after the poll timer fired, asks the database for what lies past the window.
      let polled = true;
      try {
        while (!stopped) {
          // A filtered subscription moves past the events it skipped too, so each read starts
          // where the last one stopped looking, not at the last event it wanted.
          const { events, scannedTo } = readAllSync(
            { after: checkpoint, limit: batchSize, streamPrefixes: options.streamPrefixes },
            !polled,
          );
          polled = false;
          if (events.length === 0) {
            const skipped = scannedTo > (checkpoint ?? 0);
            checkpoint = Math.max(checkpoint ?? 0, scannedTo);
            if (skipped && options.onCheckpoint) await options.onCheckpoint(checkpoint);
            polled = await sleep();
            continue;
          }
          await handler(events);
          checkpoint = Math.max(events[events.length - 1]!.position, scannedTo);
        }
      } finally {
        appended.off('appended', onAppended);
      }
    };
    const done = run();
    done.catch(() => undefined);
    const subscription: Subscription = {
      done,
      async stop() {
        stopped = true;
        wake?.();
        await done.catch(() => undefined);
        subscriptions.delete(subscription);
      },
    };
    subscriptions.add(subscription);
    return subscription;
  }

  return {
    append(stream, events, expected) {
      if (closed) return Promise.reject(new Error('event store is closed'));
      if (walSync.failure !== null) return Promise.reject(walSync.failure);
      return new Promise<AppendResult>((resolve, reject) => schedule({ stream, events, expected, resolve, reject }));
    },
    atomicAppendMany: true,
    appendMany(appends) {
      if (closed) return Promise.reject(new Error('event store is closed'));
      if (walSync.failure !== null) return Promise.reject(walSync.failure);
      if (appends.length === 0) return Promise.resolve([]);
      // In the same queue as single appends: this process's appends keep their order.
      return new Promise<AppendResult[]>((resolve, reject) => schedule({ many: appends, resolve, reject }));
    },
    async readStream(stream) {
      return readStreamSync(stream);
    },
    async readEvent(stream, revision) {
      const row = readEventStmt.get(stream, revision);
      // An event of ours still waiting for its sync is not shown, as readAll does not show it.
      return row && row.position <= walSync.durableCap() ? toRecorded(row) : null;
    },
    async readAll(opts) {
      // Positions are integers: from p is after p - 1.
      return readAllSync(opts.from === undefined ? opts : { ...opts, after: opts.from - 1 }).events;
    },
    async headPosition() {
      return headStmt.get()?.position ?? null;
    },
    subscribe,
    wake() {
      // Another process or thread appended. When the window reaches the file's end, read what it
      // appended into the window once, for every subscription to share (as for our own commits);
      // a window that ends short of it, or a read that fills the page, leaves the end unknown, and
      // each subscription asks the database itself.
      if (!closed && endSeenAtCommit === commits) {
        try {
          if (readTail(recentTo, WAKE_READ_LIMIT, undefined, false).events.length >= WAKE_READ_LIMIT) endSeenAtCommit = -1;
        } catch {
          // A locked or failing file: the subscriptions' own reads meet it and retry as they do.
          endSeenAtCommit = -1;
        }
      }
      appended.emit('appended');
    },
    async close() {
      if (closed) return;
      // Subscriptions end first: polling a closed database would fail them with an error.
      await Promise.all([...subscriptions].map((s) => s.stop()));
      closed = true;
      // The appends queued last are committed (once a sync running returns) and synced before the file closes.
      flush();
      await walSync.idle();
      walSync.close();
      db.close();
    },
  };
}

/** What a transaction that could not have the write lock at once gives back (nothing was written). */
const LockBusy = Symbol('LockBusy');

/** An append failed after some of its rows were inserted: its batch is redone append by append. */
class PartlyWritten extends Error {}

function revisionMatches(expected: ExpectedRevision, current: number | null): boolean {
  if (expected === 'any') return true;
  if (expected === 'no_stream') return current === null;
  return current === expected;
}
