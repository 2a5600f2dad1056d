import type { ProjectionRunner } from '../../projections/projectionRunner.ts';
import type { Positions } from './threadMessages.ts';

export type ReportedProjections = ProjectionRunner & {
  /** The positions the subscriber thread reports after applying a batch (or on its start). */
  report(positions: Positions): void;
};

/**
 * The server thread's view of projections that run on its subscriber thread: their positions as
 * last reported, which come after the writes they cover are committed. So a read that finds a
 * position has moved reads the read model as of at least that position, and waitFor gives
 * read-your-writes as the in-process runner does. Before the first report nothing is known:
 * checkpointOf answers undefined and callers ask the read store.
 */
export function reportedProjections(): ReportedProjections {
  const positions = new Map<string, number | null>();
  const waiters = new Set<{ position: number; resolve: (ok: boolean) => void }>();
  let stopped = false;

  const lowest = (): number | null => {
    let min = Number.POSITIVE_INFINITY;
    for (const p of positions.values()) {
      if (p === null) return null;
      min = Math.min(min, p);
    }
    return min === Number.POSITIVE_INFINITY ? null : min;
  };

  return {
    report(reported) {
      for (const [name, position] of reported) positions.set(name, position);
      const low = lowest();
      if (low === null) return;
      for (const w of waiters) {
        if (low >= w.position) {
          waiters.delete(w);
          w.resolve(true);
        }
      }
    },
    waitFor(position, timeoutMs = 5000) {
      if (stopped) return Promise.resolve(false);
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
      for (const w of waiters) w.resolve(false);
      waiters.clear();
    },
  };
}
