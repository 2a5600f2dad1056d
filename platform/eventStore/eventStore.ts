/**
 * The event store port. Every backend (SQLite here, EventStoreDB in the production profile) is a
 * factory returning this interface; each translates its own version conflict into
 * WrongExpectedRevisionError, the only error the command handler retries.
 */

/** `any`: append whatever the stream holds; `no_stream`: the stream must not exist; a number: the revision of its last event. */
export type ExpectedRevision = 'any' | 'no_stream' | number;

export type Actor =
  | { type: 'api_key'; id: string; user_id: string }
  /** An app acting with an OAuth access token a user granted (grant_id names the consent). */
  | { type: 'oauth_app'; id: string; user_id: string; grant_id: string }
  /** An app at the authorization server's endpoints (token, revocation), by its client id. */
  | { type: 'oauth_client'; id: string }
  | { type: 'user'; id: string }
  | { type: 'public'; ip?: string }
  | { type: 'cli' }
  | { type: 'system'; name: string }
  /** A buyer in the hosted customer portal, by their customer id in the event's organization. */
  | { type: 'customer'; id: string };

export type EventMetadata = {
  /** The request id of the HTTP request (or CLI run) that caused the event. */
  correlation_id: string;
  actor: Actor;
  organization_id: string | null;
  /** Unix seconds. */
  occurred_at: number;
};

export type NewEvent = {
  /** Set by us (a UUID), so a retried append of the same event can be recognised. */
  id: string;
  type: string;
  data: unknown;
  metadata: EventMetadata;
};

export type RecordedEvent = NewEvent & {
  stream: string;
  /** 0-based position of the event inside its stream. */
  revision: number;
  /** Position in the global log: strictly increasing, gaps allowed. */
  position: number;
};

export type AppendResult = {
  /** Revision of the last event appended (the stream's new revision). */
  revision: number;
  /** Global position of the last event appended. */
  position: number;
};

export type ReadAllOptions = {
  /**
   * Exclusive: events after this position, which must be null (the start) or a position the store
   * handed out (an event's or a checkpoint's): EventStoreDB cannot read from inside a record.
   */
  after: number | null;
  /**
   * Inclusive, and taking the place of `after`: events from this position on. For a number that may
   * be an event's position (an old workflow id): where no record starts there, EventStoreDB answers
   * nothing, SQLite the events after it; the caller checks the first event's position.
   */
  from?: number;
  limit: number;
  /** Only streams whose name starts with one of these prefixes (all when omitted). */
  streamPrefixes?: readonly string[];
};

export type SubscriptionHandler = (events: RecordedEvent[]) => Promise<void>;

export type Subscription = {
  /** Stops after the batch in flight, if any; resolves once it is stopped. */
  stop(): Promise<void>;
  /** Settles when the subscription ends: resolves on stop, rejects if its handler failed. */
  readonly done: Promise<void>;
};

export type SubscribeOptions = {
  /** Exclusive checkpoint: delivery starts after this position (null: from the start). */
  after: number | null;
  batchSize?: number;
  streamPrefixes?: readonly string[];
  /**
   * Called, between batches, with a position the subscription has looked past without finding an
   * event for the handler (a long run of other streams' events under `streamPrefixes`), so the
   * caller can store it as its checkpoint and a restart does not scan that run again.
   */
  onCheckpoint?: (position: number) => Promise<void>;
};

/** One stream's part of an appendMany. */
export type StreamAppend = { stream: string; events: NewEvent[]; expected: ExpectedRevision };

export interface EventStore {
  append(stream: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult>;
  /**
   * Appends to several streams, each with its expected revision; results in the given order.
   * When `atomicAppendMany` is true (SQLite: one transaction) it writes all or nothing. Otherwise
   * (EventStoreDB has no transaction across streams) it appends one stream after the other in the
   * given order and stops at the first failure, which leaves the appends before it written: a
   * caller must be able to finish the rest by deciding again (docs/import-atomicity.md).
   */
  appendMany(appends: readonly StreamAppend[]): Promise<AppendResult[]>;
  readonly atomicAppendMany: boolean;
  /** The whole stream in revision order; [] when it does not exist. */
  readStream(stream: string): Promise<RecordedEvent[]>;
  /** One event of a stream by its revision; null when the stream has none there. */
  readEvent(stream: string, revision: number): Promise<RecordedEvent | null>;
  readAll(options: ReadAllOptions): Promise<RecordedEvent[]>;
  /** The position of the last event in the log (null when empty). */
  headPosition(): Promise<number | null>;
  /**
   * The position of the log's last record of any kind, past which no checkpoint can lie: on
   * EventStoreDB the server's own records (`$`-streams) follow our events, and a filtered
   * subscription's checkpoints may name them. Absent where the log holds our events only (SQLite):
   * headPosition is that position.
   */
  endPosition?(): Promise<number | null>;
  /** Catch-up from the checkpoint, then live. The handler gets batches in log order, one at a time. */
  subscribe(handler: SubscriptionHandler, options: SubscribeOptions): Subscription;
  /**
   * Another process or thread has appended: subscriptions look for its events now instead of at
   * their next poll. Absent where subscriptions are pushed by the server (EventStoreDB).
   */
  wake?(): void;
  close(): Promise<void>;
}

// Shared with the read store adapters (a MongoDB election answers 503 the same way), so it lives in lib/.
export { StoreUnavailableError } from '../lib/storeUnavailableError.ts';

/**
 * The store refused the events as larger than it takes in one append (EventStoreDB's
 * MaxAppendSize; the embedded profile has no such limit). Nothing was written, and sending the
 * same request again cannot succeed: the API answers 413.
 */
export class EventsTooLargeError extends Error {
  override readonly name = 'EventsTooLargeError';
}

/** Index of the first event past `position` in `events`, which are in log order. */
export function firstAfter(events: readonly { position: number }[], position: number): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (events[mid]!.position <= position) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export class WrongExpectedRevisionError extends Error {
  override readonly name = 'WrongExpectedRevisionError';
  constructor(
    readonly stream: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | null,
  ) {
    super(`stream ${stream}: expected revision ${String(expected)}, found ${actual === null ? 'no stream' : actual}`);
  }
}
