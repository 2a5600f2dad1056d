import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openSqliteEventStore } from '../../platform/eventStore/sqlite/sqliteEventStore.ts';
import { eventStoreContract, newEvent } from './eventStoreContract.ts';
import { readStoreContract } from './readStoreContract.ts';
import { sqliteReadStoreFixture, tempSqliteFile } from './storeFixtures.ts';

eventStoreContract('SQLite', async () => {
  const { file, dispose } = tempSqliteFile();
  return { connect: async () => openSqliteEventStore({ file, pollIntervalMs: 50 }), dispose };
});

readStoreContract('SQLite', sqliteReadStoreFixture);

describe('SQLite event store durability', () => {
  it('an appended event is read back by another process opening the file', async () => {
    const { file, dispose } = tempSqliteFile();
    const store = openSqliteEventStore({ file });
    const event = newEvent('Durable', { value: 'kept' });
    const { position } = await store.append('durable-1', [event], 'no_stream');
    // No close() first: a resolved append must already be on disk for a reader elsewhere.
    const out = execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--input-type=module',
        '-e',
        `const { openSqliteEventStore } = await import(${JSON.stringify(join(process.cwd(), 'platform/eventStore/sqlite/sqliteEventStore.ts'))});
         const store = openSqliteEventStore({ file: ${JSON.stringify(file)} });
         console.log(JSON.stringify(await store.readStream('durable-1')));
         await store.close();`,
      ],
      { encoding: 'utf8' },
    );
    const events = JSON.parse(out) as Array<{ id: string; type: string; data: unknown; position: number }>;
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ id: event.id, type: 'Durable', data: { value: 'kept' }, position });
    await store.close();
    await dispose();
  });
});

describe('SQLite event store: events this process wrote are served from memory', () => {
  it('reads its own batched appends (refused ones left out) exactly as a fresh reader of the file does', async () => {
    const { file, dispose } = tempSqliteFile();
    const store = openSqliteEventStore({ file });
    await store.append('seed-1', [newEvent('Seeded')], 'no_stream');
    expect(await store.readAll({ after: null, limit: 10 })).toHaveLength(1);

    const shared = { correlation_id: 'req_batch', actor: { type: 'system' as const, name: 'test' }, organization_id: 'org_1', occurred_at: 1 };
    const outcomes = await Promise.allSettled([
      store.append('batch-a', [newEvent('A1', { n: 1 }), newEvent('A2', { n: 2 })].map((e) => ({ ...e, metadata: shared })), 'no_stream'),
      store.append('seed-1', [newEvent('Refused')], 'no_stream'),
      store.append('batch-b', [newEvent('B1', { nested: { list: [1, 2] } })], 'no_stream'),
      store.append('seed-1', [newEvent('Seeded2')], 0),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);

    const fromMemory = await store.readAll({ after: 1, limit: 100 });
    const reader = openSqliteEventStore({ file });
    const fromFile = await reader.readAll({ after: 1, limit: 100 });
    expect(fromMemory.map((e) => e.type)).toEqual(['A1', 'A2', 'B1', 'Seeded2']);
    expect(fromMemory).toEqual(fromFile);
    expect(Object.isFrozen(fromMemory[0]!.data)).toBe(true);
    await reader.close();
    await store.close();
    await dispose();
  });
});

/**
 * Runs `body` in a process of its own with `store` (opened on `file`), `append(i)` (one event of
 * 1 MiB on stream big-<i>) and `report(fields)` at hand; `report` runs a full GC first and adds the
 * heap in use. Its own process, so the heap measures what the store holds and nothing of vitest's.
 */
async function inOwnProcess(file: string, body: string): Promise<{ heapUsed: number } & Record<string, number>> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [
      '--expose-gc',
      '--import',
      'tsx',
      '--input-type=module',
      '-e',
      `const { randomUUID } = await import('node:crypto');
       const { openSqliteEventStore } = await import(${JSON.stringify(join(process.cwd(), 'platform/eventStore/sqlite/sqliteEventStore.ts'))});
       const open = () => openSqliteEventStore({ file: ${JSON.stringify(file)} });
       const metadata = { correlation_id: 'mem', actor: { type: 'cli' }, organization_id: null, occurred_at: 0 };
       const blob = 'x'.repeat(1024 * 1024);
       const append = (store, i) => store.append('big-' + i, [{ id: randomUUID(), type: 'Big', data: { blob }, metadata }], 'no_stream');
       const report = (fields) => { globalThis.gc(); console.log(JSON.stringify({ ...fields, heapUsed: process.memoryUsage().heapUsed })); };
       ${body}`,
    ],
    { encoding: 'utf8', maxBuffer: 1 << 20 },
  );
  return JSON.parse(stdout) as { heapUsed: number } & Record<string, number>;
}

describe('SQLite event store: memory for what it keeps at hand', () => {
  it('its window of recent events stays bounded by size, not only by count: 200 events of 1 MiB leave well under 200 MiB held', { timeout: 60_000 }, async () => {
    const { file, dispose } = tempSqliteFile();
    try {
      const { read, heapUsed } = await inOwnProcess(
        file,
        `const store = open();
         for (let i = 0; i < 200; i++) await append(store, i);
         report({ read: (await store.readAll({ after: null, limit: 10 })).length });
         await store.close();`,
      );
      expect(read).toBe(10);
      // Each remembered event is its own parsed 1 MiB string: without the size bound all 200 stay.
      expect(heapUsed).toBeLessThan(120 * 1024 * 1024);
    } finally {
      dispose();
    }
  });

  it('its stream cache stays bounded by size: 150 streams of 1 MiB read one by one leave well under 150 MiB held', { timeout: 60_000 }, async () => {
    const { file, dispose } = tempSqliteFile();
    try {
      const { read, heapUsed } = await inOwnProcess(
        file,
        `const writer = open();
         for (let i = 0; i < 150; i++) await append(writer, i);
         await writer.close();
         // A reader that did not write them: only its stream cache can hold them.
         const reader = open();
         let read = 0;
         for (let i = 0; i < 150; i++) read += (await reader.readStream('big-' + i)).length;
         report({ read });
         await reader.close();`,
      );
      expect(read).toBe(150);
      expect(heapUsed).toBeLessThan(100 * 1024 * 1024);
    } finally {
      dispose();
    }
  });
});

describe('SQLite event store: one failing append in a group commit', () => {
  it('is refused whole, with nothing of it written, while its neighbours in the batch commit', async () => {
    const { file, dispose } = tempSqliteFile();
    const store = openSqliteEventStore({ file });
    const taken = newEvent('Taken');
    await store.append('owner-1', [taken], 'no_stream');
    // Its second event reuses an id the file already holds: the first insert succeeds, the second fails.
    const outcomes = await Promise.allSettled([
      store.append('neighbour-1', [newEvent('N1')], 'no_stream'),
      store.append('clash-1', [newEvent('Fresh'), { ...newEvent('Clash'), id: taken.id }], 'no_stream'),
      store.append('neighbour-2', [newEvent('N2')], 'no_stream'),
    ]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(await store.readStream('clash-1')).toEqual([]);
    const reader = openSqliteEventStore({ file });
    expect((await reader.readAll({ after: null, limit: 10 })).map((e) => e.type)).toEqual(['Taken', 'N1', 'N2']);
    expect((await store.readAll({ after: null, limit: 10 })).map((e) => e.type)).toEqual(['Taken', 'N1', 'N2']);
    await reader.close();
    await store.close();
    await dispose();
  });
});

describe('integer ids across processes (SQLite)', () => {
  it('three processes allocating at once on one file never hand out the same id', { timeout: 60_000 }, async () => {
    const { file, dispose } = tempSqliteFile();
    const script = `const { openSqliteEventStore } = await import(${JSON.stringify(join(process.cwd(), 'platform/eventStore/sqlite/sqliteEventStore.ts'))});
      const { allocateId } = await import(${JSON.stringify(join(process.cwd(), 'platform/es/idAllocator.ts'))});
      const store = openSqliteEventStore({ file: ${JSON.stringify(file)} });
      const metadata = { correlation_id: 'req_p', actor: { type: 'cli' }, organization_id: null, occurred_at: 0 };
      const ids = await Promise.all(Array.from({ length: 20 }, () => allocateId(store, 'invoice', metadata)));
      console.log(JSON.stringify(ids));
      await store.close();`;
    const run = promisify(execFile);
    const outputs = await Promise.all(
      [1, 2, 3].map(() => run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' })),
    );
    const ids = outputs.flatMap((o) => JSON.parse(o.stdout) as number[]);
    expect(ids).toHaveLength(60);
    expect([...ids].sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    await dispose();
  });
});
