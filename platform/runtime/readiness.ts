import { firstAfter, type EventStore } from '../eventStore/eventStore.ts';
import type { Projection } from '../es/projection.ts';
import type { ProjectionRunner } from '../es/projectionRunner.ts';
import type { ReadStore } from '../readStore/readStore.ts';
import type { Clock } from './services.ts';
import type { ProjectionLag } from './metrics.ts';

/** A projection this far behind the head is not ready… */
export const MAX_LAG_EVENTS = 1000;
/** …nor one whose oldest unapplied event is older than this. */
export const MAX_LAG_SECONDS = 5;

export type Readiness = { ready: boolean; reasons: string[]; lag: ProjectionLag[] };

async function timed<T>(what: string, work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      work,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Where lag is measured from: the log's head, and each projection's checkpoint. */
export type LagSources = {
  store: EventStore;
  readStore: ReadStore;
  projections: readonly Projection[];
  /** The projections running in this process, if they do (Services.projections). */
  runner?: ProjectionRunner | null;
};

type Behind = ProjectionLag & { checkpoint: number | null; oldest: number | null };

/** Lag is counted up to here: one more than the most a ready projection may have. */
export const LAG_COUNT_LIMIT = MAX_LAG_EVENTS + 1;

/**
 * How many events each projection has still to apply, counted in events (EventStoreDB's positions
 * are byte offsets), by one read from the lowest checkpoint that stops at LAG_COUNT_LIMIT. The
 * checkpoint is the runner's own position where it runs here (lazy checkpoints lag), else the
 * stored one; the stored ones are read either way, so readiness learns whether the read store answers.
 */
async function lagBehind(sources: LagSources): Promise<Behind[]> {
  const checkpoints: Array<{ projection: string; checkpoint: number | null }> = [];
  for (const p of sources.projections) {
    const stored = await sources.readStore.readCheckpoint(p.name);
    const running = sources.runner?.checkpointOf(p.name);
    checkpoints.push({ projection: p.name, checkpoint: running === undefined ? stored : running });
  }
  const counted = new Map<string, Behind>();
  // Usually one read (from the lowest checkpoint); another only for a projection whose count the
  // page that was read cut short (a full page that starts before its checkpoint).
  while (counted.size < checkpoints.length) {
    const pending = checkpoints.filter((c) => !counted.has(c.projection));
    const from = pending.some((c) => c.checkpoint === null) ? null : Math.min(...pending.map((c) => c.checkpoint!));
    const unapplied = await sources.store.readAll({ after: from, limit: LAG_COUNT_LIMIT });
    const full = unapplied.length === LAG_COUNT_LIMIT;
    for (const { projection, checkpoint } of pending) {
      const first = checkpoint === null ? 0 : firstAfter(unapplied, checkpoint);
      if (full && checkpoint !== from) continue;
      counted.set(projection, { projection, checkpoint, events: unapplied.length - first, oldest: unapplied[first]?.metadata.occurred_at ?? null });
    }
  }
  return checkpoints.map((c) => counted.get(c.projection)!);
}

/** Lag of each projection in events (up to LAG_COUNT_LIMIT): works whether projections run here or in a worker. */
export async function projectionLag(sources: LagSources): Promise<ProjectionLag[]> {
  const lags = await lagBehind(sources);
  return lags.map(({ projection, events }) => ({ projection, events }));
}

/**
 * Ready: the event store and the read store each answer a cheap read, and every projection has
 * at most MAX_LAG_EVENTS events to apply and none older than MAX_LAG_SECONDS.
 */
export async function checkReadiness(deps: LagSources & { clock: Clock }, timeoutMs = 2000): Promise<Readiness> {
  const reasons: string[] = [];
  try {
    await timed('event store', deps.store.headPosition(), timeoutMs);
  } catch (error) {
    reasons.push(`event store unreachable: ${(error as Error).message}`);
  }
  let lags: Behind[] = [];
  if (reasons.length === 0) {
    try {
      lags = await timed('read store', lagBehind(deps), timeoutMs);
    } catch (error) {
      reasons.push(`read store unreachable: ${(error as Error).message}`);
    }
  }
  const lag: ProjectionLag[] = [];
  if (reasons.length === 0) {
    const now = deps.clock() / 1000;
    for (const { projection: name, events, oldest } of lags) {
      lag.push({ projection: name, events });
      if (events > MAX_LAG_EVENTS) {
        reasons.push(`projection ${name} is more than ${MAX_LAG_EVENTS} events behind`);
        continue;
      }
      const age = oldest === null ? 0 : now - oldest;
      if (age > MAX_LAG_SECONDS) reasons.push(`projection ${name} is ${Math.round(age)} s behind (max ${MAX_LAG_SECONDS} s)`);
    }
  }
  return { ready: reasons.length === 0, reasons, lag };
}
