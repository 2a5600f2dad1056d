import type { EventStore, RecordedEvent } from '../eventStore/eventStore.ts';
import { CheckpointConflictError, type ReadStore } from '../readStore/readStore.ts';
import { assertCheckpointInLog } from './assertCheckpointInLog.ts';
import type { Logger } from './projectionRunner.ts';

export type FollowOptions = {
  /** The checkpoint's name in the read store. */
  checkpoint: string;
  streamPrefixes: readonly string[];
  batchSize: number;
  /**
   * Handles one batch; the checkpoint moves past it once this resolves. A function it returns runs
   * after the checkpoint moved (work that must not be repeated for a batch handled again).
   */
  handle(events: RecordedEvent[]): Promise<void | (() => void | Promise<void>)>;
  /** What an operator can do when the checkpoint lies past the log's head. */
  remedy: string;
  /** Logged with the error when the subscription fails (it is retried from the checkpoint). */
  failure: string;
  /** An error that ends the subscription as a stop does, not as a failure. */
  isStop?: (error: unknown) => boolean;
};

/**
 * A subscriber of the event log that keeps its own checkpoint: refuses to start from a checkpoint
 * past the head, moves the checkpoint after each batch (and past long runs of other streams'
 * events, so a restart does not scan them again), and after a failure starts again from the
 * stored checkpoint. Delivery is at least once: handlers are idempotent.
 */
export async function followFromCheckpoint(
  { store, readStore }: { store: EventStore; readStore: ReadStore },
  logger: Logger,
  options: FollowOptions,
): Promise<{ stop(): Promise<void> }> {
  const { checkpoint: name } = options;
  await assertCheckpointInLog(store, name, await readStore.readCheckpoint(name), options.remedy);
  let stopped = false;
  let current: { stop(): Promise<void> } | null = null;
  const loop = (async () => {
    while (!stopped) {
      let checkpoint = await readStore.readCheckpoint(name);
      const moveTo = async (next: number) => {
        await readStore.commit(name, [], { expected: checkpoint, next });
        checkpoint = next;
      };
      const subscription = store.subscribe(
        async (events) => {
          const after = await options.handle(events);
          await moveTo(events[events.length - 1]!.position);
          if (after) await after();
        },
        // onCheckpoint hands only positions a resume can start after without skipping an event
        // (on EventStoreDB, a record's own position: see toCheckpointPosition).
        { after: checkpoint, batchSize: options.batchSize, streamPrefixes: options.streamPrefixes, onCheckpoint: moveTo },
      );
      current = subscription;
      try {
        await subscription.done;
      } catch (error) {
        // A conflict: another process moved the checkpoint (a lease changed hands); read it again.
        if (stopped || options.isStop?.(error) || error instanceof CheckpointConflictError) continue;
        logger.error({ err: error }, options.failure);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      await current?.stop();
      await loop;
    },
  };
}
