import {
  BSON,
  DBRef,
  MongoClient,
  MongoErrorLabel,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
  MongoWriteConcernError,
  type IndexDescriptionInfo,
} from 'mongodb';
import { describe, expect, it } from 'vitest';
import { StoreUnavailableError } from '../../../platform/eventStore/eventStore.ts';
import { CheckpointConflictError, type ReadStore } from '../../../platform/readStore/readStore.ts';
import {
  MONGO_CLIENT_OPTIONS,
  asUnavailable,
  collectionName,
  fromMongoDoc,
  isAlreadyGone,
  isDuplicateKey,
  staleIndexNames,
  supportsTransactions,
  toBulkWrites,
  toCheckpointError,
  toFindOptions,
  toIndexSpec,
  toMongoDoc,
  toMongoFilter,
  toMongoSort,
  withUnavailableErrors,
} from '../../../platform/readStore/mongodb/mongoMapping.ts';

const duplicateKey = () =>
  new MongoServerError({
    message: 'E11000 duplicate key error collection: commerce._checkpoints index: _id_ dup key: { _id: "catalog" }',
    code: 11000,
    codeName: 'DuplicateKey',
  });

describe('MongoDB mapping', () => {
  it('maps equality, null, booleans, $in, $nin and ranges, dotted paths, and id to _id', () => {
    expect(
      toMongoFilter({
        tag: 'a',
        active: true,
        archived_at: null,
        'family.id': 'f1',
        price: { $gte: 100 },
        status: { $in: ['open', 'paid'] },
        id: { $in: ['p1'] },
        endpoint_id: { $nin: ['we_1', null] },
      }),
    ).toEqual({
      tag: 'a',
      active: true,
      archived_at: null,
      'family.id': 'f1',
      price: { $gte: 100 },
      status: { $in: ['open', 'paid'] },
      _id: { $in: ['p1'] },
      endpoint_id: { $nin: ['we_1', null] },
      _deleted: { $ne: true },
    });
    // Every read leaves out the tombstones that commits without a transaction leave.
    expect(toMongoFilter(undefined)).toEqual({ _deleted: { $ne: true } });
    expect(toMongoFilter({ id: 'p1' })).toEqual({ _id: 'p1', _deleted: { $ne: true } });
  });

  it('refuses field paths that could smuggle operators', () => {
    expect(() => toMongoFilter({ $where: 'x' } as never)).toThrow(/invalid field path/);
    expect(() => toMongoFilter({ 'a.$b': 1 })).toThrow(/invalid field path/);
    expect(() => toMongoSort([['price; drop', 1]])).toThrow(/invalid field path/);
  });

  it('sorts with an id tie-break, ascending whatever the direction', () => {
    expect(toMongoSort([['price', -1]])).toEqual([['price', -1], ['_id', 1]]);
    expect(toMongoSort([['family.rank', 1], ['name', -1]])).toEqual([['family.rank', 1], ['name', -1], ['_id', 1]]);
    expect(toMongoSort(undefined)).toEqual([['_id', 1]]);
    expect(toMongoSort([['id', -1]])).toEqual([['_id', -1]]);
  });

  it('pages with skip and limit (0 = no limit) and hides the internal fields', () => {
    expect(toFindOptions({ skip: 20, limit: 10 })).toEqual({
      sort: [['_id', 1]],
      skip: 20,
      limit: 10,
      projection: { _id: 0, _pos: 0, _deleted: 0 },
    });
    expect(toFindOptions({})).toMatchObject({ skip: 0, limit: 0 });
  });

  it('stores a document under _id = id and reads it back without internal fields', () => {
    const doc = { id: 'p1', name: 'A', nested: { x: 1 } };
    expect(toMongoDoc(doc)).toEqual({ ...doc, _id: 'p1' });
    expect(fromMongoDoc({ _id: 'p1', _pos: 7, id: 'p1', name: 'A', nested: { x: 1 } })).toEqual(doc);
    expect(fromMongoDoc(null)).toBeNull();
  });

  it('builds index specs and validates collection names', () => {
    expect(toIndexSpec(['organization_id', 'created_at'])).toEqual({ organization_id: 1, created_at: 1 });
    // The _id_ index is there already; {_id: 1} under another name is a no-op at best.
    expect(toIndexSpec(['id'])).toBeNull();
    expect(toIndexSpec(['id', 'created_at'])).toEqual({ _id: 1, created_at: 1 });
    expect(collectionName('checkout_sessions')).toBe('checkout_sessions');
    expect(() => collectionName('system.users')).toThrow();
    expect(() => collectionName('$cmd')).toThrow();
  });

  it('names the indexes no declaration asks for any more, never _id_', () => {
    const existing: IndexDescriptionInfo[] = [
      { v: 2, name: '_id_', key: { _id: 1 } },
      { v: 2, name: 'status_1_next_attempt_at_1', key: { status: 1, next_attempt_at: 1 } },
      { v: 2, name: 'status_1_next_attempt_at_1_position_1__id_1', key: { status: 1, next_attempt_at: 1, position: 1, _id: 1 } },
      { v: 2, name: 'next_attempt_at_1_status_1', key: { next_attempt_at: 1, status: 1 } },
      { v: 2, name: 'ops_by_org', key: { organization_id: 1 } },
    ];
    const declared = [['status', 'next_attempt_at', 'position', 'id'], ['id']];
    // The same fields in another order are another index: it goes too; one named by hand stays.
    expect(staleIndexNames(existing, declared)).toEqual(['status_1_next_attempt_at_1', 'next_attempt_at_1_status_1']);
    expect(staleIndexNames(existing, [])).toEqual(['status_1_next_attempt_at_1', 'status_1_next_attempt_at_1_position_1__id_1', 'next_attempt_at_1_status_1']);
  });

  it('takes a collection not made yet, or an index already dropped, as nothing to drop', () => {
    const server = (code: number, codeName: string) => new MongoServerError({ message: codeName, code, codeName });
    expect(isAlreadyGone(server(26, 'NamespaceNotFound'))).toBe(true);
    expect(isAlreadyGone(server(27, 'IndexNotFound'))).toBe(true);
    expect(isAlreadyGone(duplicateKey())).toBe(false);
    expect(isAlreadyGone(new MongoNetworkError('connection reset'))).toBe(false);
  });

  it('groups a batch per collection; without a transaction, writes are guarded by position', () => {
    const ops = [
      { op: 'upsert' as const, collection: 'products', doc: { id: 'p1', n: 1 } },
      { op: 'delete' as const, collection: 'offers', id: 'o1' },
      { op: 'upsert' as const, collection: 'products', doc: { id: 'p2', n: 2 } },
    ];
    const plain = toBulkWrites(ops);
    expect([...plain.keys()]).toEqual(['products', 'offers']);
    expect(plain.get('products')).toEqual([
      { replaceOne: { filter: { _id: 'p1' }, replacement: { id: 'p1', n: 1 }, upsert: true } },
      { replaceOne: { filter: { _id: 'p2' }, replacement: { id: 'p2', n: 2 }, upsert: true } },
    ]);
    expect(plain.get('offers')).toEqual([{ deleteOne: { filter: { _id: 'o1' } } }]);

    const guarded = toBulkWrites(ops, 42);
    const olderThan42 = { $or: [{ _pos: { $lt: 42 } }, { _pos: { $exists: false } }] };
    expect(guarded.get('products')![0]).toEqual({
      replaceOne: { filter: { _id: 'p1', ...olderThan42 }, replacement: { id: 'p1', n: 1, _pos: 42 }, upsert: true },
    });
    // A delete leaves a tombstone at its position: a stale worker's older upsert of o1, landing
    // after it, then matches nothing (and its insert collides on _id) instead of resurrecting o1.
    expect(guarded.get('offers')).toEqual([
      { replaceOne: { filter: { _id: 'o1', ...olderThan42 }, replacement: { _pos: 42, _deleted: true }, upsert: true } },
    ]);
    const stale = toBulkWrites([{ op: 'upsert', collection: 'offers', doc: { id: 'o1', n: 0 } }], 40).get('offers')!;
    expect(stale).toEqual([
      { replaceOne: { filter: { _id: 'o1', $or: [{ _pos: { $lt: 40 } }, { _pos: { $exists: false } }] }, replacement: { id: 'o1', n: 0, _pos: 40 }, upsert: true } },
    ]);
  });

  it("translates the driver's duplicate key on the checkpoint into CheckpointConflictError", () => {
    const error = duplicateKey();
    expect(error).toBeInstanceOf(MongoServerError);
    expect(isDuplicateKey(error)).toBe(true);
    const translated = toCheckpointError(error, 'catalog', null, 12);
    expect(translated).toBeInstanceOf(CheckpointConflictError);
    expect(translated).toMatchObject({ projection: 'catalog', expected: null, actual: 12 });
  });

  it('leaves other server errors and network errors as they are', () => {
    const other = new MongoServerError({ message: 'not primary', code: 10107, codeName: 'NotWritablePrimary' });
    expect(isDuplicateKey(other)).toBe(false);
    expect(toCheckpointError(other, 'catalog', 1, null)).toBe(other);
    const network = new MongoNetworkError('connection reset');
    expect(toCheckpointError(network, 'catalog', 1, null)).toBe(network);
  });

  it('knows a replica set or mongos supports transactions and a standalone does not', () => {
    expect(supportsTransactions({ isWritablePrimary: true, setName: 'rs0' })).toBe(true);
    expect(supportsTransactions({ isWritablePrimary: true, msg: 'isdbgrid' })).toBe(true);
    expect(supportsTransactions({ isWritablePrimary: true })).toBe(false);
  });

  it('turns the driver\'s "not now" errors into StoreUnavailableError (503) and leaves the others alone', () => {
    // What the driver throws when no server answers in time: a TopologyDescription as the reason.
    const selection = new MongoServerSelectionError('Server selection timed out after 30000 ms', { type: 'Unknown', servers: new Map() } as never);
    const unavailable = [selection, new MongoNetworkError('connection 1 to 127.0.0.1:27017 closed'), new MongoNotConnectedError('Client must be connected'), new MongoTopologyClosedError()];
    for (const error of unavailable) {
      const mapped = asUnavailable(error);
      expect(mapped).toBeInstanceOf(StoreUnavailableError);
      expect((mapped as StoreUnavailableError).message).toBe(`MongoDB: ${error.name}: ${error.message}`);
      expect((mapped as StoreUnavailableError).cause).toBe(error);
    }
    const conflict = new CheckpointConflictError('catalog', 1, 2);
    for (const error of [duplicateKey(), conflict, new Error('boom')]) expect(asUnavailable(error)).toBe(error);
  });

  it('wraps every read store call so its "not now" errors come out as StoreUnavailableError', async () => {
    const calls: string[] = [];
    const failing = (error: unknown) => async () => {
      throw error;
    };
    const store = withUnavailableErrors({
      get: failing(new MongoNetworkError('connection closed')),
      commit: failing(new CheckpointConflictError('catalog', 1, 2)),
      count: async (collection: string) => {
        calls.push(collection);
        return 7;
      },
    } as unknown as ReadStore);
    await expect(store.get('products', 'p1')).rejects.toBeInstanceOf(StoreUnavailableError);
    await expect(store.commit('catalog', [], { expected: 1, next: 3 })).rejects.toBeInstanceOf(CheckpointConflictError);
    expect(await store.count('products')).toBe(7);
    expect(calls).toEqual(['products']);
  });

  it('a primary stepping down, a node shutting down, or a transaction the driver gave up retrying is StoreUnavailableError (503)', () => {
    const server = (code: number, codeName: string) => new MongoServerError({ message: codeName, code, codeName });
    const unavailable = [
      server(10107, 'NotWritablePrimary'),
      server(189, 'PrimarySteppedDown'),
      server(11602, 'InterruptedDueToReplStateChange'),
      server(91, 'ShutdownInProgress'),
      server(13436, 'NotPrimaryOrSecondary'),
      new MongoWriteConcernError({ writeConcernError: { code: 91, errmsg: 'shutting down' }, ok: 1 } as never),
    ];
    const labelled = (label: string) => {
      const error = new MongoServerError({ message: 'Write conflict during plan execution', code: 112, codeName: 'WriteConflict' });
      error.addErrorLabel(label);
      return error;
    };
    unavailable.push(
      labelled(MongoErrorLabel.TransientTransactionError),
      labelled(MongoErrorLabel.RetryableWriteError),
      labelled(MongoErrorLabel.UnknownTransactionCommitResult),
    );
    for (const error of unavailable) {
      const mapped = asUnavailable(error);
      expect(mapped, `${error.message} (${String(error.code)})`).toBeInstanceOf(StoreUnavailableError);
      expect((mapped as StoreUnavailableError).cause).toBe(error);
    }
    // A plain write conflict (no label), a validation error, a duplicate key: not "not now".
    const plain = [server(112, 'WriteConflict'), server(121, 'DocumentValidationFailure'), duplicateKey()];
    for (const error of plain) expect(asUnavailable(error)).toBe(error);
  });

  it('serialises a field set to undefined as absent, as the SQLite store (JSON) does, not as null', () => {
    // The options a collection of the adapter's client serialises with (no connection is made).
    const bsonOptions = new MongoClient('mongodb://localhost:27017', MONGO_CLIENT_OPTIONS).db('d').collection('c').bsonOptions;
    const doc = { id: 'p1', name: 'A', description: undefined, nested: { note: undefined, keep: 1 } };
    const stored = BSON.deserialize(BSON.serialize(toMongoDoc(doc), bsonOptions));
    expect(fromMongoDoc(stored)).toStrictEqual(JSON.parse(JSON.stringify(doc)));
    // The driver's default: the same document would come back with nulls.
    const byDefault = new MongoClient('mongodb://localhost:27017').db('d').collection('c').bsonOptions;
    expect(BSON.deserialize(BSON.serialize(toMongoDoc(doc), byDefault))).toMatchObject({ description: null });
  });

  it('gives back stored webhook payloads as they were: keys with dots and $, and JSON Schema $ref/$id objects (not DBRef)', () => {
    const payload = JSON.parse(
      '{"a.b": 1, "$where": "sleep(1)", "schema": {"$id": "https://x/s", "$ref": "#/defs/a", "defs": {"a": {"$ref": "#/b", "$id": "b"}}}, "list": [{"$ref": "r", "$id": 1}], "__proto__": {"x": 1}}',
    ) as Record<string, unknown>;
    const doc = { id: 'trg_1:0', trigger_id: 'trg_1', payload };
    const bsonOptions = new MongoClient('mongodb://localhost:27017', MONGO_CLIENT_OPTIONS).db('d').collection('c').bsonOptions;
    const raw = BSON.deserialize(BSON.serialize(toMongoDoc(doc), bsonOptions));
    // What the driver itself hands back: a DBRef where the payload had a plain object.
    expect((raw.payload as Record<string, unknown>).schema).toBeInstanceOf(DBRef);
    const back = fromMongoDoc(raw)!;
    expect(back).toStrictEqual(doc);
    // Equal as JSON values; the key order of such an object is not kept ($ref and $id come first).
    expect(JSON.parse(JSON.stringify(back.payload))).toStrictEqual(JSON.parse(JSON.stringify(payload)));
  });
});
