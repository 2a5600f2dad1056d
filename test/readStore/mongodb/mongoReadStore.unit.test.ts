import { MongoBulkWriteError, MongoServerError, type Db, type MongoClient } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { mongoReadStore } from '../../../platform/readStore/mongodb/mongoReadStore.ts';
import { duplicateKeyRetries, fromCheckpointDoc, resetFence } from '../../../platform/readStore/mongodb/mongoMapping.ts';
import { ProjectionResettingError } from '../../../platform/readStore/readStore.ts';

type Row = Record<string, unknown> & { _id: string };

/**
 * A stand-in for the server under the adapter: collections of documents answering the calls the
 * adapter makes, with the answers' shapes the driver gives (matchedCount, E11000 as a
 * MongoServerError) and equality filters only, which is all reset and commit use. `gate` holds
 * a deleteMany half-way, as a large collection does for minutes.
 */
function fakeDb(gate: { wait?: Promise<void>; race?: Set<string> } = {}) {
  const collections = new Map<string, Map<string, Row>>();
  const rows = (name: string) => collections.get(name) ?? collections.set(name, new Map()).get(name)!;
  const matches = (row: Row, filter: Record<string, unknown>) => Object.entries(filter).every(([k, v]) => (row[k] ?? null) === v);
  const collection = (name: string) => ({
    async findOne(filter: Record<string, unknown>) {
      return [...rows(name).values()].find((r) => matches(r, filter)) ?? null;
    },
    async insertOne(doc: Row) {
      if (rows(name).has(doc._id)) throw new MongoServerError({ message: 'E11000 duplicate key error', code: 11000 });
      rows(name).set(doc._id, { ...doc });
      return { acknowledged: true, insertedId: doc._id };
    },
    async updateOne(filter: Record<string, unknown>, update: { $set: Record<string, unknown> }) {
      const row = [...rows(name).values()].find((r) => matches(r, filter));
      if (row) Object.assign(row, update.$set);
      return { acknowledged: true, matchedCount: row ? 1 : 0, modifiedCount: row ? 1 : 0 };
    },
    async replaceOne(filter: { _id: string }, doc: Record<string, unknown>, options: { upsert?: boolean } = {}) {
      const exists = rows(name).has(filter._id);
      if (exists || options.upsert) rows(name).set(filter._id, { ...doc, _id: filter._id });
      return { acknowledged: true, matchedCount: exists ? 1 : 0 };
    },
    async deleteOne(filter: Record<string, unknown>) {
      const row = [...rows(name).values()].find((r) => matches(r, filter));
      if (row) rows(name).delete(row._id);
      return { acknowledged: true, deletedCount: row ? 1 : 0 };
    },
    async deleteMany() {
      const all = [...rows(name).keys()];
      rows(name).delete(all[0]!);
      await gate.wait;
      for (const id of all) rows(name).delete(id);
      return { acknowledged: true, deletedCount: all.length };
    },
    async bulkWrite(writes: Array<{ replaceOne?: { filter: Record<string, unknown> & { _id: string }; replacement: Record<string, unknown>; upsert?: boolean } }>) {
      const writeErrors: Array<{ code: number; index: number; errmsg: string }> = [];
      writes.forEach((w, index) => {
        if (!w.replaceOne) return;
        const { filter, replacement, upsert } = w.replaceOne;
        const existing = rows(name).get(filter._id);
        // Guarded filters: {_id, $or: [{_pos: {$lt: n}}, {_pos: {$exists: false}}]}.
        const guard = (filter.$or as Array<{ _pos?: { $lt?: number } }> | undefined)?.[0]?._pos?.$lt;
        const matched = existing !== undefined && (guard === undefined || existing._pos === undefined || (existing._pos as number) < guard);
        if (!matched && gate.race?.has(filter._id)) {
          // Another writer's insert of the same new document lands between our match and our insert.
          gate.race.delete(filter._id);
          rows(name).set(filter._id, { _id: filter._id, id: filter._id, name: 'older', _pos: 100 });
          writeErrors.push({ code: 11000, index, errmsg: 'E11000 duplicate key error' });
          return;
        }
        if (matched || (upsert && existing === undefined)) rows(name).set(filter._id, { ...replacement, _id: filter._id });
        else if (upsert) writeErrors.push({ code: 11000, index, errmsg: 'E11000 duplicate key error' });
      });
      if (writeErrors.length > 0) {
        // As the driver's handleWriteError throws it (bulk/common.js).
        throw new MongoBulkWriteError({ message: writeErrors[0]!.errmsg, code: 11000, writeErrors } as never, {} as never);
      }
      return { ok: 1 };
    },
  });
  const db = { collection } as unknown as Db;
  const client = { close: async () => undefined } as unknown as MongoClient;
  return { db, client, rows };
}

describe('MongoDB reset (no server)', () => {
  it('fences the checkpoint before emptying anything: a worker cannot commit over a reset, and one cut short leaves the fence, not the old checkpoint', async () => {
    let release!: () => void;
    const gate: { wait?: Promise<void> } = {};
    const { db, client, rows } = fakeDb(gate);
    const store = mongoReadStore(client, db, false);
    for (let i = 1; i <= 3; i++) await store.upsert('products', { id: `p${i}`, name: `P${i}` });
    await store.commit('catalog', [], { expected: null, next: 100 });

    gate.wait = new Promise<void>((resolve) => (release = resolve));
    const reset = store.reset('catalog', ['products']);
    // Half-way through emptying: a running worker's next batch, and one starting afresh.
    await expect.poll(() => rows('products').size).toBe(2);
    const stale = store.commit('catalog', [{ op: 'upsert', collection: 'products', doc: { id: 'p9', name: 'late' } }], { expected: 100, next: 200 });
    await expect(stale).rejects.toBeInstanceOf(ProjectionResettingError);
    expect(rows('products').has('p9')).toBe(false);
    await expect(store.commit('catalog', [], { expected: null, next: 300 })).rejects.toBeInstanceOf(ProjectionResettingError);
    // What a commit that read the checkpoint just before the fence meets at its compare-and-set
    // ({_id, position: expected}, or an insert for a first batch): no match, a duplicate key.
    expect(rows('_checkpoints').get('catalog')).toEqual({ _id: 'catalog', position: null, resetting: true });
    // Stopped here (the rebuild's process killed): the old checkpoint is not there to resume from.
    await expect(store.readCheckpoint('catalog')).rejects.toBeInstanceOf(ProjectionResettingError);
    await expect(store.readCheckpoint('catalog')).rejects.toThrow(/commerce projections rebuild catalog/);

    release();
    await reset;
    expect(await store.readCheckpoint('catalog')).toBeNull();
    expect(rows('products').size).toBe(0);
    // The rebuild's first batch goes in.
    await store.commit('catalog', [{ op: 'upsert', collection: 'products', doc: { id: 'p1', name: 'again' } }], { expected: null, next: 50 });
    expect(await store.readCheckpoint('catalog')).toBe(50);
  });

  it('reads a fence as "resetting" and a plain checkpoint as its position', () => {
    expect(fromCheckpointDoc('catalog', { _id: 'catalog', position: 7 })).toBe(7);
    expect(fromCheckpointDoc('catalog', null)).toBeNull();
    expect(() => fromCheckpointDoc('catalog', { _id: 'catalog', ...resetFence() })).toThrow(ProjectionResettingError);
  });
});

describe('MongoDB guarded commits on a standalone server (no server)', () => {
  it('a concurrent insert of the same new document does not drop our newer write while our checkpoint moves', async () => {
    const gate = { race: new Set(['p1']) };
    const { db, client, rows } = fakeDb(gate);
    const store = mongoReadStore(client, db, false);
    await store.commit('catalog', [], { expected: null, next: 150 });
    await store.commit(
      'catalog',
      [
        { op: 'upsert', collection: 'products', doc: { id: 'p1', name: 'newer' } },
        { op: 'upsert', collection: 'products', doc: { id: 'p2', name: 'other' } },
      ],
      { expected: 150, next: 200 },
    );
    expect(await store.readCheckpoint('catalog')).toBe(200);
    // The other writer's older document (position 100) was inserted first; ours (200) is newer and stands.
    expect(rows('products').get('p1')).toMatchObject({ name: 'newer', _pos: 200 });
    expect(rows('products').get('p2')).toMatchObject({ name: 'other', _pos: 200 });
    // A write older than the document that stands changes nothing, and is no error.
    await store.commit('catalog', [{ op: 'upsert', collection: 'products', doc: { id: 'p1', name: 'stale' } }], { expected: 200, next: 180 });
    expect(rows('products').get('p1')).toMatchObject({ name: 'newer', _pos: 200 });
  });

  it('sends again exactly the writes refused with a duplicate key, and lets any other error stand', () => {
    const writes = ['w0', 'w1', 'w2'];
    const dup = (index: number) => ({ code: 11000, index, errmsg: 'E11000 duplicate key error' });
    const error = new MongoBulkWriteError({ message: 'E11000', code: 11000, writeErrors: [dup(0), dup(2)] } as never, {} as never);
    expect(duplicateKeyRetries(error, writes)).toEqual(['w0', 'w2']);
    const mixed = new MongoBulkWriteError({ message: 'x', code: 11000, writeErrors: [dup(0), { code: 121, index: 1, errmsg: 'validation' }] } as never, {} as never);
    expect(duplicateKeyRetries(mixed, writes)).toBeNull();
    expect(duplicateKeyRetries(new MongoServerError({ message: 'E11000', code: 11000 }), writes)).toBeNull();
  });
});

describe('leases on the server clock', () => {
  it("takes and renews a lease with the server's $$NOW, never the caller's clock", async () => {
    const calls: Array<{ filter: unknown; update: unknown; options: unknown }> = [];
    let holder: string | null = null;
    const leases = {
      async updateOne(filter: { $or: Array<{ owner?: string }> }, update: unknown, options: unknown) {
        calls.push({ filter, update, options });
        // As the server answers when the filter matches nobody: the upsert's insert meets the holder's _id.
        const owner = filter.$or[0]!.owner!;
        if (holder !== null && holder !== owner) throw new MongoServerError({ message: 'E11000 duplicate key error', code: 11000 });
        holder = owner;
        return { acknowledged: true, matchedCount: 1, modifiedCount: 1 };
      },
    };
    const db = { collection: () => leases } as unknown as Db;
    const store = mongoReadStore({ close: async () => undefined } as unknown as MongoClient, db, false);
    // A caller whose clock runs an hour ahead: nothing of it reaches the server.
    const skewed = Date.now() + 3_600_000;
    expect(await store.acquireLease('projection:catalog', 'worker-a', 15_000, skewed)).toBe(true);
    expect(await store.acquireLease('projection:catalog', 'worker-b', 15_000, skewed)).toBe(false);
    const sent = JSON.stringify(calls, (_k, v: unknown) => v);
    expect(sent).not.toContain(String(skewed));
    expect(sent).not.toContain(String(skewed + 15_000));
    expect(calls[0]).toEqual({
      filter: { _id: 'projection:catalog', $or: [{ owner: 'worker-a' }, { $expr: { $lte: [{ $toDate: '$expires_at' }, '$$NOW'] } }] },
      // An update pipeline: $$NOW is the server's time when it applies the update.
      update: [{ $set: { owner: 'worker-a', expires_at: { $add: ['$$NOW', 15_000] } } }],
      options: { upsert: true },
    });
  });
});
