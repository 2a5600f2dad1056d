import type { Projection } from './projection.ts';
import { projectionPositions } from './projectionPositions.ts';
import type { ProjectionRunner } from './projectionRunner.ts';
import type { ReadStore } from '../readStore/readStore.ts';

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
  const positions = projectionPositions();
  // Every projection unknown until read: the lowest is none until each has been.
  for (const p of projections) positions.set(p.name, null);
  let polling = false;

  const poll = async () => {
    if (polling) return;
    polling = true;
    try {
      while (positions.waiting() > 0) {
        try {
          for (const p of projections) positions.set(p.name, await readStore.readCheckpoint(p.name));
        } catch {
          // A read store hiccup: the waits go on until their time-out.
        }
        if (positions.waiting() > 0) await new Promise((r) => setTimeout(r, pollIntervalMs));
      }
    } finally {
      polling = false;
    }
  };

  return {
    waitFor(position, timeoutMs = 5000) {
      const waited = positions.waitFor(position, timeoutMs);
      void poll();
      return waited;
    },
    checkpoint: () => positions.lowest(),
    // The worker moves checkpoints behind our back: callers must ask the store, never a cached value.
    checkpointOf: () => undefined,
    waiting: () => positions.waiting(),
    async stop() {
      positions.close();
    },
  };
}
