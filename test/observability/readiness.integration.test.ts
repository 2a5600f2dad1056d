import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compose } from '../../app/compose.ts';
import { loadConfig } from '../../platform/runtime/config.ts';
import { checkReadiness, MAX_LAG_EVENTS, projectionLag } from '../../platform/runtime/readiness.ts';
import { allProjections } from '../../app/allProjections.ts';
import { startProjections } from '../../platform/es/projectionRunner.ts';
import { openSqliteReadStore } from '../../platform/readStore/sqlite/sqliteReadStore.ts';
import { openTempStores } from '../helpers/sqliteStores.ts';
import { manualClock } from '../helpers/testServer.ts';

const quiet = { error: (o: object, m: string) => console.error(m, o), info: () => undefined };

describe('readiness and lag with projections running in this process', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it('count from the runner\'s positions: a current lazy runner is 0 behind though its stored checkpoints are not', async () => {
    const { store, readStore } = openTempStores(cleanup, 'readiness-');
    const runner = await startProjections(store, readStore, allProjections, quiet, { lazyCheckpoints: true, maxUnstoredEvents: 5000 });
    cleanup.push(() => runner.stop());

    // More events than MAX_LAG_EVENTS that no projection writes for: each stays current in memory only.
    const clock = manualClock();
    const metadata = { correlation_id: 'test', actor: { type: 'cli' as const }, organization_id: null, occurred_at: Math.floor(clock() / 1000) };
    const events = Array.from({ length: MAX_LAG_EVENTS + 500 }, () => ({ id: randomUUID(), type: 'LoadTested', data: {}, metadata }));
    const { position: head } = await store.append(`load-${randomUUID()}`, events, 'no_stream');
    expect(await runner.waitFor(head, 5000)).toBe(true);
    for (const p of allProjections) expect(await readStore.readCheckpoint(p.name), p.name).toBeNull();
    clock.advance(10_000);

    const sources = { store, readStore, projections: allProjections, runner };
    const zero = allProjections.map((p) => ({ projection: p.name, events: 0 }));
    expect(await projectionLag(sources)).toEqual(zero);
    expect(await checkReadiness({ ...sources, clock })).toEqual({ ready: true, reasons: [], lag: zero });

    // Without the runner (a process whose projections run elsewhere) the stored checkpoints count.
    const stored = { store, readStore, projections: allProjections };
    // Counted up to one past the limit: "more than MAX_LAG_EVENTS".
    expect(await projectionLag(stored)).toEqual(allProjections.map((p) => ({ projection: p.name, events: MAX_LAG_EVENTS + 1 })));
    const readiness = await checkReadiness({ ...stored, clock });
    expect(readiness.ready).toBe(false);
    expect(readiness.reasons).toContain(`projection identity is more than ${MAX_LAG_EVENTS} events behind`);
  });

  it('through compose: /metrics reports 0 lag for lazy projections that are current, and close() stores their checkpoints', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'readiness-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const services = await compose(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }), { runProjections: true, lazyCheckpoints: true, logger: quiet });
    let closed = false;
    cleanup.push(() => (closed ? undefined : services.close()));
    const metadata = { correlation_id: 'test', actor: { type: 'cli' as const }, organization_id: null, occurred_at: Math.floor(Date.now() / 1000) };
    let head = 0;
    for (let i = 0; i < 3; i++) {
      ({ position: head } = await services.store.append(`load-${randomUUID()}`, [{ id: randomUUID(), type: 'LoadTested', data: {}, metadata }], 'no_stream'));
    }
    expect(await services.projections!.waitFor(head, 5000)).toBe(true);
    for (const p of allProjections) expect(await services.readStore.readCheckpoint(p.name), p.name).toBeNull();

    const { body } = await services.metrics.scrape();
    const lags = [...body.matchAll(/^projection_lag_events\{projection="(\w+)"\} (\d+)$/gm)].map((m) => [m[1], Number(m[2])]);
    expect(lags).toEqual(allProjections.map((p) => [p.name, 0]));

    await services.close();
    closed = true;
    const readStore = openSqliteReadStore({ file: join(dir, 'commerce.db') });
    try {
      for (const p of allProjections) expect(await readStore.readCheckpoint(p.name), p.name).toBe(head);
    } finally {
      await readStore.close();
    }
  });
});

describe('lag is counted in events, not in positions', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it('a projection three events behind, over positions thousands apart (EventStoreDB\'s are byte offsets), is 3 behind and ready', async () => {
    const { file, store, readStore } = openTempStores(cleanup, 'readiness-bytes-');
    const clock = manualClock();
    const metadata = { correlation_id: 'test', actor: { type: 'cli' as const }, organization_id: null, occurred_at: Math.floor(clock() / 1000) };
    // Another connection moves the file's position sequence on between appends, as an
    // EventStoreDB log's byte offsets move by an event's size: real gaps in a real log.
    const db = new Database(file);
    cleanup.push(() => void db.close());
    const append = async () => {
      const { position } = await store.append(`load-${randomUUID()}`, [{ id: randomUUID(), type: 'LoadTested', data: {}, metadata }], 'no_stream');
      db.prepare("UPDATE sqlite_sequence SET seq = seq + 700 WHERE name = 'events'").run();
      return position;
    };
    const applied = await append();
    for (const p of allProjections) await readStore.commit(p.name, [], { expected: null, next: applied });
    let head = 0;
    for (let i = 0; i < 3; i++) head = await append();
    expect(head - applied).toBeGreaterThan(MAX_LAG_EVENTS);

    const sources = { store, readStore, projections: allProjections };
    const three = allProjections.map((p) => ({ projection: p.name, events: 3 }));
    expect(await projectionLag(sources)).toEqual(three);
    expect(await checkReadiness({ ...sources, clock })).toEqual({ ready: true, reasons: [], lag: three });

    // Projections at different checkpoints each count their own events.
    const [first, second] = allProjections;
    await readStore.commit(first!.name, [], { expected: applied, next: head });
    const lag = await projectionLag(sources);
    expect(lag.find((l) => l.projection === first!.name)?.events).toBe(0);
    expect(lag.find((l) => l.projection === second!.name)?.events).toBe(3);

    // Age still counts: the oldest unapplied event, not the position gap.
    clock.advance(10_000);
    const late = await checkReadiness({ ...sources, clock });
    expect(late.ready).toBe(false);
    expect(late.reasons).toContainEqual(expect.stringMatching(new RegExp(`^projection ${second!.name} is 1[01] s behind \\(max 5 s\\)$`)));
    expect(late.reasons.some((r) => r.startsWith(`projection ${first!.name} `))).toBe(false);
  });
});
