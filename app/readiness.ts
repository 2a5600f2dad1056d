import type { EventStore } from '../commands/eventStore.ts';
import type { Projection } from '../projections/projection.ts';
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

/** Lag of each projection from its stored checkpoint: works whether projections run here or in a worker. */
export async function projectionLag(store: EventStore, readStore: ReadStore, projections: readonly Projection[]): Promise<ProjectionLag[]> {
  const head = (await store.headPosition()) ?? 0;
  const lags: ProjectionLag[] = [];
  for (const p of projections) {
    const checkpoint = (await readStore.readCheckpoint(p.name)) ?? 0;
    // Positions may have gaps, so this is an upper bound on the events still to apply.
    lags.push({ projection: p.name, events: Math.max(0, head - checkpoint) });
  }
  return lags;
}

/**
 * Ready: the event store and the read store each answer a cheap read, and every projection is
 * within MAX_LAG_EVENTS of the head and has no unapplied event older than MAX_LAG_SECONDS.
 */
export async function checkReadiness(
  deps: { store: EventStore; readStore: ReadStore; projections: readonly Projection[]; clock: Clock },
  timeoutMs = 2000,
): Promise<Readiness> {
  const reasons: string[] = [];
  let head: number | null = null;
  try {
    head = await timed('event store', deps.store.headPosition(), timeoutMs);
  } catch (error) {
    reasons.push(`event store unreachable: ${(error as Error).message}`);
  }
  const checkpoints = new Map<string, number | null>();
  try {
    for (const p of deps.projections) checkpoints.set(p.name, await timed('read store', deps.readStore.readCheckpoint(p.name), timeoutMs));
  } catch (error) {
    reasons.push(`read store unreachable: ${(error as Error).message}`);
  }
  const lag: ProjectionLag[] = [];
  if (reasons.length === 0) {
    const now = deps.clock() / 1000;
    for (const [name, checkpoint] of checkpoints) {
      const events = Math.max(0, (head ?? 0) - (checkpoint ?? 0));
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
