import type { EventStore, RecordedEvent, Subscription } from '../eventStore/eventStore.ts';
import { assertCheckpointInLog } from './assertCheckpointInLog.ts';
import { projectionPositions } from './projectionPositions.ts';
import { DocCache } from './docCache.ts';
import type { Projection } from './projection.ts';
import { CheckpointConflictError, type ReadStore, type WriteOp } from '../readStore/readStore.ts';
import { UnitOfWork } from './unitOfWork.ts';

export type Logger = {
  error: (obj: object, msg: string) => void;
  info: (obj: object, msg: string) => void;
};

export type ProjectionRunner = {
  /** Resolves once every projection has applied the log up to `position` (read-your-writes). */
  waitFor(position: number, timeoutMs?: number): Promise<boolean>;
  /** The lowest checkpoint across projections (null before any event). */
  checkpoint(): number | null;
  /**
   * The checkpoint of one projection as this runner last applied it (undefined for a name it
   * does not run): free to read, so hot read paths use it to tell whether a read model changed.
   * With lazy checkpoints it may be ahead of the stored one. Commits by another process (the
   * CLI) show up once this runner's subscription meets them.
   */
  checkpointOf(name: string): number | null | undefined;
  /** How many waitFor calls are pending: requests waiting for the read models (a gauge, and a test's seam). */
  waiting(): number;
  stop(): Promise<void>;
};

export type ProjectionRunnerOptions = {
  /**
   * Skip the commit of a batch that wrote nothing: the position moves in memory only, and the
   * stored checkpoint follows with the next batch that writes, once `maxUnstoredEvents` events
   * went unstored, and on stop(). Only for a runner whose stored checkpoints nobody else waits
   * on: a process watching them would see a current projection as up to that many events behind.
   */
  lazyCheckpoints?: boolean;
  /** Events a lazy runner may apply past its stored checkpoint; a crash re-reads at most these. */
  maxUnstoredEvents?: number;
  /** Called whenever a projection's position moves (the subscriber thread tells the API's thread). */
  onProgress?: () => void;
};

/**
 * 1,000 events: under a catch URL's load (hundreds of small batches a second, most of them of
 * no interest to four projections out of five) that is one empty commit per projection every
 * few seconds instead of hundreds a second, while what it costs stays small: after a crash each
 * projection re-reads at most 1,000 events it wrote nothing for (a clean stop stores them all),
 * and the CLI's catch-up beside a running server reads at most that many more per projection.
 */
export const MAX_UNSTORED_EVENTS = 1000;

/**
 * Applies one batch of events to a projection: the writes it makes, not committed yet. With a
 * cache, documents come from it before the store.
 */
async function applyEvents(readStore: ReadStore, projection: Projection, events: RecordedEvent[], cache?: DocCache): Promise<WriteOp[]> {
  const uow = new UnitOfWork(readStore, cache);
  const all = projection.eventTypes === 'all';
  const types = new Set(all ? [] : projection.eventTypes);
  for (const event of events) {
    if (all || types.has(event.type)) await projection.apply(event, uow);
  }
  return uow.ops();
}

/**
 * Applies one batch of events to a projection and moves its checkpoint, atomically; the
 * committed writes go into the cache, if one is given.
 */
export async function applyBatch(
  readStore: ReadStore,
  projection: Projection,
  events: RecordedEvent[],
  expected: number | null,
  cache?: DocCache,
): Promise<number> {
  const ops = await applyEvents(readStore, projection, events, cache);
  const next = events[events.length - 1]!.position;
  await readStore.commit(projection.name, ops, { expected, next });
  cache?.committed(ops);
  return next;
}

/** Where the read store records which version of each projection's code built its read models. */
export const PROJECTION_VERSIONS = 'projection_versions';

type VersionDoc = { id: string; version: number };

/**
 * Rebuilds, from the event log, each projection whose read models were built by another version
 * of its code (an upgrade that changed what `apply` makes of past events), and records the
 * version of a new one. Read models from before versions were recorded count as version 1.
 * Runs before a process applies anything; the rebuild goes on from its stored checkpoint if
 * another process rebuilds the same projection at the same time (a rolling restart).
 */
export async function upgradeProjections(store: EventStore, readStore: ReadStore, projections: readonly Projection[], logger: Logger): Promise<void> {
  for (const projection of projections) {
    const wanted = projection.version ?? 1;
    const recorded = await readStore.get<VersionDoc>(PROJECTION_VERSIONS, projection.name);
    const built = recorded?.version ?? ((await readStore.readCheckpoint(projection.name)) === null ? null : 1);
    if (built === wanted) {
      if (!recorded) await readStore.upsert(PROJECTION_VERSIONS, { id: projection.name, version: wanted });
      continue;
    }
    if (built === null) {
      await readStore.upsert(PROJECTION_VERSIONS, { id: projection.name, version: wanted });
      continue;
    }
    logger.info({ projection: projection.name, from: built, to: wanted }, 'projection code changed: rebuilding its read models from the event log');
    const started = performance.now();
    const { events } = await rebuildProjection(store, readStore, projection);
    logger.info({ projection: projection.name, events, ms: Math.round(performance.now() - started) }, 'projection rebuilt');
  }
}

/**
 * Each projection's collections get the indexes it declares, and lose those an earlier version
 * declared: read models are cleared, not dropped, on a rebuild, so an index left over would
 * otherwise cost every write for good.
 */
export async function ensureIndexes(readStore: ReadStore, projections: readonly Projection[]): Promise<void> {
  for (const p of projections) {
    for (const collection of p.collections) {
      const declared = (p.indexes ?? []).filter((i) => i.collection === collection).map((i) => i.fields);
      for (const fields of declared) await readStore.ensureIndex(collection, fields);
      await readStore.dropIndexesExcept(collection, declared);
    }
  }
}

/**
 * Runs each projection as its own subscription from its stored checkpoint. A batch that fails
 * (a bug, a store hiccup) is retried from the stored checkpoint after a pause, never skipped.
 * Every batch's checkpoint is stored unless `options.lazyCheckpoints`.
 */
export async function startProjections(
  store: EventStore,
  readStore: ReadStore,
  projections: readonly Projection[],
  logger: Logger,
  options: ProjectionRunnerOptions = {},
): Promise<ProjectionRunner> {
  const lazy = options.lazyCheckpoints ?? false;
  const maxUnstored = options.maxUnstoredEvents ?? MAX_UNSTORED_EVENTS;
  await upgradeProjections(store, readStore, projections, logger);
  await ensureIndexes(readStore, projections);
  const positions = projectionPositions();
  const subscriptions = new Map<string, Subscription>();
  let stopped = false;
  const onProgress = options.onProgress ?? (() => undefined);
  /** The projection got to `position`: the waits it meets settle, and whoever follows progress is told. */
  const moved = (name: string, position: number | null) => {
    positions.set(name, position);
    onProgress();
  };

  const run = async (projection: Projection) => {
    // `stored` is the checkpoint in the read store as this runner knows it: every commit expects
    // it, so another process moving it (the CLI) fails the commit and we restart from its value.
    let stored: number | null = null;
    let position: number | null = null;
    while (!stopped) {
      let from: number | null;
      try {
        from = await readStore.readCheckpoint(projection.name);
      } catch (error) {
        // A reset under way (MongoDB), or the read store out of reach: wait and look again; never end the loop.
        logger.error({ err: error, projection: projection.name }, 'projection cannot read its checkpoint; retrying');
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      // stop() may have come while we read: it waits for this loop, not for a subscription it never saw.
      if (stopped) break;
      stored = position = from;
      let unstored = 0;
      moved(projection.name, from);
      // A new one on every (re)start: after a checkpoint conflict another writer's documents count.
      const cache = new DocCache(undefined, new Set(projection.writeOnly));
      const subscription = store.subscribe(
        async (events) => {
          const ops = await applyEvents(readStore, projection, events, cache);
          const next = events[events.length - 1]!.position;
          unstored += events.length;
          if (!lazy || ops.length > 0 || unstored >= maxUnstored) {
            await readStore.commit(projection.name, ops, { expected: stored, next });
            cache.committed(ops);
            stored = next;
            unstored = 0;
          }
          position = next;
          moved(projection.name, next);
        },
        { after: from },
      );
      subscriptions.set(projection.name, subscription);
      try {
        await subscription.done;
      } catch (error) {
        // Another process (the CLI) moved the checkpoint: routine, start again from it at once.
        if (error instanceof CheckpointConflictError) continue;
        logger.error({ err: error, projection: projection.name }, 'projection failed; retrying from its checkpoint');
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
    // Every batch up to `position` is applied (written, or wrote nothing): store it, so a clean
    // restart goes on from there.
    if (position !== stored && position !== null) {
      try {
        await readStore.commit(projection.name, [], { expected: stored, next: position });
      } catch (error) {
        // The CLI moved it meanwhile: its checkpoint stands, and a restart goes on from it.
        if (!(error instanceof CheckpointConflictError)) {
          logger.error({ err: error, projection: projection.name }, 'projection checkpoint not stored on stop; a restart re-applies from the stored one');
        }
      }
    }
  };

  for (const p of projections) {
    const checkpoint = await readStore.readCheckpoint(p.name);
    await assertCheckpointInLog(store, p.name, checkpoint, `rebuild its read models from this log (\`commerce projections rebuild ${p.name}\`), or restore the read store that goes with it`);
    positions.set(p.name, checkpoint);
  }
  const loops = projections.map((p) => run(p));

  return {
    waitFor: (position, timeoutMs) => positions.waitFor(position, timeoutMs),
    checkpoint: () => positions.lowest(),
    checkpointOf: (name) => positions.get(name),
    waiting: () => positions.waiting(),
    async stop() {
      stopped = true;
      await Promise.all([...subscriptions.values()].map((s) => s.stop()));
      await Promise.all(loops);
      positions.close();
    },
  };
}

/**
 * Drops a projection's read model and replays the whole log into it, reporting progress. A server
 * running beside it (its runner's next commit fails on the reset, and it starts again from our
 * checkpoint) may apply some of the same events first: our commit then fails the checkpoint
 * compare-and-set, and we go on from the checkpoint it stored, as catchUpProjections does.
 */
export async function rebuildProjection(
  store: EventStore,
  readStore: ReadStore,
  projection: Projection,
  onProgress: (done: number, total: number) => void = () => undefined,
  batchSize = 1000,
): Promise<{ events: number }> {
  await readStore.reset(projection.name, projection.collections);
  await ensureIndexes(readStore, [projection]);
  const head = (await store.headPosition()) ?? 0;
  let checkpoint: number | null = null;
  let seen = 0;
  for (let conflicts = 0; ; ) {
    const events = await store.readAll({ after: checkpoint, limit: batchSize });
    if (events.length === 0) break;
    try {
      checkpoint = await applyBatch(readStore, projection, events, checkpoint);
    } catch (error) {
      if (!(error instanceof CheckpointConflictError) || ++conflicts > 100) throw error;
      checkpoint = await readStore.readCheckpoint(projection.name);
      continue;
    }
    conflicts = 0;
    seen += events.length;
    onProgress(Math.min(checkpoint, head), head);
  }
  onProgress(head, head);
  // Only now: a rebuild cut short leaves the old version recorded, so the next start rebuilds again.
  await readStore.upsert(PROJECTION_VERSIONS, { id: projection.name, version: projection.version ?? 1 });
  return { events: seen };
}

/**
 * Brings every projection up to the head of the log once, then returns: for one-shot processes
 * (the CLI) that read models right after writing. Another process committing the same projection
 * meanwhile is fine: the checkpoint compare-and-set fails, we re-read it and go on from there.
 */
export async function catchUpProjections(
  store: EventStore,
  readStore: ReadStore,
  projections: readonly Projection[],
  batchSize = 1000,
  logger: Logger = { error: () => undefined, info: () => undefined },
): Promise<void> {
  await upgradeProjections(store, readStore, projections, logger);
  await ensureIndexes(readStore, projections);
  for (const projection of projections) {
    for (let conflicts = 0; ; ) {
      const checkpoint = await readStore.readCheckpoint(projection.name);
      const events = await store.readAll({ after: checkpoint, limit: batchSize });
      if (events.length === 0) break;
      try {
        await applyBatch(readStore, projection, events, checkpoint);
      } catch (error) {
        if (!(error instanceof CheckpointConflictError) || ++conflicts > 100) throw error;
      }
    }
  }
}
