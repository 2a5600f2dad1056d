import {
  WrongExpectedRevisionError,
  type EventStore,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
} from './eventStore.ts';

export type CopyProgress = (done: number, total: number) => void;
export type CopyResult = { events: number; copied: number; alreadyThere: number };

/**
 * Copies a whole event log into another store, in log order, keeping event ids, types, data,
 * metadata and stream revisions (an old WorkflowStarted gains its id: its position in the source).
 * Each event goes in with the expected revision it had, so re-running is safe: events the target
 * holds already are recognised (idempotent append), and a stream holding something else stops
 * the copy with WrongExpectedRevisionError. Stop writers to the source first: what they append
 * meanwhile may or may not be copied.
 */
export async function copyEvents(
  source: EventStore,
  target: EventStore,
  options: { batchSize?: number; onProgress?: CopyProgress } = {},
): Promise<CopyResult> {
  const batchSize = options.batchSize ?? 500;
  const total = (await source.headPosition()) ?? 0;
  const targetHeadBefore = await target.headPosition();
  const result: CopyResult = { events: 0, copied: 0, alreadyThere: 0 };
  let after: number | null = null;
  for (;;) {
    const page = await source.readAll({ after, limit: batchSize });
    if (page.length === 0) break;
    for (const run of consecutiveRuns(page)) {
      const positions = await appendRun(target, run);
      for (const position of positions) {
        // An idempotent append answers with the position the event already had.
        if (targetHeadBefore !== null && position <= targetHeadBefore) result.alreadyThere += 1;
        else result.copied += 1;
      }
    }
    result.events += page.length;
    after = page[page.length - 1]!.position;
    options.onProgress?.(Math.min(after, total), total);
  }
  options.onProgress?.(total, total);
  return result;
}

/**
 * At most this many bytes of data and metadata in one append of several events. EventStoreDB
 * refuses an append over its MaxAppendSize (1 MiB by default); each original append was under
 * it, but consecutive appends to one stream (a trigger's webhooks) would add up. A single event
 * always goes in alone, whatever its size, as it went in originally.
 */
const RUN_BYTES = 256 * 1024;

/** Consecutive events of one stream (usually one original append) go in as one append, up to RUN_BYTES. */
function consecutiveRuns(events: RecordedEvent[]): RecordedEvent[][] {
  const runs: RecordedEvent[][] = [];
  let bytes = 0;
  for (const event of events) {
    const size = Buffer.byteLength(JSON.stringify(event.data) ?? '') + Buffer.byteLength(JSON.stringify(event.metadata));
    const last = runs[runs.length - 1];
    if (last && last[last.length - 1]!.stream === event.stream && bytes + size <= RUN_BYTES) {
      last.push(event);
      bytes += size;
    } else {
      runs.push([event]);
      bytes = size;
    }
  }
  return runs;
}

async function appendRun(target: EventStore, run: RecordedEvent[]): Promise<number[]> {
  try {
    const { position } = await target.append(run[0]!.stream, run.map(toNewEvent), expectedBefore(run[0]!));
    // The append is atomic: all of the run was new, or all of it was there (idempotent replay).
    return run.map(() => position);
  } catch (error) {
    // A run cut differently by an earlier, interrupted copy: go one event at a time.
    if (!(error instanceof WrongExpectedRevisionError) || run.length === 1) throw error;
    const positions: number[] = [];
    for (const event of run) {
      positions.push((await target.append(event.stream, [toNewEvent(event)], expectedBefore(event))).position);
    }
    return positions;
  }
}

function expectedBefore(event: RecordedEvent): ExpectedRevision {
  return event.revision === 0 ? 'no_stream' : event.revision - 1;
}

function toNewEvent({ id, type, data, metadata, position }: RecordedEvent): NewEvent {
  // A workflow started before receptions carried their workflow id was known by its
  // WorkflowStarted's log position, which the copy changes: the id goes along in the event.
  if (type === 'WorkflowStarted' && data !== null && typeof data === 'object' && !('workflow_id' in data)) {
    return { id, type, data: { ...data, workflow_id: position }, metadata };
  }
  return { id, type, data, metadata };
}
