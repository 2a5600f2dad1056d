import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  WrongExpectedRevisionError,
  type EventMetadata,
  type EventStore,
  type NewEvent,
  type RecordedEvent,
} from '../../platform/eventStore/eventStore.ts';
import { allocateId } from '../../platform/es/idAllocator.ts';
import { assertCheckpointInLog } from '../../platform/es/assertCheckpointInLog.ts';
import { useStoreFixtures, type StoreFixture } from './storeFixtures.ts';

/**
 * A fresh store location for one test, and connections to it (several connections stand for
 * several processes). Adapters on a shared server (EventStoreDB) see other tests' events, so
 * every test writes under its own stream prefix and reads through it.
 */
export type EventStoreFixture = StoreFixture<EventStore>;
export type EventStoreFactory = () => Promise<EventStoreFixture>;

const metadata: EventMetadata = {
  correlation_id: 'req_contract',
  actor: { type: 'system', name: 'contract' },
  organization_id: 'org_1',
  occurred_at: 1_700_000_000,
};

export function newEvent(type = 'Happened', data: unknown = { n: 1 }): NewEvent {
  return { id: randomUUID(), type, data, metadata };
}

/** The same tests against any EventStore adapter. */
export function eventStoreContract(name: string, factory: EventStoreFactory): void {
  describe(`EventStore contract: ${name}`, () => {
    const { fixture: freshFixture, connections, open } = useStoreFixtures(factory);
    // A prefix of letters only: stream prefixes are matched literally by every backend.
    const prefix = () => `t${randomUUID().replace(/[^a-f]/g, '').slice(0, 10)}x`;

    it('readEvent finds one event by stream and revision, and null where there is none', async () => {
      const store = await open();
      const p = prefix();
      await store.append(`${p}-one`, [newEvent('First'), newEvent('Second')], 'no_stream');
      const second = await store.readEvent(`${p}-one`, 1);
      expect(second?.type).toBe('Second');
      expect(second?.stream).toBe(`${p}-one`);
      expect(second?.revision).toBe(1);
      expect(second).toEqual((await store.readStream(`${p}-one`))[1]);
      expect(await store.readEvent(`${p}-one`, 2)).toBeNull();
      expect(await store.readEvent(`${p}-none`, 0)).toBeNull();
    });

    it('appendMany appends to several streams in order, each with its expected revision, and a retry of the same events writes nothing twice', async () => {
      const store = await open();
      const p = prefix();
      await store.append(`${p}-many-b`, [newEvent('B0')], 'no_stream');
      const appends = [
        { stream: `${p}-many-a`, events: [newEvent('A0'), newEvent('A1')], expected: 'no_stream' as const },
        { stream: `${p}-many-b`, events: [newEvent('B1')], expected: 0 },
      ];
      const results = await store.appendMany(appends);
      expect(results.map((r) => r.revision)).toEqual([1, 1]);
      expect(results[1]!.position).toBeGreaterThan(results[0]!.position);
      expect(await store.appendMany(appends)).toEqual(results);
      expect((await store.readStream(`${p}-many-a`)).map((e) => e.type)).toEqual(['A0', 'A1']);
      expect((await store.readStream(`${p}-many-b`)).map((e) => e.type)).toEqual(['B0', 'B1']);
    });

    it('appendMany refused on one stream: an atomic store writes none of them, another the streams before it', async () => {
      const store = await open();
      const p = prefix();
      await store.append(`${p}-refused-b`, [newEvent('B0')], 'no_stream');
      const refused = store.appendMany([
        { stream: `${p}-refused-a`, events: [newEvent('A0')], expected: 'no_stream' },
        { stream: `${p}-refused-b`, events: [newEvent('B1')], expected: 'no_stream' },
        { stream: `${p}-refused-c`, events: [newEvent('C0')], expected: 'no_stream' },
      ]);
      await expect(refused).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      expect((await store.readStream(`${p}-refused-a`)).length).toBe(store.atomicAppendMany ? 0 : 1);
      expect((await store.readStream(`${p}-refused-b`)).map((e) => e.type)).toEqual(['B0']);
      expect(await store.readStream(`${p}-refused-c`)).toEqual([]);
    });

    it('appends with expected revision no_stream, exact and any, and reads the stream in order', async () => {
      const store = await open();
      const stream = `${prefix()}-order-1`;
      expect(await store.readStream(stream)).toEqual([]);
      const first = await store.append(stream, [newEvent('A'), newEvent('B')], 'no_stream');
      expect(first.revision).toBe(1);
      const second = await store.append(stream, [newEvent('C')], 1);
      expect(second.revision).toBe(2);
      expect(second.position).toBeGreaterThan(first.position);
      const third = await store.append(stream, [newEvent('D')], 'any');
      expect(third.revision).toBe(3);
      const events = await store.readStream(stream);
      expect(events.map((e) => [e.type, e.revision, e.stream])).toEqual([
        ['A', 0, stream],
        ['B', 1, stream],
        ['C', 2, stream],
        ['D', 3, stream],
      ]);
      expect(events[3]!.position).toBe(third.position);
      expect(events[2]!.position).toBe(second.position);
    });

    it('appends with any to a stream that does not exist', async () => {
      const store = await open();
      const stream = `${prefix()}-s`;
      expect((await store.append(stream, [newEvent()], 'any')).revision).toBe(0);
    });

    it('refuses a wrong expected revision with WrongExpectedRevisionError carrying the actual revision', async () => {
      const store = await open();
      const stream = `${prefix()}-s`;
      await expect(store.append(stream, [newEvent()], 0)).rejects.toMatchObject({
        name: 'WrongExpectedRevisionError',
        stream,
        expected: 0,
        actual: null,
      });
      await store.append(stream, [newEvent(), newEvent()], 'no_stream');
      const stale = store.append(stream, [newEvent()], 0);
      await expect(stale).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await expect(stale).rejects.toMatchObject({ expected: 0, actual: 1 });
      await expect(store.append(stream, [newEvent()], 'no_stream')).rejects.toMatchObject({
        expected: 'no_stream',
        actual: 1,
      });
      expect(await store.readStream(stream)).toHaveLength(2);
    });

    it('treats a re-append of the same event ids as already done', async () => {
      const store = await open();
      const stream = `${prefix()}-s`;
      await store.append(stream, [newEvent()], 'no_stream');
      const batch = [newEvent('X'), newEvent('Y')];
      const first = await store.append(stream, batch, 0);
      const again = await store.append(stream, batch, 0);
      expect(again.revision).toBe(first.revision);
      // copyEvents counts on it: the replay answers with the position the events already had.
      expect(again.position).toBe(first.position);
      const events = await store.readStream(stream);
      expect(events.map((e) => e.type)).toEqual(['Happened', 'X', 'Y']);
      expect(events.map((e) => e.id)).toEqual([expect.any(String), batch[0]!.id, batch[1]!.id]);
      // One event, replayed after others followed it: the same revision and position, nothing appended.
      const single = newEvent('Z');
      const once = await store.append(stream, [single], 2);
      await store.append(`${prefix()}-other`, [newEvent()], 'no_stream');
      await store.append(stream, [newEvent('After')], 3);
      const replayed = await store.append(stream, [single], 2);
      expect(replayed).toEqual(once);
      expect((await store.readStream(stream)).map((e) => e.type)).toEqual(['Happened', 'X', 'Y', 'Z', 'After']);
    });

    it('round-trips data and metadata', async () => {
      const store = await open();
      const stream = `${prefix()}-s`;
      const data = { text: 'héllo "quoted" ✓', n: 42, f: 1.5, nested: { list: [1, null, true] }, none: null };
      const event = newEvent('Rich', data);
      await store.append(stream, [event], 'no_stream');
      const [read] = await store.readStream(stream);
      expect(read).toMatchObject({ id: event.id, type: 'Rich', data, metadata, stream, revision: 0 });
      const [fromAll] = await store.readAll({ after: null, limit: 10, streamPrefixes: [stream] });
      expect(fromAll).toEqual(read);
    });

    it('reads all from an exclusive position with strictly increasing positions, filtered by stream prefix', async () => {
      const store = await open();
      const p = prefix();
      const other = prefix();
      await store.append(`${p}-a`, [newEvent('A1'), newEvent('A2')], 'no_stream');
      await store.append(`${other}-z`, [newEvent('Z1')], 'no_stream');
      await store.append(`${p}-b`, [newEvent('B1')], 'no_stream');
      await store.append(`${p}-a`, [newEvent('A3')], 1);

      const all = await store.readAll({ after: null, limit: 100, streamPrefixes: [p] });
      expect(all.map((e) => e.type)).toEqual(['A1', 'A2', 'B1', 'A3']);
      for (let i = 1; i < all.length; i++) expect(all[i]!.position).toBeGreaterThan(all[i - 1]!.position);

      const after = await store.readAll({ after: all[1]!.position, limit: 100, streamPrefixes: [p] });
      expect(after.map((e) => e.type)).toEqual(['B1', 'A3']);
      const page = await store.readAll({ after: all[0]!.position, limit: 2, streamPrefixes: [p] });
      expect(page.map((e) => e.type)).toEqual(['A2', 'B1']);
      const both = await store.readAll({ after: null, limit: 100, streamPrefixes: [`${p}-b`, other] });
      expect(both.map((e) => e.type)).toEqual(['Z1', 'B1']);
    });

    it('reads all without a filter, and a page never splits or repeats', async () => {
      const store = await open();
      const p = prefix();
      const before = await store.headPosition();
      for (let i = 0; i < 5; i++) await store.append(`${p}-${i}`, [newEvent(`E${i}`), newEvent(`F${i}`)], 'no_stream');
      const seen: RecordedEvent[] = [];
      let after = before;
      for (;;) {
        const page = await store.readAll({ after, limit: 3 });
        if (page.length === 0) break;
        expect(page.length).toBeLessThanOrEqual(3);
        seen.push(...page);
        after = page[page.length - 1]!.position;
      }
      const ours = seen.filter((e) => e.stream.startsWith(p));
      expect(ours.map((e) => e.type)).toEqual(['E0', 'F0', 'E1', 'F1', 'E2', 'F2', 'E3', 'F3', 'E4', 'F4']);
      expect(new Set(seen.map((e) => e.position)).size).toBe(seen.length);
    });

    it('reads all from an event\'s own position (inclusive `from`), as a lookup of an old workflow id does', async () => {
      const store = await open();
      const p = prefix();
      await store.append(`${p}-a`, [newEvent('A1'), newEvent('A2')], 'no_stream');
      await store.append(`${p}-b`, [newEvent('B1')], 'no_stream');
      const [a1, a2, b1] = await store.readAll({ after: null, limit: 10, streamPrefixes: [p] });
      expect((await store.readAll({ after: null, from: a2!.position, limit: 1, streamPrefixes: [p] })).map((e) => e.type)).toEqual(['A2']);
      expect((await store.readAll({ after: null, from: a1!.position, limit: 5, streamPrefixes: [p] })).map((e) => e.type)).toEqual(['A1', 'A2', 'B1']);
      expect(await store.readAll({ after: null, from: b1!.position + 1, limit: 5, streamPrefixes: [p] })).toEqual([]);
    });

    it('a job resuming from the checkpoints its filtered subscription handed it misses no event and repeats none', async () => {
      const store = await open();
      const p = prefix();
      const other = prefix();
      // A long run of other streams' events, none of the job's: the subscription looks past them
      // and hands the job checkpoints (EventStoreDB: every 32 search windows of 32 records).
      for (let i = 0; i < 3; i++) await store.append(`${other}-${i}`, Array.from({ length: 600 }, (_, n) => newEvent('Other', { n })), 'no_stream');
      let stored: number | null = null;
      const received: string[] = [];
      const checkpoints: number[] = [];
      const follow = (after: number | null) =>
        store.subscribe(
          async (events) => {
            received.push(...events.map((e) => e.type));
            stored = events[events.length - 1]!.position;
          },
          {
            after,
            streamPrefixes: [p],
            batchSize: 100,
            onCheckpoint: async (position) => {
              checkpoints.push(position);
              stored = position;
            },
          },
        );
      const first = follow(null);
      await until(() => checkpoints.length >= 1);
      await first.stop();
      // Inside the log, though past the job's last event (none) and perhaps on a server record.
      await expect(assertCheckpointInLog(store, 'job', stored, 'rebuild')).resolves.toBeUndefined();
      // The job's first event lands at the end of the log, where a faulty checkpoint points.
      await store.append(`${p}-s`, [newEvent('Mine1')], 'no_stream');
      const second = follow(stored);
      await until(() => received.length >= 1);
      await second.stop();
      await expect(assertCheckpointInLog(store, 'job', stored, 'rebuild')).resolves.toBeUndefined();
      await store.append(`${p}-s`, [newEvent('Mine2')], 0);
      const third = follow(stored);
      await until(() => received.length >= 2);
      await third.stop();
      expect(received).toEqual(['Mine1', 'Mine2']);
    });

    it('reads nothing after the head, and a subscription from the head delivers only what comes next', async () => {
      const store = await open();
      const p = prefix();
      await store.append(`${p}-s`, [newEvent('Before')], 'no_stream');
      const head = (await store.headPosition())!;
      expect(await store.readAll({ after: head, limit: 10, streamPrefixes: [p] })).toEqual([]);
      const received: string[] = [];
      const sub = store.subscribe(
        async (events) => {
          received.push(...events.map((e) => e.type));
        },
        { after: head, streamPrefixes: [p] },
      );
      await store.append(`${p}-s`, [newEvent('Next')], 0);
      await until(() => received.length >= 1);
      await sub.stop();
      expect(received).toEqual(['Next']);
    });

    it('reports the head position', async () => {
      const store = await open();
      const p = prefix();
      const result = await store.append(`${p}-s`, [newEvent(), newEvent()], 'no_stream');
      expect(await store.headPosition()).toBe(result.position);
      const next = await store.append(`${p}-t`, [newEvent()], 'no_stream');
      expect(await store.headPosition()).toBe(next.position);
    });

    it('subscribes: catches up from the start, then delivers events appended after subscribing', async () => {
      const store = await open();
      const p = prefix();
      await store.append(`${p}-s`, [newEvent('Old1'), newEvent('Old2')], 'no_stream');
      const received: RecordedEvent[] = [];
      const sub = store.subscribe(
        async (events) => {
          received.push(...events);
        },
        { after: null, streamPrefixes: [p], batchSize: 1 },
      );
      await until(() => received.length >= 2);
      await store.append(`${p}-s`, [newEvent('New1')], 1);
      await store.append(`${p}-t`, [newEvent('New2')], 'no_stream');
      await until(() => received.length >= 4);
      await sub.stop();
      await expect(sub.done).resolves.toBeUndefined();
      expect(received.map((e) => e.type)).toEqual(['Old1', 'Old2', 'New1', 'New2']);
      for (let i = 1; i < received.length; i++) expect(received[i]!.position).toBeGreaterThan(received[i - 1]!.position);
    });

    it('subscribes from a checkpoint (exclusive) and stops delivering after stop()', async () => {
      const store = await open();
      const p = prefix();
      await store.append(`${p}-s`, [newEvent('A'), newEvent('B'), newEvent('C')], 'no_stream');
      const [, b] = await store.readStream(`${p}-s`);
      const received: string[] = [];
      const sub = store.subscribe(
        async (events) => {
          received.push(...events.map((e) => e.type));
        },
        { after: b!.position, streamPrefixes: [p] },
      );
      await until(() => received.length >= 1);
      await sub.stop();
      await store.append(`${p}-s`, [newEvent('D')], 2);
      await new Promise((r) => setTimeout(r, 300));
      expect(received).toEqual(['C']);
    });

    it('close() ends running subscriptions cleanly', async () => {
      const store = await (await freshFixture()).connect();
      const p = prefix();
      await store.append(`${p}-s`, [newEvent('A')], 'no_stream');
      let seen = 0;
      const sub = store.subscribe(
        async (events) => {
          seen += events.length;
        },
        { after: null, streamPrefixes: [p] },
      );
      await until(() => seen === 1);
      await store.close();
      await expect(sub.done).resolves.toBeUndefined();
    });

    it('rejects done when the handler fails, and delivers nothing more', async () => {
      const store = await open();
      const p = prefix();
      await store.append(`${p}-s`, [newEvent('A')], 'no_stream');
      let calls = 0;
      const sub = store.subscribe(
        async () => {
          calls += 1;
          throw new Error('handler broke');
        },
        { after: null, streamPrefixes: [p] },
      );
      await expect(sub.done).rejects.toThrow('handler broke');
      await store.append(`${p}-s`, [newEvent('B')], 0);
      await new Promise((r) => setTimeout(r, 300));
      expect(calls).toBe(1);
      await sub.stop();
    });

    it('commits many concurrent appends to different streams, all durable and in order', async () => {
      const store = await open();
      const p = prefix();
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) => store.append(`${p}-${i}`, [newEvent(`E${i}`), newEvent(`F${i}`)], 'no_stream')),
      );
      const all = await store.readAll({ after: null, limit: 1000, streamPrefixes: [p] });
      expect(all).toHaveLength(100);
      for (let i = 1; i < all.length; i++) expect(all[i]!.position).toBeGreaterThan(all[i - 1]!.position);
      // Each append's two events are adjacent in the log, and its result names the second.
      for (const [i, result] of results.entries()) {
        const at = all.findIndex((e) => e.type === `E${i}`);
        expect(all[at + 1]!.type).toBe(`F${i}`);
        expect(all[at + 1]!.position).toBe(result.position);
      }
    });

    it('lets exactly one of many concurrent appends with the same expected revision win', async () => {
      const store = await open();
      const stream = `${prefix()}-s`;
      await store.append(stream, [newEvent()], 'no_stream');
      const outcomes = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => store.append(stream, [newEvent(`Try${i}`)], 0)),
      );
      const won = outcomes.filter((o) => o.status === 'fulfilled');
      const lost = outcomes.filter((o) => o.status === 'rejected');
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(9);
      for (const o of lost) expect((o as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
      expect(await store.readStream(stream)).toHaveLength(2);
    });

    it("reads a stream another connection appended to, once the writer's append has resolved", async () => {
      const [a, b] = (await connections(2)) as [EventStore, EventStore];
      const stream = `${prefix()}-hot`;
      await a.append(stream, [newEvent('First')], 'no_stream');
      expect((await a.readStream(stream)).map((e) => e.type)).toEqual(['First']);
      expect((await a.readStream(stream)).map((e) => e.type)).toEqual(['First']);
      await b.append(stream, [newEvent('Second')], 0);
      await new Promise((resolve) => setImmediate(resolve));
      expect((await a.readStream(stream)).map((e) => e.type)).toEqual(['First', 'Second']);
      await a.append(stream, [newEvent('Third')], 1);
      expect((await a.readStream(stream)).map((e) => e.type)).toEqual(['First', 'Second', 'Third']);
    });

    it('allocates integer ids without duplicates under concurrency, across two store instances', async () => {
      const [a, b] = (await connections(2)) as [EventStore, EventStore];
      const counter = prefix();
      const ids = await Promise.all(
        Array.from({ length: 30 }, (_, i) => allocateId(i % 2 === 0 ? a : b, counter, metadata)),
      );
      expect(new Set(ids).size).toBe(30);
      expect([...ids].sort((x, y) => x - y)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    });

    it('allocates the next id of a long counter in a new process without reading the counter', async () => {
      const [first, later] = (await connections(2)) as [EventStore, EventStore];
      const counter = prefix();
      const ids = await Promise.all(Array.from({ length: 2_500 }, () => allocateId(first, counter, metadata)));
      expect(Math.max(...ids)).toBe(2_500);
      const read: string[] = [];
      const watched: EventStore = Object.assign(Object.create(later) as EventStore, {
        readStream: (stream: string) => (read.push(stream), later.readStream(stream)),
      });
      expect(await allocateId(watched, counter, metadata)).toBe(2_501);
      expect(await allocateId(first, counter, metadata)).toBe(2_502);
      expect(await allocateId(watched, counter, metadata)).toBe(2_503);
      expect(read).toEqual([]);
    });
  });
}

export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const started = Date.now();
  while (!(await condition())) {
    if (Date.now() - started > timeoutMs) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
