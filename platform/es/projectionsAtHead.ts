import type { EventStore } from '../eventStore/eventStore.ts';
import type { ProjectionRunner } from './projectionRunner.ts';

/** How long a clean stop waits for the projections to apply the log up to its head. */
const AT_HEAD_TIMEOUT_MS = 10_000;

/**
 * A clean stop's last step for running projections: they apply what the last requests and jobs
 * appended, so the read models stop exactly at the head of the log. Says so through `warn` if
 * they do not get there in time (a restart applies the rest).
 */
export async function projectionsAtHead(store: EventStore, runner: ProjectionRunner, warn: (obj: object, msg: string) => void): Promise<void> {
  const head = await store.headPosition();
  if (head !== null && !(await runner.waitFor(head, AT_HEAD_TIMEOUT_MS))) {
    warn({ head, checkpoint: runner.checkpoint() }, 'projections did not reach the head before shutdown');
  }
}
