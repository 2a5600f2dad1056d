import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { copyEvents } from '../../platform/eventStore/copyEvents.ts';
import type { EventStore, RecordedEvent } from '../../platform/eventStore/eventStore.ts';
import { openSqliteEventStore } from '../../platform/eventStore/sqlite/sqliteEventStore.ts';
import { newEvent } from '../contracts/eventStoreContract.ts';

const run = promisify(execFile);
const dirs: string[] = [];
const stores: EventStore[] = [];
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-copy-'));
  dirs.push(dir);
  return dir;
}
function storeIn(dir: string): EventStore {
  const store = openSqliteEventStore({ file: join(dir, 'commerce.db') });
  stores.push(store);
  return store;
}
const strip = (events: RecordedEvent[]) => events.map(({ id, stream, revision, type, data, metadata }) => ({ id, stream, revision, type, data, metadata }));

async function seed(store: EventStore): Promise<void> {
  await store.append('organization-1', [newEvent('OrganizationCreated', { name: 'A' })], 'no_stream');
  await store.append('user-1', [newEvent('UserCreated'), newEvent('UserJoined')], 'no_stream');
  for (let i = 0; i < 30; i++) await store.append(`product-${i % 7}`, [newEvent('ProductChanged', { i })], 'any');
  await store.append('organization-1', [newEvent('OrganizationRenamed', { name: 'B' })], 0);
}

afterEach(async () => {
  await Promise.all(stores.splice(0).map((s) => s.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('copying an event log', () => {
  it('copies every event in order with the same ids, revisions and metadata, through the port', async () => {
    const source = storeIn(dataDir());
    const target = storeIn(dataDir());
    await seed(source);
    const progress: Array<[number, number]> = [];
    const result = await copyEvents(source, target, { batchSize: 7, onProgress: (d, t) => progress.push([d, t]) });
    expect(result).toEqual({ events: 34, copied: 34, alreadyThere: 0 });
    const from = await source.readAll({ after: null, limit: 1000 });
    const to = await target.readAll({ after: null, limit: 1000 });
    expect(strip(to)).toEqual(strip(from));
    expect(progress[progress.length - 1]).toEqual([from[from.length - 1]!.position, from[from.length - 1]!.position]);
    for (let i = 1; i < progress.length; i++) expect(progress[i]![0]).toBeGreaterThanOrEqual(progress[i - 1]![0]);
  });

  it('is idempotent: a second run appends nothing, and a run after new events copies only those', async () => {
    const source = storeIn(dataDir());
    const target = storeIn(dataDir());
    await seed(source);
    await copyEvents(source, target, { batchSize: 5 });
    const before = await target.readAll({ after: null, limit: 1000 });
    // A different batch size cuts the runs differently: still nothing new.
    expect(await copyEvents(source, target, { batchSize: 3 })).toEqual({ events: 34, copied: 0, alreadyThere: 34 });
    expect(await target.readAll({ after: null, limit: 1000 })).toEqual(before);

    await source.append('product-1', [newEvent('ProductArchived')], 'any');
    expect(await copyEvents(source, target)).toEqual({ events: 35, copied: 1, alreadyThere: 34 });
    expect(strip(await target.readAll({ after: null, limit: 1000 }))).toEqual(
      strip(await source.readAll({ after: null, limit: 1000 })),
    );
  });

  it("keeps each append under EventStoreDB's default size limit (1 MiB) when one stream's events follow each other", async () => {
    const source = storeIn(dataDir());
    // Eight webhooks of ~150 KB on one stream, appended one by one: consecutive in the log.
    const body = 'x'.repeat(150_000);
    for (let i = 0; i < 8; i++) await source.append('trigger-1', [newEvent('WebhookReceived', { i, body })], i === 0 ? 'no_stream' : i - 1);
    const target = storeIn(dataDir());
    const sizes: number[] = [];
    // What EventStoreDB does past MaxAppendSize (1,048,576 bytes of data and metadata by default).
    const limited: EventStore = Object.assign(Object.create(target) as EventStore, {
      append: (stream: string, events: Parameters<EventStore['append']>[1], expected: Parameters<EventStore['append']>[2]) => {
        const size = events.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e.data)) + Buffer.byteLength(JSON.stringify(e.metadata)), 0);
        sizes.push(size);
        if (size > 1_048_576) return Promise.reject(new Error(`maximum append size exceeded: ${size}`));
        return target.append(stream, events, expected);
      },
    });
    const result = await copyEvents(source, limited);
    expect(result).toMatchObject({ events: 8, copied: 8 });
    expect(Math.max(...sizes)).toBeLessThanOrEqual(1_048_576);
    expect(strip(await target.readStream('trigger-1'))).toEqual(strip(await source.readStream('trigger-1')));
  });

  it('stops rather than interleave two histories when the target stream holds other events', async () => {
    const source = storeIn(dataDir());
    const target = storeIn(dataDir());
    await seed(source);
    await target.append('user-1', [newEvent('SomethingElse')], 'no_stream');
    await expect(copyEvents(source, target)).rejects.toMatchObject({ name: 'WrongExpectedRevisionError', stream: 'user-1' });
  });

  it('`commerce events copy --from DIR --to DIR` copies and reports, twice without duplicates', async () => {
    const from = dataDir();
    const to = dataDir();
    const source = storeIn(from);
    await seed(source);
    const cli = (args: string[]) =>
      run(process.execPath, ['bin/commerce.js', 'events', 'copy', ...args], {
        env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir() },
      });
    const first = await cli(['--from', from, '--to', to, '--json']);
    expect(JSON.parse(first.stdout)).toMatchObject({ events: 34, copied: 34, alreadyThere: 0 });
    const second = await cli(['--from', from, '--to', to]);
    expect(second.stdout).toContain('34 events');
    expect(second.stdout).toContain('0 copied, 34 already there');
    // A data directory is rebuilt where it landed, not by pointing at EventStoreDB.
    expect(second.stdout).toContain(`Next: run \`commerce projections rebuild\` with DATA_DIR=${to}.`);
    expect(strip(await storeIn(to).readAll({ after: null, limit: 1000 }))).toEqual(
      strip(await source.readAll({ after: null, limit: 1000 })),
    );
    await expect(cli(['--from', join(from, 'missing'), '--to', to])).rejects.toMatchObject({ code: 2 });
    // Three CLI processes, one after the other: up to 14 s each on a loaded two-core machine.
  }, 90_000);
});
