import type { EventStore, RecordedEvent, Subscription } from '../commands/eventStore.ts';
import { DocCache } from './docCache.ts';
import type { Projection } from './projection.ts';
import { CheckpointConflictError, type ReadStore } from './readStore.ts';
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
   * The checkpoint of one projection as this runner last saw it stored (undefined for a name it
   * does not run): free to read, so hot read paths use it to tell whether a read model changed.
   * Commits by another process (the CLI) show up once this runner's subscription meets them.
   */
  checkpointOf(name: string): number | null | undefined;
  stop(): Promise<void>;
};

/**
 * Applies one batch of events to a projection and moves its checkpoint, atomically. With a
 * cache, documents come from it before the store, and the committed writes go into it.
 */
export async function applyBatch(
  readStore: ReadStore,
  projection: Projection,
  events: RecordedEvent[],
  expected: number | null,
  cache?: DocCache,
): Promise<number> {
  const uow = new UnitOfWork(readStore, cache);
  const types = new Set(projection.eventTypes);
  for (const event of events) {
    if (types.has(event.type)) await projection.apply(event, uow);
  }
  const next = events[events.length - 1]!.position;
  const ops = uow.ops();
  await readStore.commit(projection.name, ops, { expected, next });
  cache?.committed(ops);
  return next;
}

export async function ensureIndexes(readStore: ReadStore, projections: readonly Projection[]): Promise<void> {
  for (const p of projections) for (const i of p.indexes ?? []) await readStore.ensureIndex(i.collection, i.fields);
}

/**
 * Runs each projection as its own subscription from its stored checkpoint. A batch that fails
 * (a bug, a store hiccup) is retried from the stored checkpoint after a pause, never skipped.
 */
export async function startProjections(
  store: EventStore,
  readStore: ReadStore,
  projections: readonly Projection[],
  logger: Logger,
): Promise<ProjectionRunner> {
  await ensureIndexes(readStore, projections);
  const positions = new Map<string, number | null>();
  const waiters = new Set<{ position: number; resolve: (ok: boolean) => void }>();
  const subscriptions = new Map<string, Subscription>();
  let stopped = false;

  const lowest = (): number | null => {
    let min: number | null = Number.POSITIVE_INFINITY;
    for (const p of positions.values()) {
      if (p === null) return null;
      min = Math.min(min, p);
    }
    return min === Number.POSITIVE_INFINITY ? null : min;
  };

  const settleWaiters = () => {
    const low = lowest();
    if (low === null) return;
    for (const w of waiters) {
      if (low >= w.position) {
        waiters.delete(w);
        w.resolve(true);
      }
    }
  };

  const run = async (projection: Projection) => {
    while (!stopped) {
      const from = await readStore.readCheckpoint(projection.name);
      positions.set(projection.name, from);
      settleWaiters();
      let checkpoint = from;
      // A new one on every (re)start: after a checkpoint conflict another writer's documents count.
      const cache = new DocCache();
      const subscription = store.subscribe(
        async (events) => {
          checkpoint = await applyBatch(readStore, projection, events, checkpoint, cache);
          positions.set(projection.name, checkpoint);
          settleWaiters();
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
  };

  for (const p of projections) positions.set(p.name, await readStore.readCheckpoint(p.name));
  const loops = projections.map((p) => run(p));

  return {
    waitFor(position, timeoutMs = 5000) {
      const low = lowest();
      if (low !== null && low >= position) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const waiter = {
          position,
          resolve: (ok: boolean) => {
            clearTimeout(timer);
            resolve(ok);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          resolve(false);
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    checkpoint: lowest,
    checkpointOf: (name) => positions.get(name),
    async stop() {
      stopped = true;
      await Promise.all([...subscriptions.values()].map((s) => s.stop()));
      await Promise.all(loops);
      for (const w of waiters) w.resolve(false);
      waiters.clear();
    },
  };
}

/** Drops a projection's read model and replays the whole log into it, reporting progress. */
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
  for (;;) {
    const events = await store.readAll({ after: checkpoint, limit: batchSize });
    if (events.length === 0) break;
    checkpoint = await applyBatch(readStore, projection, events, checkpoint);
    seen += events.length;
    onProgress(Math.min(checkpoint, head), head);
  }
  onProgress(head, head);
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
): Promise<void> {
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
