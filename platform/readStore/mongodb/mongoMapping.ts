import {
  DBRef,
  MongoClientClosedError,
  MongoError,
  MongoErrorLabel,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  type AnyBulkWriteOperation,
  type Document,
  type Filter as MongoFilter,
  type IndexDescriptionInfo,
  type MongoClientOptions,
  type Sort,
} from 'mongodb';
import { StoreUnavailableError } from '../../lib/storeUnavailableError.ts';
import { assertFieldPath, CheckpointConflictError, ProjectionResettingError, type Doc, type Filter, type Query, type ReadStore, type WriteOp } from '../readStore.ts';

/**
 * Pure translations from the read store port to MongoDB documents, filters and writes, unit-tested
 * without a server.
 *
 * A read-model document is stored as itself plus `_id` (= its id). Commits made without a
 * transaction (a standalone server) also stamp `_pos`, the checkpoint the write belongs to, and
 * only overwrite a document whose `_pos` is older, so a replayed batch changes nothing. There a
 * delete leaves a tombstone (`_deleted`, with its `_pos`): a stale worker's older upsert landing
 * after it finds a newer `_pos`, where a removed document would come back. Reads skip tombstones.
 */

export const CHECKPOINTS = '_checkpoints';

/** A checkpoint document: a position, or the fence a reset puts in its place. */
export type CheckpointDoc = { _id: string; position: number | null; resetting?: true };

/**
 * What a reset writes in place of the checkpoint before it empties any collection: no
 * compare-and-set matches it (its position is null, and an insert for a first batch collides
 * with it), so a running worker's commit fails at once instead of landing in a collection being
 * emptied; and a reset cut short leaves it, not the old checkpoint over emptied collections.
 */
export function resetFence(): Omit<CheckpointDoc, '_id'> {
  return { position: null, resetting: true };
}

/** A checkpoint as the port reads it: its position, null for none, or ProjectionResettingError behind a fence. */
export function fromCheckpointDoc(projection: string, doc: CheckpointDoc | null): number | null {
  if (doc?.resetting) throw new ProjectionResettingError(projection);
  return doc?.position ?? null;
}

/**
 * How the adapter's MongoClient serialises documents. ignoreUndefined: a field set to undefined
 * is left out, as JSON.stringify (the SQLite read store) leaves it out; the driver's default
 * stores it as null, so `get` would answer `{x: null}` where SQLite answers no `x`.
 */
export const MONGO_CLIENT_OPTIONS = { ignoreUndefined: true } as const satisfies MongoClientOptions;
export const LEASES = '_leases';

/** expires_at: a date on the server's clock (milliseconds in leases an older version wrote). */
export type LeaseDoc = { _id: string; owner: string; expires_at: Date | number };

/**
 * A lease's filter and update, on the server's clock (`$$NOW`): the workers' clocks never meet,
 * so one running ahead cannot take a lease its holder still counts as live. The filter matches a
 * lease `owner` holds or one that ran out; when none matches, the upsert's insert collides with
 * the holder's `_id` (duplicate key: held by someone else). `expires_at` is a date; `$toDate`
 * also reads the milliseconds an older version stored.
 */
export function leaseFilter(name: string, owner: string): MongoFilter<LeaseDoc> {
  return { _id: name, $or: [{ owner }, { $expr: { $lte: [{ $toDate: '$expires_at' }, '$$NOW'] } }] };
}

export function leaseUpdate(owner: string, ttlMs: number): Document[] {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0) throw new Error(`invalid lease lifetime: ${ttlMs} ms`);
  return [{ $set: { owner, expires_at: { $add: ['$$NOW', ttlMs] } } }];
}

const COLLECTION = /^[A-Za-z][A-Za-z0-9_]*$/;

export function collectionName(name: string): string {
  if (!COLLECTION.test(name)) throw new Error(`invalid collection name: ${name}`);
  return name;
}

/** `id` is the document's `_id`; other paths are used as they are (dotted paths work in MongoDB). */
function mongoField(field: string): string {
  return field === 'id' ? '_id' : assertFieldPath(field);
}

/** Marks a deleted document's tombstone (commits without a transaction only). */
export const TOMBSTONE = '_deleted';

export function toMongoFilter(filter: Filter = {}): Document {
  const out: Document = {};
  for (const [field, condition] of Object.entries(filter)) {
    // {field: null} matches a null or missing field in MongoDB, as IS NULL does on SQLite.
    out[mongoField(field)] = condition;
  }
  out[TOMBSTONE] = { $ne: true };
  return out;
}

export function toMongoSort(sort: Query['sort'] = []): Sort {
  const entries: Array<[string, 1 | -1]> = sort.map(([field, direction]) => [mongoField(field), direction]);
  // Ties are broken by id ascending whatever the direction, so pages are stable.
  if (!entries.some(([f]) => f === '_id')) entries.push(['_id', 1]);
  return entries;
}

export function toFindOptions(query: Query = {}): { sort: Sort; skip: number; limit: number; projection: Document } {
  return {
    sort: toMongoSort(query.sort),
    skip: query.skip ?? 0,
    limit: query.limit ?? 0,
    projection: { _id: 0, _pos: 0, [TOMBSTONE]: 0 },
  };
}

export function toMongoDoc(doc: Doc): Document {
  return { ...doc, _id: doc.id };
}

export function fromMongoDoc<T extends Doc>(doc: Document | null): T | null {
  if (!doc) return null;
  const { _id, _pos: _ignored, [TOMBSTONE]: _tombstone, ...rest } = doc;
  return { ...(asStored(rest) as Document), id: rest.id ?? _id } as T;
}

/**
 * The driver turns every embedded object with a string `$ref` and a non-null `$id` into a DBRef
 * instance (js-bson's deserializer does it unconditionally), so a webhook payload holding a JSON
 * Schema `{"$ref": …, "$id": …}` would come back as `{collection, oid}`: give such objects back
 * as the plain objects they were stored as. Everything else is returned as it is.
 */
function asStored(value: unknown): unknown {
  if (value instanceof DBRef) return asStored(value.toJSON());
  if (Array.isArray(value)) return value.some(needsRestore) ? value.map(asStored) : value;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    if (!Object.values(value).some(needsRestore)) return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, asStored(v)]));
  }
  return value;
}

function needsRestore(value: unknown): boolean {
  if (value instanceof DBRef) return true;
  if (Array.isArray(value)) return value.some(needsRestore);
  return value !== null && typeof value === 'object' && Object.values(value).some(needsRestore);
}

/**
 * The index to create for `fields`; null for `['id']` alone, which the `_id_` index every
 * collection has already serves. Asking for {_id: 1} again (under the generated name `_id_1`) is
 * at best a no-op, and some MongoDB-compatible servers refuse it (IndexOptionsConflict: same key
 * pattern, another name), so it is not asked for.
 */
export function toIndexSpec(fields: readonly string[]): Record<string, 1> | null {
  const spec = Object.fromEntries(fields.map((f) => [mongoField(f), 1 as const]));
  const keys = Object.keys(spec);
  return keys.length === 0 || (keys.length === 1 && keys[0] === '_id') ? null : spec;
}

/**
 * The names of the collection's indexes (as listIndexes describes them) that ensureIndex made and
 * no `declared` fields ask for any more. Its indexes carry the name the driver gives a key pattern
 * (`status_1_next_attempt_at_1`); one under another name was made by hand and is not ours to drop.
 */
export function staleIndexNames(existing: readonly Pick<IndexDescriptionInfo, 'name' | 'key'>[], declared: readonly string[][]): string[] {
  const nameOf = (key: Record<string, unknown>) => Object.entries(key).map(([field, direction]) => `${field}_${String(direction)}`).join('_');
  const wanted = new Set(declared.flatMap((fields) => {
    const spec = toIndexSpec(fields);
    return spec ? [nameOf(spec)] : [];
  }));
  return existing.flatMap((index) => (index.name && index.name !== '_id_' && index.name === nameOf(index.key) && !wanted.has(index.name) ? [index.name] : []));
}

/** What listIndexes says of a collection not made yet (NamespaceNotFound), and dropIndex of an index another process dropped first (IndexNotFound): nothing to drop. */
export const isAlreadyGone = (error: unknown): boolean => error instanceof MongoServerError && (error.code === 26 || error.code === 27);

/** Groups a batch's writes per collection, in order, as bulk operations. */
export function toBulkWrites(ops: WriteOp[], guardedAt?: number): Map<string, AnyBulkWriteOperation[]> {
  const byCollection = new Map<string, AnyBulkWriteOperation[]>();
  for (const op of ops) {
    const name = collectionName(op.collection);
    const list = byCollection.get(name) ?? [];
    byCollection.set(name, list);
    const id = op.op === 'upsert' ? op.doc.id : op.id;
    // Without a transaction: touch only documents no later commit has written.
    const filter: Document =
      guardedAt === undefined ? { _id: id } : { _id: id, $or: [{ _pos: { $lt: guardedAt } }, { _pos: { $exists: false } }] };
    if (op.op === 'upsert') {
      const replacement = guardedAt === undefined ? toMongoDoc(op.doc) : { ...toMongoDoc(op.doc), _pos: guardedAt };
      const { _id: _omit, ...withoutId } = replacement;
      list.push({ replaceOne: { filter, replacement: withoutId, upsert: true } });
    } else if (guardedAt === undefined) {
      list.push({ deleteOne: { filter } });
    } else {
      list.push({ replaceOne: { filter, replacement: { _pos: guardedAt, [TOMBSTONE]: true }, upsert: true } });
    }
  }
  return byCollection;
}

export function isDuplicateKey(error: unknown): boolean {
  // A bulk write reports its errors per operation: all of them must be duplicate keys.
  const writeErrors = (error as { writeErrors?: Array<{ code?: number }> } | null)?.writeErrors;
  if (Array.isArray(writeErrors) && writeErrors.length > 0) return writeErrors.every((e) => e.code === 11000);
  return error instanceof MongoServerError && error.code === 11000;
}

/**
 * The writes of a guarded batch (no transaction) to send again after `error`, or null when the
 * error is not only duplicate keys. A guarded upsert whose filter matched nothing inserts, and
 * collides when the document exists: a newer write stands, or another writer inserted it a moment
 * before, perhaps older, and ours must still land. Sent again, the filter meets the document as it
 * now is; a second collision means a newer one stands (guarded documents are only tombstoned).
 */
export function duplicateKeyRetries<T>(error: unknown, writes: readonly T[]): T[] | null {
  const writeErrors = (error as { writeErrors?: Array<{ code?: number; index?: number }> } | null)?.writeErrors;
  if (!Array.isArray(writeErrors) || writeErrors.length === 0) return null;
  if (!writeErrors.every((e) => e.code === 11000 && typeof e.index === 'number' && writes[e.index] !== undefined)) return null;
  return writeErrors.map((e) => writes[e.index!]!);
}

/**
 * The checkpoint is moved with insert (expected null) or a position-guarded update; another
 * writer's insert in between shows up as a duplicate key on `_checkpoints._id`: a conflict.
 */
export function toCheckpointError(error: unknown, projection: string, expected: number | null, actual: number | null): unknown {
  return isDuplicateKey(error) ? new CheckpointConflictError(projection, expected, actual) : error;
}

/** Server `hello` answer → whether multi-document transactions are available. */
export function supportsTransactions(hello: Document): boolean {
  return typeof hello.setName === 'string' || hello.msg === 'isdbgrid';
}

/**
 * Server error codes that mean "this node cannot take it now" (an election, a step-down, a
 * shutdown, a network failure seen by the server): the driver's retryable-reads set (see its
 * error.ts), which it retries once itself; what reaches us has failed its retry too.
 */
const NOT_NOW_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  91, // ShutdownInProgress
  134, // ReadConcernMajorityNotAvailableYet
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10058, // LegacyNotPrimary
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/**
 * The driver's errors that mean "not now", as StoreUnavailableError: the API answers 503 with
 * Retry-After. That is no server selected in time, a dropped connection, a client not or no longer
 * connected, a primary stepping down or a node shutting down (by code), and anything the driver
 * labels retryable or transient (a transaction that kept meeting write conflicts or an election
 * until withTransaction gave up, or whose commit outcome is unknown: retrying a projection commit
 * is safe, since its checkpoint compare-and-set refuses a batch already applied). Any other error
 * as it is.
 */
export function asUnavailable(error: unknown): unknown {
  if (
    error instanceof MongoServerSelectionError ||
    error instanceof MongoNetworkError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoTopologyClosedError ||
    error instanceof MongoClientClosedError ||
    (error instanceof MongoServerError && typeof error.code === 'number' && NOT_NOW_CODES.has(error.code)) ||
    (error instanceof MongoError &&
      (error.hasErrorLabel(MongoErrorLabel.RetryableWriteError) ||
        error.hasErrorLabel(MongoErrorLabel.TransientTransactionError) ||
        error.hasErrorLabel(MongoErrorLabel.UnknownTransactionCommitResult)))
  ) {
    return new StoreUnavailableError(`MongoDB: ${error.name}: ${error.message}`, { cause: error });
  }
  return error;
}

/** The same read store, its every call's "not now" errors translated by asUnavailable. */
export function withUnavailableErrors(store: ReadStore): ReadStore {
  const wrapped: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(store) as Array<[string, (...args: unknown[]) => Promise<unknown>]>) {
    if (name === 'stream') continue;
    wrapped[name] = async (...args: unknown[]) => {
      try {
        return await method(...args);
      } catch (error) {
        throw asUnavailable(error);
      }
    };
  }
  // A stream fails as it is read, not when it is asked for: its errors are translated where they surface.
  wrapped.stream = <T extends Doc>(collection: string, query?: Query, options?: { batchSize?: number }): AsyncIterable<T[]> => ({
    async *[Symbol.asyncIterator]() {
      try {
        yield* store.stream<T>(collection, query, options);
      } catch (error) {
        throw asUnavailable(error);
      }
    },
  });
  return wrapped as unknown as ReadStore;
}
