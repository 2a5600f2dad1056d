import type { Projection } from './projection.ts';
import type { ProjectionRunner } from './projectionRunner.ts';
import type { ReadStore } from './readStore.ts';

/**
 * A ProjectionRunner for a process that does not run the projections itself (an API process on
 * the production profile): it reads your own writes by polling the checkpoints that the
 * projection worker stores beside its writes.
 */
export function watchProjections(
  readStore: ReadStore,
  projections: readonly Projection[],
  pollIntervalMs = 25,
): ProjectionRunner {
  let lowest: number | null = null;
  let stopped = false;

  const refresh = async (): Promise<number | null> => {
    let low: number | null = Number.POSITIVE_INFINITY;
    for (const p of projections) {
      const checkpoint = await readStore.readCheckpoint(p.name);
      if (checkpoint === null) return (lowest = null);
      low = Math.min(low, checkpoint);
    }
    return (lowest = low === Number.POSITIVE_INFINITY ? null : low);
  };

  return {
    async waitFor(position, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (!stopped) {
        const low = await refresh();
        if (low !== null && low >= position) return true;
        if (Date.now() >= deadline) return false;
        await new Promise((r) => setTimeout(r, pollIntervalMs));
      }
      return false;
    },
    checkpoint: () => lowest,
    async stop() {
      stopped = true;
    },
  };
}
