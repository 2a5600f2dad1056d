import {
  ANY,
  CancelledError,
  DeadlineExceededError,
  MaxAppendSizeExceededError,
  NO_STREAM,
  NotLeaderError,
  StreamNotFoundError,
  TimeoutError,
  UnavailableError,
  WrongExpectedVersionError,
  convertToCommandError,
  type AllStreamRecordedEvent,
  type RecordedEvent as EsdbRecordedEvent,
} from '@eventstore/db-client';
import { describe, expect, it } from 'vitest';
import { EventsTooLargeError, StoreUnavailableError, WrongExpectedRevisionError, type EventMetadata } from '../../../platform/eventStore/eventStore.ts';
import {
  fromAppendResult,
  fromGlobalPosition,
  isOurEvent,
  isStreamNotFound,
  toPortError,
  isWrongExpectedVersion,
  matchesPrefixes,
  toEsdbExpectedRevision,
  toEventData,
  toGlobalPosition,
  toRecordedEvent,
  toSubscriptionFilter,
  toWrongExpectedRevision,
  CHECKPOINT_INTERVAL,
  isInvalidPosition,
  serverVersionProblem,
  toCheckpointPosition,
} from '../../../platform/eventStore/esdb/esdbMapping.ts';

const metadata: EventMetadata = {
  correlation_id: 'req_1',
  actor: { type: 'cli' },
  organization_id: null,
  occurred_at: 1_700_000_000,
};

/** The shape the client gives for a JSON event read from $all (see its convertGrpcRecord). */
function esdbEvent(overrides: Partial<AllStreamRecordedEvent> = {}): AllStreamRecordedEvent {
  return {
    streamId: 'product-1',
    id: '6f1c3a52-54a4-4c2e-9d27-9c1f0d9d7a10',
    revision: 3n,
    type: 'ProductCreated',
    created: new Date(0),
    data: { name: 'Course' },
    metadata,
    isJson: true,
    position: { commit: 4096n, prepare: 4096n },
    ...overrides,
  } as AllStreamRecordedEvent;
}

describe('EventStoreDB mapping', () => {
  it('maps our expected revisions to the client constants and bigint revisions', () => {
    expect(toEsdbExpectedRevision('any')).toBe(ANY);
    expect(toEsdbExpectedRevision('no_stream')).toBe(NO_STREAM);
    expect(toEsdbExpectedRevision(0)).toBe(0n);
    expect(toEsdbExpectedRevision(41)).toBe(41n);
    expect(() => toEsdbExpectedRevision(-1)).toThrow();
    expect(() => toEsdbExpectedRevision(1.5)).toThrow();
  });

  it("translates the client's WrongExpectedVersionError into ours with the actual revision", () => {
    const conflict = new WrongExpectedVersionError(undefined, { streamName: 'offer-7', expected: 2n, current: 5n });
    expect(isWrongExpectedVersion(conflict)).toBe(true);
    const ours = toWrongExpectedRevision(conflict, 'offer-7', 2);
    expect(ours).toBeInstanceOf(WrongExpectedRevisionError);
    expect(ours).toMatchObject({ stream: 'offer-7', expected: 2, actual: 5 });
  });

  it('a conflict on a stream that does not exist has actual null (no_stream or -1)', () => {
    const missing = new WrongExpectedVersionError(undefined, { streamName: 's', expected: 0n, current: NO_STREAM });
    expect(toWrongExpectedRevision(missing, 's', 0).actual).toBeNull();
    const minusOne = new WrongExpectedVersionError(undefined, { streamName: 's', expected: 0n, current: -1n });
    expect(toWrongExpectedRevision(minusOne, 's', 0).actual).toBeNull();
    const exists = new WrongExpectedVersionError(undefined, { streamName: 's', expected: NO_STREAM, current: 0n });
    expect(toWrongExpectedRevision(exists, 's', 'no_stream')).toMatchObject({ expected: 'no_stream', actual: 0 });
  });

  it('recognises StreamNotFoundError and nothing else as a missing stream', () => {
    expect(isStreamNotFound(new StreamNotFoundError(undefined, 'product-9'))).toBe(true);
    expect(isStreamNotFound(new UnavailableError())).toBe(false);
    expect(isWrongExpectedVersion(new StreamNotFoundError(undefined, 'x'))).toBe(false);
    expect(isStreamNotFound(new Error('stream not found'))).toBe(false);
  });

  it('turns the client\'s "not now" errors into StoreUnavailableError (503) and leaves the others alone', () => {
    // The shape @grpc/grpc-js hands NotLeaderError: metadata naming the leader.
    const notLeader = new NotLeaderError({ metadata: { getMap: () => ({ 'leader-endpoint-host': 'node2', 'leader-endpoint-port': '2113' }) } } as never);
    // TimeoutError: the server's commit/prepare timeout, sent as gRPC ABORTED ("Operation timed out").
    // CancelledError: the call cancelled by the server or the channel (a node shutting down), as
    // the client converts gRPC CANCELLED.
    const cancelled = convertToCommandError({ code: 1, details: 'Cancelled', message: '1 CANCELLED: Cancelled', name: 'Error' } as never);
    expect(cancelled).toBeInstanceOf(CancelledError);
    for (const error of [new UnavailableError(), new DeadlineExceededError(), new TimeoutError(), notLeader]) {
      const mapped = toPortError(error);
      expect(mapped).toBeInstanceOf(StoreUnavailableError);
      expect((mapped as StoreUnavailableError).message).toBe(`EventStoreDB: ${error.constructor.name}`);
      expect((mapped as StoreUnavailableError).cause).toBe(error);
    }
    const mappedCancel = toPortError(cancelled);
    expect(mappedCancel).toBeInstanceOf(StoreUnavailableError);
    expect((mappedCancel as StoreUnavailableError).message).toBe('EventStoreDB: CancelledError: 1 CANCELLED: Cancelled');
    const conflict = new WrongExpectedVersionError(undefined, { streamName: 's', expected: 0n, current: 1n });
    const missing = new StreamNotFoundError(undefined, 's');
    const plain = new Error('boom');
    for (const error of [conflict, missing, plain]) expect(toPortError(error)).toBe(error);
  });

  it('turns an append over the server\'s MaxAppendSize into EventsTooLargeError (413), not a 500', () => {
    const tooLarge = MaxAppendSizeExceededError.fromMaxAppendSize(1_048_576);
    const mapped = toPortError(tooLarge);
    expect(mapped).toBeInstanceOf(EventsTooLargeError);
    expect((mapped as EventsTooLargeError).message).toContain('1048576 bytes');
    expect((mapped as EventsTooLargeError).cause).toBe(tooLarge);
  });

  it('maps $all positions to numbers and back, exactly, and refuses what it cannot represent', () => {
    expect(toGlobalPosition({ commit: 0n, prepare: 0n })).toBe(0);
    expect(toGlobalPosition({ commit: 123_456n, prepare: 123_456n })).toBe(123_456);
    const max = BigInt(Number.MAX_SAFE_INTEGER);
    expect(toGlobalPosition({ commit: max, prepare: max })).toBe(Number.MAX_SAFE_INTEGER);
    expect(() => toGlobalPosition({ commit: max + 1n, prepare: max + 1n })).toThrow(/safe integer/);
    // Legacy explicit transactions share one commit position across events: refused, not misordered.
    expect(() => toGlobalPosition({ commit: 9000n, prepare: 8000n })).toThrow(/legacy/);
    expect(fromGlobalPosition(123_456)).toEqual({ commit: 123_456n, prepare: 123_456n });
    expect(toGlobalPosition(fromGlobalPosition(987_654_321))).toBe(987_654_321);
    expect(() => fromGlobalPosition(-1)).toThrow();
    expect(() => fromGlobalPosition(1.5)).toThrow();
  });

  it('keeps the order of $all positions', () => {
    const commits = [0n, 118n, 236n, 1_000_000n, 2n ** 40n];
    const ours = commits.map((c) => toGlobalPosition({ commit: c, prepare: c }));
    expect([...ours].sort((a, b) => a - b)).toEqual(ours);
    expect(new Set(ours).size).toBe(ours.length);
  });

  it('turns a resolved $all event into our recorded event', () => {
    expect(toRecordedEvent(esdbEvent())).toEqual({
      id: '6f1c3a52-54a4-4c2e-9d27-9c1f0d9d7a10',
      type: 'ProductCreated',
      data: { name: 'Course' },
      metadata,
      stream: 'product-1',
      revision: 3,
      position: 4096,
    });
  });

  it('drops system, binary and missing events', () => {
    expect(toRecordedEvent(undefined)).toBeNull();
    expect(toRecordedEvent(esdbEvent({ streamId: '$stats-127.0.0.1:2113', type: '$statsCollected' }))).toBeNull();
    expect(toRecordedEvent(esdbEvent({ streamId: '$$product-1', type: '$metadata' }))).toBeNull();
    expect(toRecordedEvent(esdbEvent({ type: '$>' }))).toBeNull();
    expect(toRecordedEvent(esdbEvent({ isJson: false, data: new Uint8Array([1]) } as Partial<AllStreamRecordedEvent>))).toBeNull();
    expect(isOurEvent({ streamId: 'checkout_session-1', type: 'CheckoutSessionCreated' })).toBe(true);
  });

  it('refuses a stream event without a position (servers before 22.10 send none, or -1)', () => {
    const event = esdbEvent();
    const { position: _position, ...withoutPosition } = event;
    expect(() => toRecordedEvent(withoutPosition as EsdbRecordedEvent)).toThrow(/22\.10/);
    const minusOne = 2n ** 64n - 1n;
    expect(() => toRecordedEvent(esdbEvent({ position: { commit: minusOne, prepare: minusOne } }))).toThrow(/22\.10/);
  });

  it('builds JSON event data with our id, type, data and metadata', () => {
    const data = toEventData({ id: '0b6d3f0e-8a43-4b39-9a8c-0f4a5b9f8f11', type: 'OfferPublished', data: { slug: 'x' }, metadata });
    expect(data).toEqual({
      id: '0b6d3f0e-8a43-4b39-9a8c-0f4a5b9f8f11',
      contentType: 'application/json',
      type: 'OfferPublished',
      data: { slug: 'x' },
      metadata,
    });
  });

  it('matches stream prefixes literally', () => {
    expect(matchesPrefixes('product-1', undefined)).toBe(true);
    expect(matchesPrefixes('product-1', [])).toBe(true);
    expect(matchesPrefixes('product-1', ['offer-', 'product-'])).toBe(true);
    expect(matchesPrefixes('products-1', ['product-'])).toBe(false);
  });

  it('reads the revision and, for one new event, the position from an append result', () => {
    const p = (n: bigint) => ({ commit: n, prepare: n });
    expect(fromAppendResult({ success: true, nextExpectedRevision: 4n, position: p(8192n) }, 1, 's', 3)).toEqual({
      revision: 4,
      position: 8192,
    });
    // Several events: the reported position is not documented to be the last event's.
    expect(fromAppendResult({ success: true, nextExpectedRevision: 5n, position: p(8192n) }, 2, 's', 3)).toEqual({
      revision: 5,
      position: null,
    });
    // An idempotent replay may come without a position, or with -1 (all ones as unsigned).
    expect(fromAppendResult({ success: true, nextExpectedRevision: 0n, position: undefined }, 1, 's', 'no_stream').position).toBeNull();
    const minusOne = 2n ** 64n - 1n;
    expect(fromAppendResult({ success: true, nextExpectedRevision: 0n, position: p(minusOne) }, 1, 's', 'no_stream').position).toBeNull();
  });

  it('treats an unsuccessful append result (throwOnAppendFailure=false) as a conflict, never a success', () => {
    const conflict = () => fromAppendResult({ success: false, nextExpectedRevision: 6n, position: undefined }, 1, 'offer-7', 2);
    expect(conflict).toThrow(WrongExpectedRevisionError);
    // The revision such a result names cannot be trusted (the client's batch append sends 1 for
    // any existing stream): actual is "not known", which the id allocator resolves by reading.
    expect(conflict).toThrow(expect.objectContaining({ stream: 'offer-7', expected: 2, actual: null }));
    expect(() => fromAppendResult({ success: false, nextExpectedRevision: -1n, position: undefined }, 1, 's', 0)).toThrow(
      expect.objectContaining({ name: 'WrongExpectedRevisionError', actual: null }),
    );
  });
});

describe('subscription filters and their checkpoints', () => {
  it('filters on the prefixes asked for, or leaves system events out, and reports checkpoints as our positions', async () => {
    const reached: number[] = [];
    const errors: unknown[] = [];
    const filter = toSubscriptionFilter(['automation_webhook-'], {
      onCheckpoint: async (position) => void reached.push(position),
      onError: (error) => void errors.push(error),
    });
    // The shape the client's streamNameFilter builds and subscribeToAll reads (see its filter.js).
    expect(filter).toMatchObject({ filterOn: 'streamName', prefixes: ['automation_webhook-'], checkpointInterval: CHECKPOINT_INTERVAL });
    // The client's Subscription calls checkpointReached(subscription, {commit, prepare}) for each
    // checkpoint message; the server sends the last position it looked at.
    await filter.checkpointReached!(null as never, { commit: 1_234_567n, prepare: 1_234_567n });
    // KurrentDB 25.0.0 after an empty page (issue #4970): (end of log, 0). Resuming after its
    // commit position would skip the event appended there next: dropped, as is (-1, -1) (24.10.0-4).
    await filter.checkpointReached!(null as never, { commit: 2_000_000n, prepare: 0n });
    await filter.checkpointReached!(null as never, { commit: 2n ** 64n - 1n, prepare: 2n ** 64n - 1n });
    await filter.checkpointReached!(null as never, { commit: 2_000_000n, prepare: 1_999_000n });
    await filter.checkpointReached!(null as never, { commit: 2_100_000n, prepare: 2_100_000n });
    expect(reached).toEqual([1_234_567, 2_100_000]);
    expect(errors).toEqual([]);
    // A failure goes to onError; the client's transform, which awaits this, never sees a rejection.
    await expect(filter.checkpointReached!(null as never, { commit: 2n ** 60n, prepare: 2n ** 60n })).resolves.toBeUndefined();
    expect(errors).toHaveLength(1);

    const all = toSubscriptionFilter(undefined);
    expect(all).toMatchObject({ filterOn: 'eventType', regex: '^[^$].*', checkpointInterval: CHECKPOINT_INTERVAL });
    expect(all.checkpointReached).toBeUndefined();
  });
});

describe('server checkpoints, versions and refusals', () => {
  it('a checkpoint names a record only when its commit and prepare positions are equal', () => {
    expect(toCheckpointPosition({ commit: 4096n, prepare: 4096n })).toBe(4096);
    expect(toCheckpointPosition({ commit: 0n, prepare: 0n })).toBe(0);
    expect(toCheckpointPosition({ commit: 9000n, prepare: 0n })).toBeNull();
    expect(toCheckpointPosition({ commit: 2n ** 64n - 1n, prepare: 2n ** 64n - 1n })).toBeNull();
  });

  it('refuses KurrentDB 25.0.0 (issue #4970) and takes the versions that fixed it, later ones and unknown ones', () => {
    expect(serverVersionProblem('25.0.0.1582')).toMatch(/KurrentDB 25\.0\.0\.1582 can make a subscription skip an event.*25\.0\.1/);
    for (const version of ['25.0.1.0', '24.10.5.0', '24.10.4', '22.10.3.0', '25.1.0', '26.0.3.0', 'unknown', '']) {
      expect(serverVersionProblem(version)).toBeNull();
    }
  });

  it("recognises the server's refusal of a read from inside a record, as the client converts it, and nothing else", () => {
    const invalid = convertToCommandError({ code: 3, details: 'Invalid position', message: '3 INVALID_ARGUMENT: Invalid position', name: 'Error' } as never);
    expect(isInvalidPosition(invalid)).toBe(true);
    expect(isInvalidPosition(new UnavailableError())).toBe(false);
    expect(isInvalidPosition(convertToCommandError({ code: 13, details: 'boom', message: '13 INTERNAL: boom', name: 'Error' } as never))).toBe(false);
  });
});
