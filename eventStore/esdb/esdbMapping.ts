import {
  ANY,
  DeadlineExceededError,
  MaxAppendSizeExceededError,
  NO_STREAM,
  NotLeaderError,
  StreamNotFoundError,
  TimeoutError,
  UnavailableError,
  WrongExpectedVersionError,
  excludeSystemEvents,
  jsonEvent,
  streamNameFilter,
  type Filter,
  type AppendExpectedRevision,
  type AppendResult as EsdbAppendResult,
  type EventData,
  type Position,
  type RecordedEvent as EsdbRecordedEvent,
} from '@eventstore/db-client';
import {
  EventsTooLargeError,
  StoreUnavailableError,
  WrongExpectedRevisionError,
  type EventMetadata,
  type ExpectedRevision,
  type NewEvent,
  type RecordedEvent,
} from '../eventStore.ts';

/**
 * Pure translations between our event store port and EventStoreDB's client types, kept apart from
 * the adapter so they can be unit-tested without a server.
 *
 * Global positions: our position is the event's `$all` commit position, as a number. Since
 * EventStoreDB 20 every event appended through gRPC is its own implicit transaction whose commit
 * position is the event's own log position, so commit positions are distinct and strictly
 * increasing in `$all` order, with gaps (they are byte offsets in the transaction log). Limits:
 * - a position is exact up to Number.MAX_SAFE_INTEGER (2^53 - 1 bytes, about 9 PB of log); past
 *   that the mapping throws instead of rounding;
 * - legacy explicit transactions (TCP client, removed in v24) give several events one commit
 *   position; we never write those, and reading one fails loudly rather than misorder events;
 * - stream reads carry the position only from EventStoreDB 22.10 on (older servers send -1).
 */

export function toEsdbExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  if (!Number.isSafeInteger(expected) || expected < 0) throw new Error(`invalid expected revision: ${expected}`);
  return BigInt(expected);
}

/** The client's conflict, as the one error our command handler retries. */
export function toWrongExpectedRevision(
  error: WrongExpectedVersionError,
  stream: string,
  expected: ExpectedRevision,
): WrongExpectedRevisionError {
  const actual = error.actualVersion;
  // Servers report a missing stream either as "no_stream" or as revision -1.
  const revision = actual === NO_STREAM || actual === undefined || actual < 0n ? null : toSafeNumber(actual, 'revision');
  return new WrongExpectedRevisionError(stream, expected, revision);
}

export function isWrongExpectedVersion(error: unknown): error is WrongExpectedVersionError {
  return error instanceof WrongExpectedVersionError;
}

export function isStreamNotFound(error: unknown): error is StreamNotFoundError {
  return error instanceof StreamNotFoundError;
}

/**
 * The client's errors as the port's. Those that mean "not now" (no server reachable, no leader, the
 * call's deadline passed, the server's own operation timeout) as StoreUnavailableError; an append
 * over the server's MaxAppendSize as EventsTooLargeError; any other error as it is.
 * The server answers a commit, prepare or forward timeout with gRPC status ABORTED ("Operation
 * timed out"), which the client raises as TimeoutError: an append that timed out may or may not
 * be written, and retrying it with the same event ids is recognised (idempotent append).
 */
export function toPortError(error: unknown): unknown {
  if (error instanceof MaxAppendSizeExceededError) {
    return new EventsTooLargeError(`EventStoreDB refused an append over its MaxAppendSize (${error.maxAppendSize} bytes)`, { cause: error });
  }
  if (
    error instanceof UnavailableError ||
    error instanceof NotLeaderError ||
    error instanceof DeadlineExceededError ||
    error instanceof TimeoutError
  ) {
    // The client's messages are often empty: its class names what happened.
    return new StoreUnavailableError(`EventStoreDB: ${error.constructor.name}${error.message ? `: ${error.message}` : ''}`, { cause: error });
  }
  return error;
}

/** What servers send for "no position" (-1 as an unsigned 64-bit integer). */
const NO_POSITION = 2n ** 64n - 1n;

/** Our global position of a `$all` position. */
export function toGlobalPosition(position: Position): number {
  if (position.commit === NO_POSITION || position.prepare === NO_POSITION) {
    // Servers before 22.10 leave the $all position out of stream reads.
    throw new Error('the server sent no $all position for an event; EventStoreDB 22.10 or later is required');
  }
  if (position.commit !== position.prepare) {
    throw new Error(
      `event at commit ${position.commit} / prepare ${position.prepare} belongs to a legacy multi-event transaction, which this adapter does not support`,
    );
  }
  return toSafeNumber(position.commit, 'commit position');
}

/**
 * How often a filtered subscription reports how far it has looked: every CHECKPOINT_INTERVAL
 * times the server's search window (32 events by default), so about every 1,000 events of other
 * streams: one checkpoint commit per thousand skipped events, not per page.
 */
export const CHECKPOINT_INTERVAL = 32;

/**
 * The server-side filter of a subscription: the stream prefixes asked for, or every non-system
 * event. `onCheckpoint` gets the position of each checkpoint the server sends: the last event it
 * looked at (EventStoreDB's catch-up sends the last position of a page, or where an empty page
 * began), so resuming after it skips nothing the filter lets through. Whatever fails there goes to
 * `onError`, never back to the client: its Subscription awaits checkpointReached inside a stream
 * transform that leaves a rejection unhandled and the stream stalled.
 */
export function toSubscriptionFilter(
  prefixes: readonly string[] | undefined,
  checkpoints?: { onCheckpoint: (position: number) => Promise<void>; onError: (error: unknown) => void },
): Filter {
  const checkpointReached = checkpoints
    ? async (_subscription: unknown, position: Position) => {
        try {
          await checkpoints.onCheckpoint(toSafeNumber(position.commit, 'checkpoint position'));
        } catch (error) {
          checkpoints.onError(error);
        }
      }
    : undefined;
  const options = { checkpointInterval: CHECKPOINT_INTERVAL, ...(checkpointReached ? { checkpointReached } : {}) };
  return prefixes && prefixes.length > 0 ? streamNameFilter({ prefixes: [...prefixes], ...options }) : excludeSystemEvents(options);
}

/** The `$all` position of one of our global positions (reading from it resumes right there). */
export function fromGlobalPosition(position: number): Position {
  if (!Number.isSafeInteger(position) || position < 0) throw new Error(`invalid global position: ${position}`);
  const p = BigInt(position);
  return { commit: p, prepare: p };
}

/**
 * What an append result tells: the stream's new revision, and the global position of the last
 * event appended when the result names it exactly (one new event); null when the position has to
 * be read back (several events, an idempotent replay answered without a position, a server that
 * sends -1). With `throwOnAppendFailure=false` in the connection string the client resolves a
 * version conflict as `success: false` instead of throwing: that is a conflict here too, never a
 * success.
 */
export function fromAppendResult(
  result: EsdbAppendResult,
  eventCount: number,
  stream: string,
  expected: ExpectedRevision,
): { revision: number; position: number | null } {
  if (!result.success) {
    // The actual revision is not named: the client's batch append (servers from 21.10) reports
    // BigInt(hasCurrentStreamRevision()), i.e. 1 for any existing stream. null is "not known"
    // (the id allocator then reads the stream once) rather than a wrong revision it would trust.
    throw new WrongExpectedRevisionError(stream, expected, null);
  }
  const revision = toSafeNumber(result.nextExpectedRevision, 'revision');
  const p = result.position;
  const exact = eventCount === 1 && p && p.commit === p.prepare && p.commit !== NO_POSITION;
  return { revision, position: exact ? toGlobalPosition(p) : null };
}

/** System streams (`$`-prefixed: stats, settings, metadata `$$…`, projections) are not ours. */
export function isOurEvent(event: { streamId: string; type: string }): boolean {
  return !event.streamId.startsWith('$') && !event.type.startsWith('$');
}

export function matchesPrefixes(stream: string, prefixes: readonly string[] | undefined): boolean {
  return !prefixes || prefixes.length === 0 || prefixes.some((p) => stream.startsWith(p));
}

export function toEventData(event: NewEvent): EventData {
  // Our data is any JSON value; the client serialises it with JSON.stringify whatever its type says.
  return jsonEvent({ id: event.id, type: event.type, data: event.data as Record<string, unknown>, metadata: event.metadata });
}

/** Our recorded event from the client's; null for events that are not ours (system, binary, link). */
export function toRecordedEvent(event: EsdbRecordedEvent | undefined): RecordedEvent | null {
  if (!event || !event.isJson || !isOurEvent(event)) return null;
  if (!event.position) {
    throw new Error(`event ${event.id} of ${event.streamId} came without a $all position; EventStoreDB 22.10 or later is required`);
  }
  return {
    id: event.id,
    type: event.type,
    data: event.data,
    metadata: event.metadata as EventMetadata,
    stream: event.streamId,
    revision: toSafeNumber(event.revision, 'revision'),
    position: toGlobalPosition(event.position),
  };
}

function toSafeNumber(value: bigint, what: string): number {
  if (value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`${what} ${value} is out of the safe integer range`);
  return Number(value);
}
