import type { EventStore } from '../commands/eventStore.ts';
import type { Projection } from '../projections/projection.ts';
import type { ProjectionRunner } from '../projections/projectionRunner.ts';
import type { ReadStore } from '../projections/readStore.ts';
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

type Behind = ProjectionLag & { checkpoint: number | null };

/**
 * How far each projection is behind `head`, from its checkpoint: the runner's own position where
 * it runs in this process (its stored checkpoint may lag behind: lazy checkpoints), else the
 * stored one (projections run by a worker, or a watcher's). The stored checkpoints are read in
 * either case, so readiness learns whether the read store answers.
 */
async function lagBehind(head: number, sources: LagSources): Promise<Behind[]> {
  const lags: Behind[] = [];
  for (const p of sources.projections) {
    const stored = await sources.readStore.readCheckpoint(p.name);
    const running = sources.runner?.checkpointOf(p.name);
    const checkpoint = running === undefined ? stored : running;
    // Positions may have gaps, so this is an upper bound on the events still to apply.
    lags.push({ projection: p.name, checkpoint, events: Math.max(0, head - (checkpoint ?? 0)) });
  }
  return lags;
}

/** Lag of each projection behind the head of the log: works whether projections run here or in a worker. */
export async function projectionLag(sources: LagSources): Promise<ProjectionLag[]> {
  const lags = await lagBehind((await sources.store.headPosition()) ?? 0, sources);
  return lags.map(({ projection, events }) => ({ projection, events }));
}

/**
 * Ready: the event store and the read store each answer a cheap read, and every projection is
 * within MAX_LAG_EVENTS of the head and has no unapplied event older than MAX_LAG_SECONDS.
 */
export async function checkReadiness(deps: LagSources & { clock: Clock }, timeoutMs = 2000): Promise<Readiness> {
  const reasons: string[] = [];
  let head: number | null = null;
  try {
    head = await timed('event store', deps.store.headPosition(), timeoutMs);
  } catch (error) {
    reasons.push(`event store unreachable: ${(error as Error).message}`);
  }
  let lags: Behind[] = [];
  try {
    lags = await timed('read store', lagBehind(head ?? 0, deps), timeoutMs);
  } catch (error) {
    reasons.push(`read store unreachable: ${(error as Error).message}`);
  }
  const lag: ProjectionLag[] = [];
  if (reasons.length === 0) {
    const now = deps.clock() / 1000;
    for (const { projection: name, checkpoint, events } of lags) {
      lag.push({ projection: name, events });
      if (events > MAX_LAG_EVENTS) {
        reasons.push(`projection ${name} is ${events} events behind (max ${MAX_LAG_EVENTS})`);
        continue;
      }
      if (events === 0) continue;
      const [oldest] = await deps.store.readAll({ after: checkpoint, limit: 1 });
      const age = oldest ? now - oldest.metadata.occurred_at : 0;
      if (age > MAX_LAG_SECONDS) reasons.push(`projection ${name} is ${Math.round(age)} s behind (max ${MAX_LAG_SECONDS} s)`);
    }
  }
  return { ready: reasons.length === 0, reasons, lag };
}
