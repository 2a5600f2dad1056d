import { MongoClient, type ClientSession, type Db, type IndexDescriptionInfo } from 'mongodb';
import { CheckpointConflictError, inBatches, STREAM_BATCH, type CheckpointUpdate, type Doc, type Query, type ReadStore, type WriteOp } from '../readStore.ts';
import {
  CHECKPOINTS,
  LEASES,
  type LeaseDoc,
  type CheckpointDoc,
  fromCheckpointDoc,
  resetFence,
  MONGO_CLIENT_OPTIONS,
  collectionName,
  duplicateKeyRetries,
  fromMongoDoc,
  isAlreadyGone,
  isDuplicateKey,
  leaseFilter,
  leaseUpdate,
  staleIndexNames,
  supportsTransactions,
  toBulkWrites,
  toCheckpointError,
  toFindOptions,
  toIndexSpec,
  toMongoDoc,
  toMongoFilter,
  withUnavailableErrors,
} from './mongoMapping.ts';

/**
 * Read store on MongoDB (production profile): one collection per read-model collection, `_id` =
 * id. A commit is one transaction on a replica set (checkpoint compare-and-set inside it); on a
 * standalone server it falls back to position-guarded writes (see mongoMapping.ts), so a batch
 * applied twice still leaves the same state.
 */
export async function openMongoReadStore(
  url: string,
  dbName: string,
  options: {
    /** auto: transactions when the server has them; never: position-guarded writes (tests use it). */
    transactions?: 'auto' | 'never';
  } = {},
): Promise<ReadStore> {
  const client = new MongoClient(url, MONGO_CLIENT_OPTIONS);
  await client.connect();
  const db: Db = client.db(dbName);
  const hello = await db.admin().command({ hello: 1 });
  const transactions = options.transactions !== 'never' && supportsTransactions(hello);
  return mongoReadStore(client, db, transactions);
}

/** The read store over an open client and database (openMongoReadStore connects them). */
export function mongoReadStore(client: Pick<MongoClient, 'startSession' | 'close'>, db: Db, transactions: boolean): ReadStore {
  const checkpoints = db.collection<CheckpointDoc>(CHECKPOINTS);
  const leases = db.collection<LeaseDoc>(LEASES);

  const readCheckpoint = async (name: string, session?: ClientSession) =>
    fromCheckpointDoc(name, await checkpoints.findOne({ _id: name }, session ? { session } : {}));

  /** Moves the checkpoint from `expected` to `next`, or throws CheckpointConflictError. */
  async function moveCheckpoint(name: string, { expected, next }: CheckpointUpdate, session?: ClientSession) {
    const opts = session ? { session } : {};
    try {
      if (expected === null) {
        await checkpoints.insertOne({ _id: name, position: next }, opts);
        return;
      }
      const { matchedCount } = await checkpoints.updateOne({ _id: name, position: expected }, { $set: { position: next } }, opts);
      if (matchedCount === 1) return;
    } catch (error) {
      throw toCheckpointError(error, name, expected, await readCheckpoint(name).catch(() => null));
    }
    throw new CheckpointConflictError(name, expected, await readCheckpoint(name));
  }

  async function applyOps(ops: WriteOp[], guardedAt: number | undefined, session?: ClientSession) {
    for (const [name, writes] of toBulkWrites(ops, guardedAt)) {
      if (guardedAt === undefined) {
        await db.collection(name).bulkWrite(writes, { ordered: true, ...(session ? { session } : {}) });
        continue;
      }
      // Guarded writes run unordered: one already-newer document must not stop the others (a
      // batch holds at most one write per document, so order within it does not matter). Those
      // refused with a duplicate key go once more (see duplicateKeyRetries); refused again, a
      // newer document stands.
      let pending = writes;
      for (let attempt = 0; attempt < 2 && pending.length > 0; attempt++) {
        try {
          await db.collection(name).bulkWrite(pending, { ordered: false });
          pending = [];
        } catch (error) {
          const again = duplicateKeyRetries(error, pending);
          if (again === null) throw error;
          pending = again;
        }
      }
    }
  }

  /** A commit in the transaction of `session`, or without one as position-guarded writes. */
  async function commitIn(session: ClientSession | undefined, name: string, ops: WriteOp[], checkpoint: CheckpointUpdate) {
    const actual = await readCheckpoint(name, session);
    if (actual !== checkpoint.expected) throw new CheckpointConflictError(name, checkpoint.expected, actual);
    await applyOps(ops, session ? undefined : checkpoint.next, session);
    await moveCheckpoint(name, checkpoint, session);
  }

  async function commitInTransaction(name: string, ops: WriteOp[], checkpoint: CheckpointUpdate) {
    const session = client.startSession();
    try {
      await session.withTransaction(() => commitIn(session, name, ops, checkpoint));
    } finally {
      await session.endSession();
    }
  }

  return withUnavailableErrors({
    async get<T extends Doc>(collection: string, id: string) {
      return fromMongoDoc<T>(await db.collection(collectionName(collection)).findOne(toMongoFilter({ id })));
    },
    async find<T extends Doc>(collection: string, query: Query = {}) {
      // MongoDB reads limit 0 as "no limit"; the port means none.
      if (query.limit === 0) return [];
      const { sort, skip, limit, projection } = toFindOptions(query);
      const docs = await db
        .collection(collectionName(collection))
        .find(toMongoFilter(query.filter), { sort, skip, limit, projection })
        .toArray();
      return docs.map((d) => fromMongoDoc<T>(d)!);
    },
    stream<T extends Doc>(collection: string, query: Query = {}, options: { batchSize?: number } = {}): AsyncIterable<T[]> {
      const size = Math.max(1, options.batchSize ?? STREAM_BATCH);
      return {
        async *[Symbol.asyncIterator]() {
          if (query.limit === 0) return;
          const { sort, skip, limit, projection } = toFindOptions(query);
          // The cursor fetches a batch at a time, the next only when this one is consumed.
          const cursor = db.collection(collectionName(collection)).find(toMongoFilter(query.filter), { sort, skip, limit, projection, batchSize: size });
          try {
            yield* inBatches(cursor, size, (d) => fromMongoDoc<T>(d)!);
          } finally {
            await cursor.close();
          }
        },
      };
    },
    async count(collection, filter) {
      return db.collection(collectionName(collection)).countDocuments(toMongoFilter(filter));
    },
    async upsert(collection, doc) {
      const { _id, ...rest } = toMongoDoc(doc);
      await db.collection(collectionName(collection)).replaceOne({ _id }, rest, { upsert: true });
    },
    async delete(collection, id) {
      await db.collection(collectionName(collection)).deleteOne({ _id: id as never });
    },
    async ensureIndex(collection, fields) {
      const spec = toIndexSpec(fields);
      if (spec) await db.collection(collectionName(collection)).createIndex(spec);
    },
    async dropIndexesExcept(collection, declared) {
      const c = db.collection(collectionName(collection));
      const existing = await c.listIndexes().toArray().catch((error: unknown) => {
        if (isAlreadyGone(error)) return [];
        throw error;
      });
      for (const name of staleIndexNames(existing as IndexDescriptionInfo[], declared)) {
        await c.dropIndex(name).catch((error: unknown) => {
          if (!isAlreadyGone(error)) throw error;
        });
      }
    },
    readCheckpoint: (name) => readCheckpoint(name),
    async commit(name, ops, checkpoint) {
      if (transactions) await commitInTransaction(name, ops, checkpoint);
      else await commitIn(undefined, name, ops, checkpoint);
    },
    async reset(name, collections) {
      // Fence first, then empty, then drop the fence: every step may be cut short, and none
      // leaves a checkpoint over collections it does not describe (see resetFence). Not one
      // transaction: emptying large collections in one is what transactions are worst at.
      await checkpoints.replaceOne({ _id: name }, resetFence(), { upsert: true });
      for (const collection of collections) await db.collection(collectionName(collection)).deleteMany({});
      await checkpoints.deleteOne({ _id: name, resetting: true });
    },
    // `now` (the caller's clock) is not used: the server's is (leaseFilter).
    async acquireLease(name, owner, ttlMs) {
      try {
        await leases.updateOne(leaseFilter(name, owner), leaseUpdate(owner, ttlMs), { upsert: true });
        return true;
      } catch (error) {
        if (isDuplicateKey(error)) return false;
        throw error;
      }
    },
    async releaseLease(name, owner) {
      await leases.deleteOne({ _id: name, owner });
    },
    async close() {
      await client.close();
    },
  });
}
