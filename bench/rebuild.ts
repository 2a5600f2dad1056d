/**
 * Projection rebuild speed: events per second replayed into the read models, against a raw
 * SQLite insert loop (one prepared INSERT per row, one transaction, the read store's own pragmas)
 * as the ceiling. The log is real events made by the real commands, copied with fresh ids.
 *
 *   node bin/run-ts.js bench/rebuild.ts        (REBUILD_EVENTS=20000 copied identity events, REBUILD_PRODUCTS=400 imported products)
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { compose } from '../app/compose.ts';
import { loadConfig } from '../platform/runtime/config.ts';
import type { NewEvent, RecordedEvent } from '../platform/eventStore/eventStore.ts';
import type { CommandContext } from '../platform/es/handleCommand.ts';
import { runImport } from '../app/import/importFile.ts';
import { createApiKey, createOrganization, createUser } from '../modules/identity/identityCommands.ts';
import { allProjections } from '../app/allProjections.ts';
import { rebuildProjection } from '../platform/es/projectionRunner.ts';

export type RebuildFigures = { projections: number; logEvents: number; events: number; rebuildEventsPerSecond: number; rawInsertsPerSecond: number; ratio: number };

/** A few of every kind of entity, made through the real commands: the template of the log. */
async function templateEvents(dataDir: string): Promise<RecordedEvent[]> {
  const services = await compose(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), {
    runProjections: false,
    logger: { error: () => undefined, info: () => undefined },
  });
  const ctx = (org: string | null = null): CommandContext => ({
    store: services.store,
    metadata: { correlation_id: 'bench', actor: { type: 'cli' }, organization_id: org, occurred_at: 1_800_000_000 },
  });
  try {
    for (let i = 0; i < 5; i++) {
      const org = await createOrganization(ctx(), { name: `Bench ${i}`, timezone: 'UTC' });
      const user = await createUser(ctx(org.id), { email: `bench${i}@example.com`, organizationId: org.id });
      await createApiKey(ctx(org.id), { userId: user.id, organizationId: org.id });
    }
    return await services.store.readAll({ after: null, limit: 1_000_000 });
  } finally {
    await services.close();
  }
}

/** The template again and again, with every entity id (the stream suffix) made unique per copy. */
function* copies(template: RecordedEvent[], total: number): Generator<{ stream: string; event: NewEvent }> {
  const ids = [...new Set(template.map((e) => e.stream.slice(e.stream.indexOf('-') + 1)))].filter((id) => id.length >= 6);
  const pattern = new RegExp(ids.map((id) => id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
  for (let copy = 0, n = 0; n < total; copy++) {
    for (const e of template) {
      if (n++ >= total) return;
      const rename = (s: string) => s.replace(pattern, (id) => `${id}c${copy}`);
      yield {
        stream: rename(e.stream),
        event: { id: randomUUID(), type: e.type, data: JSON.parse(rename(JSON.stringify(e.data))), metadata: e.metadata },
      };
    }
  }
}

export async function runRebuildBench(options: { events?: number } = {}): Promise<RebuildFigures> {
  const total = options.events ?? Number(process.env.REBUILD_EVENTS ?? 20_000);
  const catalogProducts = Number(process.env.REBUILD_PRODUCTS ?? 400);
  const dir = mkdtempSync(join(tmpdir(), 'commerce-bench-rebuild-'));
  try {
    const template = await templateEvents(join(dir, 'template'));
    const services = await compose(loadConfig({ DATA_DIR: join(dir, 'log'), LOG_LEVEL: 'silent' }), {
      runProjections: false,
      logger: { error: () => undefined, info: () => undefined },
    });
    try {
      // Write the log: streams are appended to in order, many per batch (group commit).
      const revisions = new Map<string, number>();
      let batch: Array<Promise<unknown>> = [];
      for (const { stream, event } of copies(template, total)) {
        const revision = revisions.get(stream) ?? -1;
        revisions.set(stream, revision + 1);
        batch.push(services.store.append(stream, [event], revision === -1 ? 'no_stream' : revision));
        if (batch.length >= 500) {
          await Promise.all(batch);
          batch = [];
        }
      }
      await Promise.all(batch);
      // The catalog part of the log is made by the real import (its events refer to each other by
      // allocated ids, which a copy would not keep consistent).
      const org = { store: services.store, metadata: { correlation_id: 'bench', actor: { type: 'cli' as const }, organization_id: 'org_bench', occurred_at: 1_800_000_000 } };
      await createOrganization(org, { id: 'org_bench', name: 'Bench', timezone: 'UTC' });
      for (let chunk = 0; chunk < catalogProducts / 200; chunk++) {
        await runImport(
          { command: org, organizationId: 'org_bench', catchUp: async () => undefined },
          {
            products: Array.from({ length: 200 }, (_, p) => ({
              key: `bench-${chunk}-${p}`,
              name: `bench ${p}`,
              display_name: `Bench ${p}`,
              description: 'A product of the rebuild benchmark',
              published: true,
              plans: [{ name: 'monthly', display_name: 'Monthly', description: 'Monthly', renew_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 1900 }] }],
            })),
          },
        );
      }

      const started = performance.now();
      let applied = 0;
      for (const projection of allProjections) applied += (await rebuildProjection(services.store, services.readStore, projection)).events;
      const rebuildEventsPerSecond = applied / ((performance.now() - started) / 1000);

      // The ceiling: the same number of rows, inserted raw into a table shaped like the read store's.
      const db = new Database(join(dir, 'raw.db'));
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL');
      db.exec('CREATE TABLE documents (collection TEXT NOT NULL, id TEXT NOT NULL, doc TEXT NOT NULL, PRIMARY KEY (collection, id)) WITHOUT ROWID');
      const insert = db.prepare('INSERT INTO documents (collection, id, doc) VALUES (?, ?, ?)');
      const events = await services.store.readAll({ after: null, limit: 10_000_000 });
      const rawStarted = performance.now();
      db.transaction(() => {
        for (const e of events) insert.run('raw', e.id, JSON.stringify(e.data));
      })();
      const rawInsertsPerSecond = events.length / ((performance.now() - rawStarted) / 1000);
      db.close();
      return { projections: allProjections.length, logEvents: events.length, events: applied, rebuildEventsPerSecond, rawInsertsPerSecond, ratio: rebuildEventsPerSecond / rawInsertsPerSecond };
    } finally {
      await services.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const f = await runRebuildBench();
  console.log(
    `rebuild: ${f.logEvents} events × ${f.projections} projections at ${Math.round(f.rebuildEventsPerSecond)} events/s; raw SQLite inserts ${Math.round(f.rawInsertsPerSecond)} rows/s; ratio ${f.ratio.toFixed(3)}`,
  );
}
