import type { EventStore, RecordedEvent, Subscription } from '../eventStore/eventStore.ts';
import { assertCheckpointInLog } from './assertCheckpointInLog.ts';
import { projectionPositions } from './projectionPositions.ts';
import { DocCache } from './docCache.ts';
import type { Projection } from './projection.ts';
import { CheckpointConflictError, type ReadStore, type WriteOp } from '../readStore/readStore.ts';
import { UnitOfWork } from './unitOfWork.ts';
import {
  PROJECTION_VERSIONS,
  ProjectionDowngradeError,
  generationView,
  newGeneration,
  rawReadStore,
  type VersionDoc,
} from './readModelGenerations.ts';

export { PROJECTION_VERSIONS };

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
 * 1,000 events: under a catch URL's load (many small batches, most of them of no interest to
 * four projections out of five) that is one empty commit per projection every 1,000 events
 * rather than one per batch, while what it costs stays small: after a crash each
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

/**
 * The generation of a projection's read models this process applies events to: the one served
 * when this version of the code built it; else (an upgrade changed what `apply` makes of past
 * events) a new one built from the log beside it and switched to once caught up
 * (readModelGenerations.ts). Never an older version (ProjectionDowngradeError). Processes building
 * the same generation at once (a rolling restart) share its checkpoint.
 */
async function servedGeneration(store: EventStore, readStore: ReadStore, projection: Projection, logger: Logger): Promise<string> {
  const raw = rawReadStore(readStore);
  const wanted = projection.version ?? 1;
  const recorded = await raw.get<VersionDoc>(PROJECTION_VERSIONS, projection.name);
  const built = recorded?.version ?? ((await raw.readCheckpoint(projection.name)) === null ? null : 1);
  // Current, or never built (then nothing is recorded either): record the version if need be.
  if (built === wanted || built === null) {
    if (!recorded) await raw.upsert(PROJECTION_VERSIONS, { id: projection.name, version: wanted });
    return recorded?.suffix ?? '';
  }
  if (built > wanted) throw new ProjectionDowngradeError(projection.name, built, wanted);
  logger.info({ projection: projection.name, from: built, to: wanted }, 'projection code changed: building its read models from the event log beside the ones served');
  const started = performance.now();
  // By version only: every process of this version builds (or goes on building) the same one.
  const suffix = `__v${wanted}`;
  const { events } = await buildGeneration(store, generationView(raw, projection, suffix), projection, true);
  await switchGeneration(raw, projection, recorded, suffix);
  logger.info({ projection: projection.name, events, ms: Math.round(performance.now() - started) }, 'projection rebuilt: now served');
  return suffix;
}

/**
 * Makes every projection's read models current for this version of its code (servedGeneration)
 * and returns the generation of each: what a process applies events to.
 */
export async function upgradeProjections(
  store: EventStore,
  readStore: ReadStore,
  projections: readonly Projection[],
  logger: Logger,
): Promise<Map<string, string>> {
  const suffixes = new Map<string, string>();
  for (const projection of projections) suffixes.set(projection.name, await servedGeneration(store, readStore, projection, logger));
  return suffixes;
}

/** The switch to a generation: one write of the record readers go by; the one served two switches ago is dropped. */
async function switchGeneration(raw: ReadStore, projection: Projection, recorded: VersionDoc | null, suffix: string): Promise<void> {
  const served = recorded?.suffix ?? '';
  await raw.upsert(PROJECTION_VERSIONS, { id: projection.name, version: projection.version ?? 1, suffix, previous: served } satisfies VersionDoc);
  const stale = recorded?.previous;
  if (stale !== undefined && stale !== suffix && stale !== served) {
    await generationView(raw, projection, stale).reset(projection.name, projection.collections);
  }
}

/**
 * Applies the whole log to one generation of a projection (through its view), from its stored
 * checkpoint when `resume` and it has one, else from an emptied generation. Another process
 * applying to the same generation meanwhile makes our commit fail the checkpoint compare-and-set:
 * we go on from the checkpoint it stored.
 */
async function buildGeneration(
  store: EventStore,
  view: ReadStore,
  projection: Projection,
  resume: boolean,
  onProgress: (done: number, total: number) => void = () => undefined,
  batchSize = 1000,
): Promise<{ events: number }> {
  let checkpoint = resume ? await view.readCheckpoint(projection.name) : null;
  if (checkpoint === null) await view.reset(projection.name, projection.collections);
  await ensureIndexes(view, [projection]);
  const head = (await store.headPosition()) ?? 0;
  let seen = 0;
  for (let conflicts = 0; ; ) {
    const events = await store.readAll({ after: checkpoint, limit: batchSize });
    if (events.length === 0) break;
    try {
      checkpoint = await applyBatch(view, projection, events, checkpoint);
    } catch (error) {
      if (!(error instanceof CheckpointConflictError) || ++conflicts > 100) throw error;
      checkpoint = await view.readCheckpoint(projection.name);
      continue;
    }
    conflicts = 0;
    seen += events.length;
    onProgress(Math.min(checkpoint, head), head);
  }
  onProgress(head, head);
  return { events: seen };
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
  const raw = rawReadStore(readStore);
  const generations = await upgradeProjections(store, raw, projections, logger);
  for (const p of projections) await ensureIndexes(generationView(raw, p, generations.get(p.name)!), [p]);
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
    let generation = generations.get(projection.name)!;
    let readStore = generationView(raw, projection, generation);
    while (!stopped) {
      let from: number | null;
      try {
        if (stored !== null || position !== null) {
          // A restart: another process may have switched the generation served (a rebuild).
          const next = await servedGeneration(store, raw, projection, logger);
          if (next !== generation) {
            generation = next;
            readStore = generationView(raw, projection, next);
            logger.info({ projection: projection.name, generation: next || '(first)' }, 'projection follows the generation now served');
          }
        }
        from = await readStore.readCheckpoint(projection.name);
      } catch (error) {
        // A reset under way (MongoDB), or the read store out of reach: wait and look again; never end the loop.
        logger.error({ err: error, projection: projection.name }, 'projection cannot start from its checkpoint; retrying');
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
    const checkpoint = await generationView(raw, p, generations.get(p.name)!).readCheckpoint(p.name);
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
 * Replays the whole log into a new generation of a projection's read models, reporting progress,
 * and switches readers to it once caught up (the one served goes on being served until then). A
 * process running the projection meets the switch at its next commit (the checkpoint of the
 * generation it applied to is gone) and follows the new one.
 */
export async function rebuildProjection(
  store: EventStore,
  readStore: ReadStore,
  projection: Projection,
  onProgress: (done: number, total: number) => void = () => undefined,
  batchSize = 1000,
): Promise<{ events: number }> {
  const raw = rawReadStore(readStore);
  const recorded = await raw.get<VersionDoc>(PROJECTION_VERSIONS, projection.name);
  const suffix = newGeneration(projection.version ?? 1);
  const result = await buildGeneration(store, generationView(raw, projection, suffix), projection, false, onProgress, batchSize);
  await switchGeneration(raw, projection, recorded, suffix);
  // The generation served until now keeps its documents (readers that have not seen the switch
  // yet read them) but loses its checkpoint, so a process applying to it conflicts and follows.
  await generationView(raw, projection, recorded?.suffix ?? '').reset(projection.name, []);
  return result;
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
  const raw = rawReadStore(readStore);
  const generations = await upgradeProjections(store, raw, projections, logger);
  for (const projection of projections) {
    const readStore = generationView(raw, projection, generations.get(projection.name)!);
    await ensureIndexes(readStore, [projection]);
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
