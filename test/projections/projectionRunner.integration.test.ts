import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventStore } from '../../platform/eventStore/eventStore.ts';
import { openSqliteEventStore } from '../../platform/eventStore/sqlite/sqliteEventStore.ts';
import type { Projection } from '../../platform/es/projection.ts';
import {
  catchUpProjections,
  PROJECTION_VERSIONS,
  rebuildProjection,
  startProjections,
  type ProjectionRunner,
  type ProjectionRunnerOptions,
} from '../../platform/es/projectionRunner.ts';
import { CheckpointConflictError, type Doc, type ReadStore } from '../../platform/readStore/readStore.ts';
import { openSqliteReadStore } from '../../platform/readStore/sqlite/sqliteReadStore.ts';
import { openTempStores } from '../helpers/sqliteStores.ts';
import { ProjectionDowngradeError, servedReadModels } from '../../platform/es/readModelGenerations.ts';

type Tally = Doc & { positions: number[] };

/** A witness: records the position of every `Counted` event it applies; any other event is not its business. */
const counter: Projection = {
  name: 'counter',
  collections: ['tallies'],
  eventTypes: ['Counted'],
  async apply(event, tx) {
    const tally = (await tx.get<Tally>('tallies', 'all')) ?? { id: 'all', positions: [] };
    tx.upsert('tallies', { ...tally, positions: [...tally.positions, event.position] });
  },
};

const quiet = { error: (o: object, m: string) => console.error(m, o), info: () => undefined };

/**
 * One process's connections to the data file, as compose opens them, and the commits of its read
 * store that another writer's checkpoint failed (seen through, not changed).
 */
type Process = { store: EventStore; readStore: ReadStore; conflicts: CheckpointConflictError[] };

describe('projection runner checkpoints', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  const dataFile = () => {
    const dir = mkdtempSync(join(tmpdir(), 'runner-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    return join(dir, 'commerce.db');
  };
  const open = (file: string): Process => {
    const store = openSqliteEventStore({ file });
    const readStore = openSqliteReadStore({ file });
    cleanup.push(async () => {
      await store.close();
      await readStore.close();
    });
    const conflicts: CheckpointConflictError[] = [];
    const observed: ReadStore = {
      ...readStore,
      async commit(name, ops, checkpoint) {
        try {
          await readStore.commit(name, ops, checkpoint);
        } catch (error) {
          if (error instanceof CheckpointConflictError) conflicts.push(error);
          throw error;
        }
      },
    };
    return { store, readStore: observed, conflicts };
  };
  const start = async (p: Process, options?: ProjectionRunnerOptions): Promise<ProjectionRunner> => {
    const runner = await startProjections(p.store, p.readStore, [counter], quiet, options);
    cleanup.push(() => runner.stop());
    return runner;
  };
  /** Appends `n` events of `type`, one append each (so a subscription may see them in several batches); the last position. */
  const append = async (p: Process, type: 'Counted' | 'Ignored', n = 1): Promise<number> => {
    let position = 0;
    for (let i = 0; i < n; i++) {
      const metadata = { correlation_id: 'test', actor: { type: 'cli' as const }, organization_id: null, occurred_at: Math.floor(Date.now() / 1000) };
      ({ position } = await p.store.append(`test-${randomUUID()}`, [{ id: randomUUID(), type, data: {}, metadata }], 'no_stream'));
    }
    return position;
  };
  const caughtUp = async (runner: ProjectionRunner, head: number) => expect(await runner.waitFor(head, 5000)).toBe(true);
  const tally = async (p: Process) => (await p.readStore.get<Tally>('tallies', 'all'))?.positions ?? [];

  it('lazy: a batch the projection writes nothing for moves its position in memory, not in the store', async () => {
    const p = open(dataFile());
    const runner = await start(p, { lazyCheckpoints: true });
    const counted = await append(p, 'Counted');
    await caughtUp(runner, counted);
    expect(await p.readStore.readCheckpoint('counter')).toBe(counted);

    const head = await append(p, 'Ignored', 5);
    await caughtUp(runner, head);
    expect(runner.checkpointOf('counter')).toBe(head);
    expect(runner.checkpoint()).toBe(head);
    // Read-your-writes waits resolve at once from the position in memory.
    expect(await runner.waitFor(head, 0)).toBe(true);
    expect(await p.readStore.readCheckpoint('counter')).toBe(counted);

    // The next batch that writes stores its checkpoint, expecting the stored one (the compare-and-set passes).
    const next = await append(p, 'Counted');
    await caughtUp(runner, next);
    expect(await p.readStore.readCheckpoint('counter')).toBe(next);
    expect(await tally(p)).toEqual([counted, next]);
    expect(p.conflicts).toEqual([]);
  });

  it('lazy: the checkpoint is stored once maxUnstoredEvents events went unstored', async () => {
    const p = open(dataFile());
    const runner = await start(p, { lazyCheckpoints: true, maxUnstoredEvents: 10 });
    let head = 0;
    for (let i = 1; i < 10; i++) {
      head = await append(p, 'Ignored');
      await caughtUp(runner, head);
    }
    expect(await p.readStore.readCheckpoint('counter')).toBeNull();
    head = await append(p, 'Ignored');
    await caughtUp(runner, head);
    expect(await p.readStore.readCheckpoint('counter')).toBe(head);
    // The count starts again from the stored checkpoint.
    const after = await append(p, 'Ignored', 3);
    await caughtUp(runner, after);
    expect(await p.readStore.readCheckpoint('counter')).toBe(head);
    expect(p.conflicts).toEqual([]);
  });

  it('lazy: stop() stores the position in memory, and a restart goes on from it', async () => {
    const file = dataFile();
    const p = open(file);
    const runner = await startProjections(p.store, p.readStore, [counter], quiet, { lazyCheckpoints: true });
    const counted = await append(p, 'Counted');
    const head = await append(p, 'Ignored', 4);
    await caughtUp(runner, head);
    expect(await p.readStore.readCheckpoint('counter')).toBe(counted);
    await runner.stop();
    expect(await p.readStore.readCheckpoint('counter')).toBe(head);

    const again = await start(p, { lazyCheckpoints: true });
    expect(again.checkpointOf('counter')).toBe(head);
    const next = await append(p, 'Counted');
    await caughtUp(again, next);
    expect(await tally(p)).toEqual([counted, next]);
    expect(p.conflicts).toEqual([]);
  });

  it('not lazy (the default): every batch stores its checkpoint, written or not', async () => {
    const p = open(dataFile());
    const runner = await start(p);
    for (const type of ['Ignored', 'Counted', 'Ignored', 'Ignored'] as const) {
      const head = await append(p, type);
      await caughtUp(runner, head);
      expect(await p.readStore.readCheckpoint('counter')).toBe(head);
    }
  });

  it('lazy: the CLI catching up from another connection meanwhile costs a restart, never an event applied twice or lost', async () => {
    const file = dataFile();
    const server = open(file);
    const cli = open(file);
    const runner = await start(server, { lazyCheckpoints: true, maxUnstoredEvents: 5 });
    const expected: number[] = [];
    for (let round = 0; round < 6; round++) {
      // The server's runner moves ahead of its stored checkpoint on events it does not write for...
      const ignored = await append(server, 'Ignored', 3);
      await caughtUp(runner, ignored);
      // ...then the CLI appends and catches up from the stored checkpoint (behind the runner's position).
      expected.push(await append(cli, 'Counted'));
      await append(cli, 'Ignored', round % 3);
      await catchUpProjections(cli.store, cli.readStore, [counter]);
      expect(await cli.readStore.readCheckpoint('counter')).toBe(await cli.store.headPosition());
      // The runner meets the CLI's events: its commit expects the checkpoint it stored, finds the
      // CLI's, and it restarts from there.
      expected.push(await append(server, 'Counted'));
      await caughtUp(runner, (await server.store.headPosition())!);
    }
    const head = (await server.store.headPosition())!;
    await runner.stop();
    expect(await tally(server)).toEqual(expected);
    expect(await server.readStore.readCheckpoint('counter')).toBe(head);
    // The runner did meet the CLI's checkpoints (behind its own position, most rounds).
    expect(server.conflicts.length).toBeGreaterThan(0);
    expect(server.conflicts.some((c) => c.actual !== null && c.actual > (c.expected ?? 0))).toBe(true);
  });

  it('a rebuild from the CLI beside a running server: the server serves and updates the old read models until the switch, then follows the rebuilt ones', async () => {
    const file = dataFile();
    const server = open(file);
    const cli = open(file);
    const runner = await start(server, { lazyCheckpoints: true });
    const counted: number[] = [];
    for (let i = 0; i < 12; i++) counted.push(await append(server, 'Counted'));
    await caughtUp(runner, counted.at(-1)!);
    // What the server's routes read: the generation served, looked up on every call.
    const served = servedReadModels(server.readStore, [counter], 0);
    const servedTally = async () => (await served.get<Tally>('tallies', 'all'))?.positions ?? [];

    // Half-way through the rebuild an event reaches the server: it applies it to the read models
    // it serves, which stay whole.
    let interfered = false;
    const rebuilding: ReadStore = {
      ...cli.readStore,
      async commit(name, ops, checkpoint) {
        if (!interfered && checkpoint.expected !== null) {
          interfered = true;
          counted.push(await append(server, 'Counted'));
          await caughtUp(runner, counted.at(-1)!);
          expect(await servedTally()).toEqual(counted);
        }
        return cli.readStore.commit(name, ops, checkpoint);
      },
    };
    const { events } = await rebuildProjection(cli.store, rebuilding, counter, undefined, 4);

    expect(interfered).toBe(true);
    expect(events).toBe(13);
    expect(cli.conflicts).toEqual([]);
    expect(await servedTally()).toEqual(counted);
    expect(await served.readCheckpoint('counter')).toBe(counted.at(-1));
    // The server's next commit meets the switch (the old generation's checkpoint is gone): it
    // follows the rebuilt read models from their checkpoint.
    counted.push(await append(server, 'Counted'));
    await caughtUp(runner, counted.at(-1)!);
    expect(server.conflicts.length).toBeGreaterThan(0);
    expect(await servedTally()).toEqual(counted);
  });
});

describe('projection versions: an upgrade that changes what a projection makes of past events', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });
  const open = () => openTempStores(cleanup, 'versions-');
  const metadata = { correlation_id: 'test', actor: { type: 'cli' as const }, organization_id: null, occurred_at: 1_700_000_000 };
  /** Version 1 keeps each event's word as it is; version 2 in capitals. */
  const words = (version: number): Projection => ({
    name: 'words',
    ...(version === 1 ? {} : { version }),
    collections: ['words'],
    eventTypes: ['Said'],
    apply(event, tx) {
      const word = (event.data as { word: string }).word;
      tx.upsert('words', { id: String(event.position), word: version === 1 ? word : word.toUpperCase() });
    },
  });
  const say = (store: EventStore, word: string) => store.append(`said-${randomUUID()}`, [{ id: randomUUID(), type: 'Said', data: { word }, metadata }], 'no_stream');
  /** As readers see them: the generation served. */
  const wordsIn = async (readStore: ReadStore) =>
    (await servedReadModels(readStore, [words(1)], 0).find<Doc & { word: string }>('words')).map((d) => d.word).sort();
  const versionIn = async (readStore: ReadStore) => (await readStore.get<Doc & { version: number }>(PROJECTION_VERSIONS, 'words'))?.version;
  /** A document no event made, in the read models served: a rebuild leaves it behind, an ordinary start keeps it. */
  const plantMarker = (readStore: ReadStore) => servedReadModels(readStore, [words(1)], 0).upsert('words', { id: 'marker', word: 'marker' });

  it('a start with a new version rebuilds the read models from the log; the same version again leaves them', async () => {
    const { store, readStore } = open();
    await say(store, 'hello');
    await say(store, 'world');
    await catchUpProjections(store, readStore, [words(1)]);
    expect(await wordsIn(readStore)).toEqual(['hello', 'world']);
    expect(await versionIn(readStore)).toBe(1);

    await plantMarker(readStore);
    const upgraded = await startProjections(store, readStore, [words(2)], quiet);
    cleanup.push(() => upgraded.stop());
    expect(await wordsIn(readStore)).toEqual(['HELLO', 'WORLD']);
    expect(await versionIn(readStore)).toBe(2);
    const later = await say(store, 'again');
    expect(await upgraded.waitFor(later.position, 5000)).toBe(true);
    expect(await wordsIn(readStore)).toEqual(['AGAIN', 'HELLO', 'WORLD']);
    await upgraded.stop();

    await plantMarker(readStore);
    await catchUpProjections(store, readStore, [words(2)]);
    expect(await wordsIn(readStore)).toEqual(['AGAIN', 'HELLO', 'WORLD', 'marker']);
  });

  it('read models from before versions were recorded count as version 1: kept, and the version recorded', async () => {
    const { store, readStore } = open();
    await say(store, 'old');
    await catchUpProjections(store, readStore, [words(1)]);
    await readStore.delete(PROJECTION_VERSIONS, 'words');
    await plantMarker(readStore);
    await catchUpProjections(store, readStore, [words(1)]);
    expect(await wordsIn(readStore)).toEqual(['marker', 'old']);
    expect(await versionIn(readStore)).toBe(1);
  });

  it('a rebuild cut short leaves the old version recorded, so the next start rebuilds again', async () => {
    const { store, readStore } = open();
    await say(store, 'one');
    await catchUpProjections(store, readStore, [words(1)]);
    const failing: Projection = { ...words(2), apply: () => { throw new Error('crashed mid-rebuild'); } };
    await expect(catchUpProjections(store, readStore, [failing])).rejects.toThrow('crashed mid-rebuild');
    expect(await versionIn(readStore)).toBe(1);
    await catchUpProjections(store, readStore, [words(2)]);
    expect(await wordsIn(readStore)).toEqual(['ONE']);
    expect(await versionIn(readStore)).toBe(2);
  });

  it('an upgrade builds the new read models beside the ones served, which readers see whole until the switch', async () => {
    const { store, readStore } = open();
    for (const w of ['alpha', 'beta', 'gamma', 'delta']) await say(store, w);
    await catchUpProjections(store, readStore, [words(1)]);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let halfway!: () => void;
    const reachedHalfway = new Promise<void>((resolve) => (halfway = resolve));
    let applied = 0;
    const slow: Projection = {
      ...words(2),
      async apply(event, tx) {
        if (++applied === 3) {
          halfway();
          await gate;
        }
        await words(2).apply(event, tx);
      },
    };
    const upgrading = startProjections(store, readStore, [slow], quiet);
    await reachedHalfway;
    expect(await wordsIn(readStore)).toEqual(['alpha', 'beta', 'delta', 'gamma']);
    expect(await versionIn(readStore)).toBe(1);
    release();
    const runner = await upgrading;
    cleanup.push(() => runner.stop());
    expect(await wordsIn(readStore)).toEqual(['ALPHA', 'BETA', 'DELTA', 'GAMMA']);
    expect(await versionIn(readStore)).toBe(2);
  });

  it('refuses to rebuild back to an older version (a fleet of mixed versions): the newer read models stay served', async () => {
    const { store, readStore } = open();
    await say(store, 'kept');
    await catchUpProjections(store, readStore, [words(2)]);
    await catchUpProjections(store, readStore, [words(3)]);
    expect(await versionIn(readStore)).toBe(3);
    await expect(startProjections(store, readStore, [words(2)], quiet)).rejects.toBeInstanceOf(ProjectionDowngradeError);
    await expect(catchUpProjections(store, readStore, [words(1)])).rejects.toThrow(/served at version 3, built by newer code than this process runs \(version 1\)/);
    expect(await versionIn(readStore)).toBe(3);
    expect(await wordsIn(readStore)).toEqual(['KEPT']);
  });
});
