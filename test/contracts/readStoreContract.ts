import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CheckpointConflictError, type Doc, type Query, type ReadStore } from '../../platform/readStore/readStore.ts';
import { openSqliteEventStore } from '../../platform/eventStore/sqlite/sqliteEventStore.ts';
import type { Projection } from '../../platform/es/projection.ts';
import { catchUpProjections, rebuildProjection } from '../../platform/es/projectionRunner.ts';
import { servedReadModels } from '../../platform/es/readModelGenerations.ts';
import { newEvent, until } from './eventStoreContract.ts';
import { tempSqliteFile, useStoreFixtures, type StoreFixture } from './storeFixtures.ts';

/** A fresh, empty store location for one test, and connections to it (one per "process"). */
export type ReadStoreFixture = StoreFixture<ReadStore>;
export type ReadStoreFactory = () => Promise<ReadStoreFixture>;

const products: Doc[] = [
  { id: 'p1', name: 'Alpha', price: 500, active: true, family: { id: 'f1', rank: 2 }, archived_at: null, tag: 'a' },
  { id: 'p2', name: 'Beta', price: 1500, active: false, family: { id: 'f2', rank: 1 }, archived_at: 1700, tag: 'b' },
  { id: 'p3', name: 'Gamma', price: 1500, active: true, family: { id: 'f1', rank: 3 }, archived_at: null, tag: 'c' },
  { id: 'p4', name: 'Delta', price: 2500, active: true, family: { id: 'f3', rank: 1 }, archived_at: null, tag: 'a' },
  { id: 'p5', name: 'Epsilon', price: 0, active: false, family: { id: 'f2', rank: 2 }, archived_at: 1800, tag: 'b' },
];

/** The same tests against any ReadStore adapter. */
export function readStoreContract(name: string, factory: ReadStoreFactory): void {
  describe(`ReadStore contract: ${name}`, () => {
    const { connections, open } = useStoreFixtures(factory);
    const seeded = async () => {
      const store = await open();
      for (const doc of products) await store.upsert('products', doc);
      await store.upsert('others', { id: 'p1', name: 'Not a product', price: 1 });
      return store;
    };
    const ids = (docs: Doc[]) => docs.map((d) => d.id);

    it('gets a document by id and null for an unknown one, per collection', async () => {
      const store = await seeded();
      expect(await store.get('products', 'p1')).toEqual(products[0]);
      expect(await store.get('others', 'p1')).toEqual({ id: 'p1', name: 'Not a product', price: 1 });
      expect(await store.get('products', 'nope')).toBeNull();
      expect(await store.get('empty', 'p1')).toBeNull();
    });

    it('finds with equality on strings, numbers, booleans, null and dotted fields', async () => {
      const store = await seeded();
      expect(ids(await store.find('products', { filter: { tag: 'a' } }))).toEqual(['p1', 'p4']);
      expect(ids(await store.find('products', { filter: { price: 1500 } }))).toEqual(['p2', 'p3']);
      expect(ids(await store.find('products', { filter: { active: true } }))).toEqual(['p1', 'p3', 'p4']);
      expect(ids(await store.find('products', { filter: { active: false } }))).toEqual(['p2', 'p5']);
      expect(ids(await store.find('products', { filter: { archived_at: null } }))).toEqual(['p1', 'p3', 'p4']);
      expect(ids(await store.find('products', { filter: { 'family.id': 'f1' } }))).toEqual(['p1', 'p3']);
      expect(ids(await store.find('products', { filter: { 'family.id': 'f2', active: false } }))).toEqual(['p2', 'p5']);
      expect(await store.find('products', { filter: { tag: 'zzz' } })).toEqual([]);
    });

    it('treats a missing field as null', async () => {
      const store = await open();
      await store.upsert('c', { id: 'a', x: 1 });
      await store.upsert('c', { id: 'b', x: 1, deleted_at: null });
      await store.upsert('c', { id: 'c', x: 1, deleted_at: 5 });
      expect(ids(await store.find('c', { filter: { deleted_at: null } }))).toEqual(['a', 'b']);
    });

    it('finds with $in and range filters', async () => {
      const store = await seeded();
      expect(ids(await store.find('products', { filter: { id: { $in: ['p5', 'p2', 'zz'] } } }))).toEqual(['p2', 'p5']);
      expect(ids(await store.find('products', { filter: { tag: { $in: [] } } }))).toEqual([]);
      expect(ids(await store.find('products', { filter: { price: { $gt: 500 } } }))).toEqual(['p2', 'p3', 'p4']);
      expect(ids(await store.find('products', { filter: { price: { $gte: 1500 } } }))).toEqual(['p2', 'p3', 'p4']);
      expect(ids(await store.find('products', { filter: { price: { $lt: 1500 } } }))).toEqual(['p1', 'p5']);
      expect(ids(await store.find('products', { filter: { price: { $lte: 500 } } }))).toEqual(['p1', 'p5']);
      // Bounds combine: a range on one field.
      expect(ids(await store.find('products', { filter: { price: { $gte: 500, $lt: 2500 } } }))).toEqual(['p1', 'p2', 'p3']);
      expect(await store.count('products', { price: { $gt: 0, $lte: 1500 } })).toBe(3);
      expect(ids(await store.find('products', { filter: { 'family.rank': { $gte: 2 }, active: true } }))).toEqual([
        'p1',
        'p3',
      ]);
    });

    /** A store whose collection `c` holds a status that is set, null, missing, and another set. */
    const withStatuses = async () => {
      const store = await open();
      await store.upsert('c', { id: 'a', status: 'open' });
      await store.upsert('c', { id: 'b', status: null });
      await store.upsert('c', { id: 'c' });
      await store.upsert('c', { id: 'd', status: 'paid' });
      return store;
    };

    it('$in with null also matches a null or missing field; limit 0 finds nothing', async () => {
      const store = await withStatuses();
      expect(ids(await store.find('c', { filter: { status: { $in: ['open', null] } } }))).toEqual(['a', 'b', 'c']);
      expect(ids(await store.find('c', { filter: { status: { $in: [null] } } }))).toEqual(['b', 'c']);
      expect(await store.count('c', { status: { $in: ['paid', null] } })).toBe(3);
      expect(await store.find('c', { limit: 0 })).toEqual([]);
    });

    it('$nin matches what is none of the values: a null or missing field too, unless null is listed', async () => {
      const store = await withStatuses();
      await store.upsert('c', { id: 'e', status: 'void' });
      expect(ids(await store.find('c', { filter: { status: { $nin: ['open', 'paid'] } } }))).toEqual(['b', 'c', 'e']);
      expect(ids(await store.find('c', { filter: { status: { $nin: ['open', null] } } }))).toEqual(['d', 'e']);
      expect(ids(await store.find('c', { filter: { status: { $nin: [] } } }))).toEqual(['a', 'b', 'c', 'd', 'e']);
      expect(ids(await store.find('c', { filter: { id: { $nin: ['a', 'e'] }, status: { $nin: [null] } } }))).toEqual(['d']);
      expect(await store.count('c', { status: { $nin: ['void'] } })).toBe(4);
    });

    it('sorts null and missing values first ascending and last descending', async () => {
      const store = await open();
      await store.upsert('c', { id: 'a', at: 5 });
      await store.upsert('c', { id: 'b', at: null });
      await store.upsert('c', { id: 'c', at: 1 });
      await store.upsert('c', { id: 'd' });
      expect(ids(await store.find('c', { sort: [['at', 1]] }))).toEqual(['b', 'd', 'c', 'a']);
      expect(ids(await store.find('c', { sort: [['at', -1]] }))).toEqual(['a', 'c', 'b', 'd']);
    });

    it('sorts ascending and descending with the id as tie-break, and pages with skip and limit', async () => {
      const store = await seeded();
      expect(ids(await store.find('products', { sort: [['price', 1]] }))).toEqual(['p5', 'p1', 'p2', 'p3', 'p4']);
      // Ties (p2, p3 at 1500) stay in id order whatever the direction.
      expect(ids(await store.find('products', { sort: [['price', -1]] }))).toEqual(['p4', 'p2', 'p3', 'p1', 'p5']);
      expect(ids(await store.find('products', { sort: [['name', 1]] }))).toEqual(['p1', 'p2', 'p4', 'p5', 'p3']);
      expect(
        ids(await store.find('products', { sort: [['family.rank', -1], ['price', 1]] })),
      ).toEqual(['p3', 'p5', 'p1', 'p2', 'p4']);
      const page1 = await store.find('products', { sort: [['price', 1]], limit: 2 });
      const page2 = await store.find('products', { sort: [['price', 1]], skip: 2, limit: 2 });
      const page3 = await store.find('products', { sort: [['price', 1]], skip: 4, limit: 2 });
      expect([ids(page1), ids(page2), ids(page3)]).toEqual([['p5', 'p1'], ['p2', 'p3'], ['p4']]);
      expect(ids(await store.find('products', { skip: 3 }))).toEqual(['p4', 'p5']);
      expect(ids(await store.find('products', { filter: { active: true }, sort: [['price', -1]], limit: 1 }))).toEqual([
        'p4',
      ]);
    });

    it('stream yields what find answers, in its order, with its filter, skip and limit', async () => {
      const store = await seeded();
      const streamed = async (collection: string, query?: Query) => {
        const out: Doc[] = [];
        for await (const batch of store.stream(collection, query)) out.push(...batch);
        return out;
      };
      const queries: Array<Query | undefined> = [
        undefined,
        { sort: [['price', -1]] },
        { filter: { active: true }, sort: [['family.rank', 1]] },
        { filter: { price: { $gte: 500, $lt: 2500 } }, sort: [['price', 1]], skip: 1, limit: 2 },
        { filter: { tag: 'zzz' } },
        { limit: 0 },
      ];
      for (const query of queries) expect(await streamed('products', query)).toEqual(await store.find('products', query));
      expect((await streamed('products'))[0]).toEqual(products[0]);
      expect(await streamed('never_written')).toEqual([]);
      const batches: string[][] = [];
      for await (const batch of store.stream('products', { sort: [['price', 1]] }, { batchSize: 2 })) batches.push(ids(batch));
      expect(batches).toEqual([['p5', 'p1'], ['p2', 'p3'], ['p4']]);
    });

    it('a stream left open lets the store read and write meanwhile, and one ended early lets go', async () => {
      const store = await open();
      for (let i = 0; i < 2500; i++) await store.upsert('many', { id: `d${String(i).padStart(5, '0')}`, n: i });
      const seen: string[] = [];
      for await (const batch of store.stream('many', { sort: [['n', 1]] }, { batchSize: 100 })) {
        if (seen.length === 0) {
          // Mid-stream, on the same store: a write, a find and a commit all answer.
          await store.upsert('other', { id: 'x', n: 1 });
          expect(await store.get('other', 'x')).toEqual({ id: 'x', n: 1 });
          await store.commit('mid', [{ op: 'upsert', collection: 'other', doc: { id: 'y' } }], { expected: null, next: 1 });
          expect(await store.count('other')).toBe(2);
        }
        seen.push(...ids(batch));
        if (seen.length === 1200) break;
      }
      expect(seen).toHaveLength(1200);
      expect(seen[1199]).toBe('d01199');
      // Ended early: the collection can be emptied and rewritten at once.
      await store.reset('many', ['many']);
      expect(await store.count('many')).toBe(0);
      let again = 0;
      for await (const batch of store.stream('many')) again += batch.length;
      expect(again).toBe(0);
    });

    it('counts with and without a filter', async () => {
      const store = await seeded();
      expect(await store.count('products')).toBe(5);
      expect(await store.count('products', { active: true })).toBe(3);
      expect(await store.count('products', { price: { $gte: 1500 }, 'family.id': 'f2' })).toBe(1);
      expect(await store.count('nothing')).toBe(0);
    });

    it('upsert replaces the whole document; delete removes it', async () => {
      const store = await seeded();
      await store.upsert('products', { id: 'p1', name: 'Alpha 2' });
      expect(await store.get('products', 'p1')).toEqual({ id: 'p1', name: 'Alpha 2' });
      expect(await store.count('products', { tag: 'a' })).toBe(1);
      await store.delete('products', 'p1');
      await store.delete('products', 'never-there');
      expect(await store.get('products', 'p1')).toBeNull();
      expect(await store.count('products')).toBe(4);
      expect(await store.get('others', 'p1')).not.toBeNull();
    });

    it('ensureIndex is idempotent and queries still answer', async () => {
      const store = await seeded();
      await store.ensureIndex('products', ['tag']);
      await store.ensureIndex('products', ['tag']);
      await store.ensureIndex('products', ['family.id', 'price']);
      await store.ensureIndex('products', ['family.id', 'price']);
      await store.ensureIndex('products', ['id']);
      await store.ensureIndex('products', ['id']);
      await store.ensureIndex('not_yet_written', ['tag']);
      expect(ids(await store.find('products', { filter: { 'family.id': 'f1' }, sort: [['price', 1]] }))).toEqual([
        'p1',
        'p3',
      ]);
    });

    it('dropIndexesExcept keeps the declared indexes, is idempotent, and queries still answer', async () => {
      const store = await seeded();
      await store.ensureIndex('products', ['tag']);
      await store.ensureIndex('products', ['family.id', 'price']);
      await store.dropIndexesExcept('products', [['family.id', 'price']]);
      await store.dropIndexesExcept('products', [['family.id', 'price']]);
      await store.dropIndexesExcept('products', [['id']]);
      await store.dropIndexesExcept('not_yet_written', [['tag']]);
      expect(ids(await store.find('products', { filter: { tag: 'a' }, sort: [['price', 1]] }))).toEqual(['p1', 'p4']);
      expect(ids(await store.find('products', { filter: { 'family.id': 'f1' }, sort: [['price', 1]] }))).toEqual(['p1', 'p3']);
    });

    it('commit applies the writes and moves the checkpoint together', async () => {
      const store = await seeded();
      expect(await store.readCheckpoint('catalog')).toBeNull();
      await store.commit(
        'catalog',
        [
          { op: 'upsert', collection: 'products', doc: { id: 'p9', name: 'New' } },
          { op: 'delete', collection: 'products', id: 'p2' },
        ],
        { expected: null, next: 10 },
      );
      expect(await store.readCheckpoint('catalog')).toBe(10);
      expect(await store.get('products', 'p9')).toEqual({ id: 'p9', name: 'New' });
      expect(await store.get('products', 'p2')).toBeNull();
      await store.commit('catalog', [], { expected: 10, next: 12 });
      expect(await store.readCheckpoint('catalog')).toBe(12);
      expect(await store.readCheckpoint('other')).toBeNull();
    });

    it('refuses a stale expected checkpoint with CheckpointConflictError and applies nothing', async () => {
      const store = await seeded();
      await store.commit('catalog', [], { expected: null, next: 5 });
      const stale = store.commit(
        'catalog',
        [
          { op: 'upsert', collection: 'products', doc: { id: 'p9', name: 'Nope' } },
          { op: 'delete', collection: 'products', id: 'p1' },
        ],
        { expected: 3, next: 8 },
      );
      await expect(stale).rejects.toBeInstanceOf(CheckpointConflictError);
      await expect(stale).rejects.toMatchObject({ projection: 'catalog', expected: 3, actual: 5 });
      await expect(store.commit('catalog', [], { expected: null, next: 9 })).rejects.toBeInstanceOf(
        CheckpointConflictError,
      );
      expect(await store.readCheckpoint('catalog')).toBe(5);
      expect(await store.get('products', 'p9')).toBeNull();
      expect(await store.get('products', 'p1')).not.toBeNull();
    });

    it('applying the same batch twice from the same checkpoint leaves one result (two processes racing)', async () => {
      const [a, b] = (await connections(2)) as [ReadStore, ReadStore];
      const batch = [{ op: 'upsert' as const, collection: 'products', doc: { id: 'p1', n: 1 } }];
      const outcomes = await Promise.allSettled([
        a.commit('race', batch, { expected: null, next: 3 }),
        b.commit('race', batch, { expected: null, next: 3 }),
      ]);
      expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
      const failed = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
      expect(failed.reason).toBeInstanceOf(CheckpointConflictError);
      expect(await b.readCheckpoint('race')).toBe(3);
      expect(await a.get('products', 'p1')).toEqual({ id: 'p1', n: 1 });
    });

    it('a field set to undefined is not stored: absent when read back, as JSON leaves it out (not null)', async () => {
      const store = await open();
      await store.upsert('c', { id: 'a', x: 1, note: undefined, nested: { y: undefined, z: 2 } });
      await store.commit('p', [{ op: 'upsert', collection: 'c', doc: { id: 'b', note: undefined } }], { expected: null, next: 1 });
      const a = await store.get('c', 'a');
      expect(a).toEqual({ id: 'a', x: 1, nested: { z: 2 } });
      expect(Object.keys(a!).sort()).toEqual(['id', 'nested', 'x']);
      expect(Object.keys(a!.nested as object)).toEqual(['z']);
      expect(Object.keys((await store.get('c', 'b'))!)).toEqual(['id']);
    });

    it('stores nested keys with dots and dollar signs (webhook payloads) as data, on insert, replace and commit', async () => {
      const store = await open();
      // JSON.parse: `__proto__` becomes an own key, as it does for a request body.
      const payload = JSON.parse(
        '{"a.b": 1, "$where": "sleep(1)", "$set": {"x.y": [{"$in": [1]}]}, "schema": {"$ref": "#/defs/a", "$id": "https://x/s"}, "__proto__": {"p": 1}}',
      ) as Record<string, unknown>;
      await store.upsert('samples', { id: 's1', payload });
      expect(await store.get('samples', 's1')).toStrictEqual({ id: 's1', payload });
      await store.upsert('samples', { id: 's1', payload, n: 2 });
      expect(await store.get('samples', 's1')).toStrictEqual({ id: 's1', payload, n: 2 });
      await store.commit('p', [{ op: 'upsert', collection: 'samples', doc: { id: 's2', payload } }], { expected: null, next: 1 });
      expect(await store.find('samples', { filter: { id: 's2' } })).toStrictEqual([{ id: 's2', payload }]);
    });

    it('keeps integers beyond 32 bits exact, and filters and sorts them as numbers', async () => {
      const store = await open();
      const big = 2 ** 40 + 3;
      await store.upsert('c', { id: 'a', amount: big, at: Number.MAX_SAFE_INTEGER });
      await store.upsert('c', { id: 'b', amount: 2 ** 31, at: 1 });
      await store.upsert('c', { id: 'c', amount: 2 ** 31 - 1, at: 1.5 });
      expect(await store.get('c', 'a')).toEqual({ id: 'a', amount: big, at: Number.MAX_SAFE_INTEGER });
      expect(ids(await store.find('c', { sort: [['amount', -1]] }))).toEqual(['a', 'b', 'c']);
      expect(ids(await store.find('c', { filter: { amount: { $gte: 2 ** 31 } } }))).toEqual(['a', 'b']);
      expect(ids(await store.find('c', { filter: { amount: big } }))).toEqual(['a']);
      expect(ids(await store.find('c', { filter: { at: { $gt: 1 } }, sort: [['at', 1]] }))).toEqual(['c', 'a']);
      // Checkpoints are global positions: EventStoreDB's are byte offsets, past 2^32 on a large log.
      await store.commit('big', [], { expected: null, next: 2 ** 33 + 1 });
      await store.commit('big', [], { expected: 2 ** 33 + 1, next: 2 ** 52 + 7 });
      expect(await store.readCheckpoint('big')).toBe(2 ** 52 + 7);
    });

    it('a document deleted by a commit is gone from get, find and count, and a later commit can create it again', async () => {
      const store = await seeded();
      await store.commit('catalog', [{ op: 'delete', collection: 'products', id: 'p2' }, { op: 'delete', collection: 'products', id: 'never' }], {
        expected: null,
        next: 4,
      });
      expect(await store.get('products', 'p2')).toBeNull();
      expect(await store.get('products', 'never')).toBeNull();
      expect(ids(await store.find('products'))).toEqual(['p1', 'p3', 'p4', 'p5']);
      expect(ids(await store.find('products', { filter: { id: { $in: ['p2', 'never'] } } }))).toEqual([]);
      expect(await store.count('products')).toBe(4);
      expect(await store.count('products', { price: 1500 })).toBe(1);
      await store.commit('catalog', [{ op: 'upsert', collection: 'products', doc: { id: 'p2', name: 'Beta again' } }], {
        expected: 4,
        next: 9,
      });
      expect(await store.get('products', 'p2')).toEqual({ id: 'p2', name: 'Beta again' });
      expect(await store.count('products')).toBe(5);
      await store.delete('products', 'p2');
      expect(await store.count('products')).toBe(4);
    });

    it('reset drops the collections and the checkpoint, and nothing else', async () => {
      const store = await seeded();
      await store.commit('catalog', [], { expected: null, next: 7 });
      await store.commit('other', [], { expected: null, next: 4 });
      await store.reset('catalog', ['products']);
      expect(await store.count('products')).toBe(0);
      expect(await store.readCheckpoint('catalog')).toBeNull();
      expect(await store.count('others')).toBe(1);
      expect(await store.readCheckpoint('other')).toBe(4);
      await store.commit('catalog', [{ op: 'upsert', collection: 'products', doc: { id: 'x' } }], {
        expected: null,
        next: 1,
      });
      expect(await store.count('products')).toBe(1);
    });

    it('rebuild while reading: readers see the served read models whole until the rebuilt ones are switched to, then those whole', async () => {
      // The events come from a SQLite log beside the read store under test.
      const log = tempSqliteFile();
      const store = openSqliteEventStore({ file: log.file });
      try {
        const [writer, reader] = (await connections(2)) as [ReadStore, ReadStore];
        for (let i = 0; i < 30; i++) await store.append(`said-${i}`, [{ ...newEvent('Said', { word: `w${i}` }) }], 'no_stream');
        let gate: Promise<void> | null = null;
        let applied = 0;
        let halfway!: () => void;
        const reachedHalfway = new Promise<void>((resolve) => (halfway = resolve));
        const words = (version: number): Projection => ({
          name: 'words',
          ...(version === 1 ? {} : { version }),
          collections: ['words'],
          eventTypes: ['Said'],
          async apply(event, tx) {
            applied += 1;
            if (gate && applied === 15) {
              halfway();
              await gate;
            }
            const word = (event.data as { word: string }).word;
            tx.upsert('words', { id: event.stream, word: version === 1 ? word : word.toUpperCase() });
          },
        });
        await catchUpProjections(store, writer, [words(1)]);
        // Another process's reader, which looks the generation up again on every call.
        const served = servedReadModels(reader, [words(1)], 0);
        const wordsServed = async () => (await served.find<Doc & { word: string }>('words', { limit: 100 })).map((d) => d.word);
        expect(await wordsServed()).toHaveLength(30);

        let release!: () => void;
        gate = new Promise<void>((resolve) => (release = resolve));
        applied = 0;
        const rebuilding = rebuildProjection(store, writer, words(2), undefined, 10);
        await reachedHalfway;
        // Half of the new read models are written: the served ones are still read, whole.
        const during = await wordsServed();
        expect(during).toHaveLength(30);
        expect(during.every((w) => w.startsWith('w'))).toBe(true);
        expect(await served.count('words')).toBe(30);
        release();
        await rebuilding;
        const after = await wordsServed();
        expect(after).toHaveLength(30);
        expect(after.every((w) => w.startsWith('W'))).toBe(true);
        expect(await served.readCheckpoint('words')).toBe(await store.headPosition());
      } finally {
        await store.close();
        await log.dispose();
      }
    });

    it('leases: one holder at a time, renewable by its holder, taken over after expiry, released', async () => {
      // Real time: a store with a clock of its own (MongoDB's $$NOW) goes by it, not by `now`.
      const [a, b] = (await connections(2)) as [ReadStore, ReadStore];
      const lease = `projection:${randomUUID()}`;
      expect(await a.acquireLease(lease, 'worker-a', 10_000, Date.now())).toBe(true);
      expect(await b.acquireLease(lease, 'worker-b', 10_000, Date.now())).toBe(false);
      expect(await a.acquireLease(lease, 'worker-a', 10_000, Date.now())).toBe(true);
      expect(await b.acquireLease(lease, 'worker-b', 10_000, Date.now())).toBe(false);
      // Renewed for a short while only: once that has run out, another worker takes it.
      expect(await a.acquireLease(lease, 'worker-a', 200, Date.now())).toBe(true);
      await until(() => b.acquireLease(lease, 'worker-b', 10_000, Date.now()));
      expect(await a.acquireLease(lease, 'worker-a', 10_000, Date.now())).toBe(false);
      await a.releaseLease(lease, 'worker-a');
      expect(await a.acquireLease(lease, 'worker-a', 10_000, Date.now())).toBe(false);
      await b.releaseLease(lease, 'worker-b');
      expect(await a.acquireLease(lease, 'worker-a', 10_000, Date.now())).toBe(true);
      expect(await a.acquireLease(`${lease}-other`, 'worker-b', 10_000, Date.now())).toBe(true);
    });

    it('leases: of many racing for a free lease, exactly one wins', async () => {
      const stores = await connections(3);
      const lease = `race:${randomUUID()}`;
      const results = await Promise.all(
        Array.from({ length: 9 }, (_, i) => stores[i % 3]!.acquireLease(lease, `w${i}`, 10_000, Date.now())),
      );
      expect(results.filter(Boolean)).toHaveLength(1);
    });
  });
}
