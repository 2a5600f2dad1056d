import type { RecordedEvent } from '../../../platform/eventStore/index.ts';
import { type Logger, followFromCheckpoint, reactionContext } from '../../../platform/es/index.ts';
import type { BackgroundJob, Services } from '../../../platform/runtime/index.ts';
import { advanceClock, endClockSubscriptions } from '../billing.ts';
import { finishTestClockAdvance, loadTestClock } from '../testClockCommands.ts';

export const TEST_CLOCK_ADVANCE_CHECKPOINT = 'job:test-clock-advance';
const CLOCK_PREFIX = 'test_clock-';

async function handleBatch(services: Services, events: RecordedEvent[]): Promise<void> {
  for (const event of events) {
    if (event.type !== 'TestClockAdvanceStarted' && event.type !== 'TestClockDeleted') continue;
    const id = event.stream.slice(CLOCK_PREFIX.length);
    const clock = await loadTestClock(services, id);
    if (!clock) continue;
    if (event.type === 'TestClockDeleted') {
      await endClockSubscriptions(services, id, clock.frozen_time);
      continue;
    }
    // Only the clock's current advance: a later one (or a delete) supersedes an advance seen again.
    const { frozen_time: frozenTime } = event.data as { frozen_time: number };
    if (clock.status !== 'advancing' || clock.frozen_time !== frozenTime) continue;
    await advanceClock(services, { id, organization_id: clock.organization_id }, frozenTime);
    await finishTestClockAdvance(reactionContext(services.store, services.clock(), event, 'test-clock-advance'), id);
  }
}

/**
 * Finishes each advance of a test clock: makes what fell due up to its new time happen, then
 * records the clock ready. It follows the clocks' streams from its checkpoint, so an advance a
 * crash interrupted (the clock still `advancing`) is run again on restart; running it twice
 * for the same time charges nothing twice (advanceClock is idempotent) and finishing twice
 * records nothing. A deleted clock's subscriptions are ended here too, after the delete route.
 */
export const testClockAdvanceJob: BackgroundJob = {
  name: 'test-clock-advance',
  start(services: Services, logger: Logger) {
    return followFromCheckpoint(services, logger, {
      checkpoint: TEST_CLOCK_ADVANCE_CHECKPOINT,
      streamPrefixes: [CLOCK_PREFIX],
      batchSize: 50,
      handle: (events) => handleBatch(services, events),
      remedy: `restore the read store that goes with this log, or delete the checkpoint ${TEST_CLOCK_ADVANCE_CHECKPOINT} to look at every clock's advances again (advancing twice to the same time does nothing more)`,
      failure: 'advancing a test clock failed; retrying from its checkpoint',
    });
  },
};
