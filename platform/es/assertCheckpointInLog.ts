import type { EventStore } from '../eventStore/eventStore.ts';

/** A stored checkpoint lies past the end of the event log. */
export class CheckpointAheadError extends Error {
  override readonly name = 'CheckpointAheadError';
  constructor(
    readonly checkpointName: string,
    readonly checkpoint: number,
    readonly head: number | null,
    remedy: string,
  ) {
    super(
      `checkpoint ${checkpointName} is at position ${checkpoint}, past the end of the event log (${head === null ? 'empty' : `head ${head}`}): ` +
        `the event store was restored or replaced and the read store kept. Not starting, since nothing would ever be delivered; ${remedy}`,
    );
  }
}

/**
 * Refuses a checkpoint ahead of the log's head: a subscription from there (EventStoreDB or
 * SQLite) waits for positions the log may reach much later, with other events, or never, and
 * says nothing. Cheap: one read of the head, at start only.
 */
export async function assertCheckpointInLog(store: EventStore, name: string, checkpoint: number | null, remedy: string): Promise<void> {
  if (checkpoint === null) return;
  // The log's true end: a checkpoint may name a server record past our last event.
  const head = store.endPosition ? await store.endPosition() : await store.headPosition();
  if (head === null || checkpoint > head) throw new CheckpointAheadError(name, checkpoint, head, remedy);
}
