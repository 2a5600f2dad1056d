import { projectionPositions } from '../../platform/es/projectionPositions.ts';
import type { ProjectionRunner } from '../../platform/es/projectionRunner.ts';
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
  const positions = projectionPositions();
  return {
    report(reported) {
      for (const [name, position] of reported) positions.set(name, position);
    },
    waitFor: (position, timeoutMs) => positions.waitFor(position, timeoutMs),
    checkpoint: () => positions.lowest(),
    checkpointOf: (name) => positions.get(name),
    waiting: () => positions.waiting(),
    async stop() {
      positions.close();
    },
  };
}
