/**
 * The read store port: documents grouped in collections, and the checkpoints of the projections
 * that write them. SQLite in the embedded profile, MongoDB in the production profile.
 */

export type Doc = { id: string } & Record<string, unknown>;

export type Scalar = string | number | boolean | null;

/** Field paths may be dotted (`family.id`). A bare value means equality. */
/** A range may combine bounds (`{ $gte: from, $lt: to }`); each bound given must hold. */
export type Range = { $lt?: number; $lte?: number; $gt?: number; $gte?: number };
/**
 * `$in`: the field is one of the values; `$nin`: none of them. As in MongoDB, a null in the list
 * stands for a null or missing field: `$in` then matches it, `$nin` then does not (and does otherwise).
 */
export type Condition = Scalar | { $in: Scalar[] } | { $nin: Scalar[] } | Range;
export type Filter = Record<string, Condition>;

export type SortDirection = 1 | -1;

export type Query = {
  filter?: Filter;
  /** Applied in order; ties are broken by id so pages are stable. */
  sort?: Array<[field: string, direction: SortDirection]>;
  skip?: number;
  limit?: number;
};

export type WriteOp =
  | { op: 'upsert'; collection: string; doc: Doc }
  | { op: 'delete'; collection: string; id: string };

/** The batch a stream yields when the caller names none. */
export const STREAM_BATCH = 500;

/** `items` as `toDoc` makes them, in arrays of `size` (the last one shorter): what a stream yields. */
export async function* inBatches<I, T>(items: Iterable<I> | AsyncIterable<I>, size: number, toDoc: (item: I) => T): AsyncGenerator<T[]> {
  let batch: T[] = [];
  for await (const item of items) {
    batch.push(toDoc(item));
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

export type CheckpointUpdate = {
  /** The checkpoint this commit was computed from; another writer's commit in between fails it. */
  expected: number | null;
  next: number;
};

export interface ReadStore {
  get<T extends Doc = Doc>(collection: string, id: string): Promise<T | null>;
  find<T extends Doc = Doc>(collection: string, query?: Query): Promise<T[]>;
  /**
   * What find answers, read from a cursor in batches of up to `batchSize` documents (500 by
   * default), for reads too large to hold at once (an export of 100,000 rows): the next batch is
   * read only when the consumer asks for it. Ending the loop early (break, an error) releases
   * the cursor. Other calls on the store may run while a stream is open.
   */
  stream<T extends Doc = Doc>(collection: string, query?: Query, options?: { batchSize?: number }): AsyncIterable<T[]>;
  count(collection: string, filter?: Filter): Promise<number>;
  upsert(collection: string, doc: Doc): Promise<void>;
  delete(collection: string, id: string): Promise<void>;
  /** Declares the fields a query filters or sorts on, so the backend can index them. Idempotent. */
  ensureIndex(collection: string, fields: string[]): Promise<void>;
  /**
   * Drops the collection's indexes that ensureIndex made for fields other than `declared` (an
   * index a projection no longer declares still costs every write). Idempotent.
   */
  dropIndexesExcept(collection: string, declared: readonly string[][]): Promise<void>;
  readCheckpoint(name: string): Promise<number | null>;
  /** Applies the writes and moves the checkpoint in one atomic step (compare-and-set on the checkpoint). */
  commit(name: string, ops: WriteOp[], checkpoint: CheckpointUpdate): Promise<void>;
  /** Drops the collections and the checkpoint, for a rebuild from the event log. */
  reset(name: string, collections: string[]): Promise<void>;
  /**
   * Takes or renews the lease `name` for `owner` for `ttlMs`: true when `owner` holds it (it was
   * free, expired, or already its own). Time is the store's own clock where it has one (MongoDB:
   * the server's `$$NOW`, so workers' clocks never meet); `now` serves where it has none (SQLite:
   * one machine). Leases keep work on one worker at a time; they are not what keeps read models
   * correct (the checkpoint compare-and-set is), so a short overlap after a pause costs a
   * conflict, never a double write.
   */
  acquireLease(name: string, owner: string, ttlMs: number, now: number): Promise<boolean>;
  /** Gives the lease up at once (on a clean stop) if `owner` holds it. */
  releaseLease(name: string, owner: string): Promise<void>;
  close(): Promise<void>;
}

export class CheckpointConflictError extends Error {
  override readonly name = 'CheckpointConflictError';
  constructor(
    readonly projection: string,
    readonly expected: number | null,
    readonly actual: number | null,
  ) {
    super(`projection ${projection}: expected checkpoint ${String(expected)}, found ${String(actual)}`);
  }
}

/**
 * A reset of this projection's read models is under way, or was cut short (a rebuild stopped
 * half-way): nothing may be applied on top until a rebuild finishes it. Only MongoDB has it: its
 * reset is several operations, fenced by a marker in place of the checkpoint.
 */
export class ProjectionResettingError extends Error {
  override readonly name = 'ProjectionResettingError';
  constructor(readonly projection: string) {
    super(
      `projection ${projection}: its read models are being reset for a rebuild, or a rebuild stopped half-way; ` +
        `waiting for it (run \`commerce projections rebuild ${projection}\` if none is running)`,
    );
  }
}

const FIELD = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** Field paths come from our code, never from a request, but a backend builds queries from them: check. */
export function assertFieldPath(field: string): string {
  if (!FIELD.test(field)) throw new Error(`invalid field path: ${field}`);
  return field;
}
