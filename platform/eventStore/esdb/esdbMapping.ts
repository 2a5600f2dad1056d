import {
  ANY,
  CancelledError,
  DeadlineExceededError,
  InvalidArgumentError,
  MaxAppendSizeExceededError,
  NO_STREAM,
  NotLeaderError,
  StreamNotFoundError,
  TimeoutError,
  UnavailableError,
  UnknownError,
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
 * Pure translations between our event store port and EventStoreDB's client types, unit-tested
 * without a server.
 *
 * Our position is the event's `$all` commit position, as a number: since EventStoreDB 20 each
 * event appended through gRPC is its own transaction, so commit positions are distinct and grow
 * in `$all` order, with gaps (byte offsets). Limits: exact up to Number.MAX_SAFE_INTEGER (past
 * that the mapping throws); legacy explicit transactions (TCP client) share one commit position
 * and fail loudly when read; stream reads carry the position from 22.10 on.
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
 * The server refused to read `$all` from a position no record starts at (its ReadAllResult
 * InvalidPosition). The client has no class of its own for it: it arrives as the class of a status
 * the client does not name, with the server's message. Not seen against a real server here.
 */
export function isInvalidPosition(error: unknown): boolean {
  return (error instanceof UnknownError || error instanceof InvalidArgumentError) && /position/i.test(error.message);
}

/**
 * The client's errors as the port's: "not now" (no server or leader, a deadline or the server's
 * operation timeout passed, the call cancelled as a node shuts down) as StoreUnavailableError, an
 * append over MaxAppendSize as EventsTooLargeError, anything else as it is. An append that timed
 * out (ABORTED, raised as TimeoutError) may or may not be written: a retry decides again on the
 * stream as it then is.
 */
export function toPortError(error: unknown): unknown {
  if (error instanceof MaxAppendSizeExceededError) {
    return new EventsTooLargeError(`EventStoreDB refused an append over its MaxAppendSize (${error.maxAppendSize} bytes)`, { cause: error });
  }
  if (
    error instanceof UnavailableError ||
    error instanceof NotLeaderError ||
    error instanceof DeadlineExceededError ||
    error instanceof TimeoutError ||
    error instanceof CancelledError
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
 * The position a server checkpoint lets a job resume after, or null when it names no record. A
 * resume after our position p asks the server for (p, p): only a checkpoint whose commit and
 * prepare positions are equal (every record written through gRPC) names the record at p. Others
 * are dropped, so a restart scans that stretch again rather than skip an event: KurrentDB 25.0.0
 * sends (end of log, 0) after an empty page (KurrentDB issue #4970), and EventStoreDB 24.10.0 to
 * 24.10.4 can send (-1, -1) to a subscription that has matched nothing yet.
 */
export function toCheckpointPosition(position: Position): number | null {
  if (position.commit !== position.prepare || position.commit === NO_POSITION) return null;
  return toSafeNumber(position.commit, 'checkpoint position');
}

/**
 * Why a server of this version cannot run our subscriptions, or null. KurrentDB 25.0.0 sends
 * filtered `$all` checkpoints past an event it has not delivered (issue #4970, fixed by PR #4975 in
 * 25.0.1 and 24.10.5; the 24.10 line never shipped the fault). Our checkpoints drop such
 * positions, and the version is refused as well, so a fault of the same release we have not
 * noticed cannot lose events either. An unknown version (a server that does not say) passes.
 */
export function serverVersionProblem(version: string): string | null {
  const match = /^(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!match) return null;
  const [major, minor, patch] = match.slice(1).map(Number) as [number, number, number];
  if (major === 25 && minor === 0 && patch === 0) {
    return `KurrentDB ${version} can make a subscription skip an event (KurrentDB issue #4970): upgrade to 25.0.1 or later (docs/operations.md lists the supported servers)`;
  }
  return null;
}

/**
 * How often a filtered subscription reports how far it has looked: every CHECKPOINT_INTERVAL
 * times the server's search window (32 events by default), so about every 1,000 events of other
 * streams: one checkpoint commit per thousand skipped events, not per page.
 */
export const CHECKPOINT_INTERVAL = 32;

/**
 * The server-side filter of a subscription: the stream prefixes asked for, or every non-system
 * event. `onCheckpoint` gets each checkpoint that names a record (toCheckpointPosition). Whatever
 * fails there goes to `onError`, never back to the client, whose stream transform would leave the
 * rejection unhandled and the stream stalled.
 */
export function toSubscriptionFilter(
  prefixes: readonly string[] | undefined,
  checkpoints?: { onCheckpoint: (position: number) => Promise<void>; onError: (error: unknown) => void },
): Filter {
  const checkpointReached = checkpoints
    ? async (_subscription: unknown, position: Position) => {
        try {
          const resumable = toCheckpointPosition(position);
          if (resumable !== null) await checkpoints.onCheckpoint(resumable);
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
