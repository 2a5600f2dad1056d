import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { EventStore } from '../commands/eventStore.ts';
import { openSqliteEventStore } from '../commands/sqlite/sqliteEventStore.ts';
import { allProjections } from '../projections/allProjections.ts';
import { startProjections, type Logger } from '../projections/projectionRunner.ts';
import type { ReadStore } from '../projections/readStore.ts';
import { openSqliteReadStore } from '../projections/sqlite/sqliteReadStore.ts';
import type { Config } from './config.ts';
import { createMetrics } from './metrics.ts';
import { observeEventStore } from './observedEventStore.ts';
import { projectionLag } from './readiness.ts';
import type { Clock, Services } from './services.ts';

/**
 * The composition root: the one module that picks concrete adapters. Everything else receives
 * the ports through Services.
 */
export type Stores = { store: EventStore; readStore: ReadStore };

export async function openStores(config: Config): Promise<Stores> {
  if (config.EVENTSTORE_URL && config.MONGODB_URL) {
    throw new Error('the EventStoreDB + MongoDB profile is not available in this build');
  }
  const file = join(resolve(config.DATA_DIR), 'commerce.db');
  return { store: openSqliteEventStore({ file }), readStore: openSqliteReadStore({ file }) };
}

export type ComposeOptions = {
  /** Run the projections in this process (the API on the embedded profile does). */
  runProjections: boolean;
  clock?: Clock;
  logger: Logger;
};

export async function compose(config: Config, options: ComposeOptions): Promise<Services & { close(): Promise<void> }> {
  const metrics = createMetrics();
  const opened = await openStores(config);
  const store = observeEventStore(opened.store, metrics);
  const readStore = opened.readStore;
  metrics.setProjectionLagSource(() => projectionLag(store, readStore, allProjections));
  const projections = options.runProjections
    ? await startProjections(store, readStore, allProjections, options.logger)
    : null;
  return {
    config,
    store,
    readStore,
    clock: options.clock ?? Date.now,
    secrets: { jwt: loadJwtSecret(config) },
    projections,
    metrics,
    async close() {
      await projections?.stop();
      await store.close();
      await readStore.close();
    },
  };
}

/** From JWT_SECRET, or generated once and kept in DATA_DIR so tokens survive restarts. */
function loadJwtSecret(config: Config): Uint8Array {
  if (config.JWT_SECRET) return new TextEncoder().encode(config.JWT_SECRET);
  const dir = resolve(config.DATA_DIR);
  const file = join(dir, 'jwt-secret');
  try {
    return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
  } catch {
    mkdirSync(dir, { recursive: true });
    const secret = randomBytes(32).toString('hex');
    try {
      writeFileSync(file, secret, { flag: 'wx', mode: 0o600 });
    } catch {
      // Another process (the CLI beside the server) wrote it first: use theirs.
      return Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
    }
    return Buffer.from(secret, 'hex');
  }
}
