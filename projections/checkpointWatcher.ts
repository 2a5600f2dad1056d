import type { Projection } from './projection.ts';
import type { ProjectionRunner } from './projectionRunner.ts';
import type { ReadStore } from '../readStore/readStore.ts';

type Waiter = { position: number; deadline: number; resolve: (ok: boolean) => void };

/**
 * A ProjectionRunner for a process that does not run the projections itself (an API process on
 * the production profile): it reads its own writes by polling the checkpoints the projection
 * worker stores beside its writes. One poll loop serves every waiting request, and runs only
 * while someone waits.
 */
export function watchProjections(
  readStore: ReadStore,
  projections: readonly Projection[],
  pollIntervalMs = 25,
): ProjectionRunner {
  let lowest: number | null = null;
  let stopped = false;
  let polling = false;
  const waiters = new Set<Waiter>();

  const refresh = async (): Promise<number | null> => {
    let low = Number.POSITIVE_INFINITY;
    for (const p of projections) {
      const checkpoint = await readStore.readCheckpoint(p.name);
      if (checkpoint === null) return (lowest = null);
      low = Math.min(low, checkpoint);
    }
    return (lowest = low === Number.POSITIVE_INFINITY ? null : low);
  };

  const settle = (low: number | null) => {
    const now = Date.now();
    for (const w of waiters) {
      const reached = low !== null && low >= w.position;
      if (reached || now >= w.deadline || stopped) {
        waiters.delete(w);
        w.resolve(reached);
      }
    }
  };

  const poll = async () => {
    if (polling) return;
    polling = true;
    try {
      while (waiters.size > 0) {
        let low: number | null = lowest;
        try {
          low = await refresh();
        } catch {
          // A read store hiccup: the waiters keep waiting until their deadline.
        }
        settle(low);
        if (waiters.size > 0) await new Promise((r) => setTimeout(r, pollIntervalMs));
      }
    } finally {
      polling = false;
    }
  };

  return {
    waitFor(position, timeoutMs = 5000) {
      if (stopped) return Promise.resolve(false);
      if (lowest !== null && lowest >= position) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        waiters.add({ position, deadline: Date.now() + timeoutMs, resolve });
        void poll();
      });
    },
    checkpoint: () => lowest,
    // The worker moves checkpoints behind our back: callers must ask the store, never a cached value.
    checkpointOf: () => undefined,
    async stop() {
      stopped = true;
      settle(lowest);
    },
  };
}
