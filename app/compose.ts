import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { EventStore } from '../platform/eventStore/eventStore.ts';
import { backupDataDir, BackupRefused, type BackupResult } from '../platform/sqlite/backupDataDir.ts';
import { openSqliteEventStore } from '../platform/eventStore/sqlite/sqliteEventStore.ts';
import { allProjections } from './allProjections.ts';
import { watchProjections } from '../platform/es/checkpointWatcher.ts';
import { startProjections, type Logger, type ProjectionRunner } from '../platform/es/projectionRunner.ts';
import { servedReadModels } from '../platform/es/readModelGenerations.ts';
import type { ReadStore } from '../platform/readStore/readStore.ts';
import { openSqliteReadStore } from '../platform/readStore/sqlite/sqliteReadStore.ts';
import { ConfigError, isProductionProfile, type Config } from '../platform/runtime/config.ts';
import { esdbConnectionStringProblem, isEventStoreUrl, toEsdbConnectionString } from '../platform/runtime/eventStoreUrl.ts';
import { createMetrics, type Metrics } from '../platform/runtime/metrics.ts';
import { stripeClientFactory } from '../modules/payments/stripeProvider.ts';
import { readStoreStripeCredentials } from '../modules/payments/stripeCredentialStore.ts';
import { observeEventStore } from '../platform/runtime/observedEventStore.ts';
import { cachedVault, sealPersonalData, type PersonalDataVault } from '../platform/privacy/index.ts';
import { openSqlitePersonalDataVault } from '../platform/privacy/sqlite/sqliteVault.ts';
import { personalFields } from './personalFields.ts';
import type { FileStore } from '../platform/files/fileStore.ts';
import { copyDataDirFiles, openDataDirFileStore } from '../platform/files/dataDir/dataDirFileStore.ts';
import { projectionLag } from '../platform/runtime/readiness.ts';
import type { Clock, Services } from '../platform/runtime/services.ts';

/**
 * The composition root: the one module that picks concrete adapters. Everything else receives
 * the ports through Services.
 */
export type Stores = { store: EventStore; readStore: ReadStore };

/**
 * The WAL's length (pages, 64 MiB of 4 KiB) at which the API thread's connections checkpoint it
 * themselves when the subscriber thread, which commits read models several times a second, does
 * that work: a bound for when that thread is gone, not a figure they should reach.
 */
export const WAL_BOUND_PAGES = 16_384;

/** The adapters alone: their events hold buyers' personal fields sealed (compose() opens them with the vault). */
export async function openStores(config: Config, options: { checkpointsElsewhere?: boolean } = {}): Promise<Stores> {
  if (isProductionProfile(config)) {
    // Loaded only here: their clients are slow to load, which every CLI command and every start
    // of the embedded profile would otherwise pay for.
    const [{ openMongoReadStore }, { openEsdbEventStore }] = await Promise.all([
      import('../platform/readStore/mongodb/mongoReadStore.ts'),
      import('../platform/eventStore/esdb/esdbEventStore.ts'),
    ]);
    const readStore = await openMongoReadStore(config.MONGODB_URL!, config.MONGODB_DB);
    return { store: openEsdbEventStore(toEsdbConnectionString(config.EVENTSTORE_URL!)), readStore };
  }
  const file = join(resolve(config.DATA_DIR), 'commerce.db');
  const busyTimeoutMs = config.SQLITE_BUSY_TIMEOUT_MS;
  // A checkpoint syncs the WAL and the database file on the thread that commits: leave it to another.
  const autocheckpointPages = options.checkpointsElsewhere ? WAL_BOUND_PAGES : undefined;
  return { store: openSqliteEventStore({ file, busyTimeoutMs, autocheckpointPages }), readStore: openSqliteReadStore({ file, busyTimeoutMs, autocheckpointPages }) };
}

/** The vault of buyers' personal-data keys: beside the events in commerce.db, or in the read store's MongoDB database. */
export async function openVault(config: Config): Promise<PersonalDataVault> {
  if (isProductionProfile(config)) {
    const { openMongoPersonalDataVault } = await import('../platform/privacy/mongodb/mongoVault.ts');
    return cachedVault(await openMongoPersonalDataVault(config.MONGODB_URL!, config.MONGODB_DB));
  }
  return cachedVault(openSqlitePersonalDataVault({ file: join(resolve(config.DATA_DIR), 'commerce.db'), busyTimeoutMs: config.SQLITE_BUSY_TIMEOUT_MS }));
}

/** Where uploaded files' bytes go: the data directory beside commerce.db, or GridFS in the read store's MongoDB database. */
export async function openFileStore(config: Config): Promise<FileStore> {
  if (isProductionProfile(config)) {
    const { openGridFsFileStore } = await import('../platform/files/mongodb/gridFsFileStore.ts');
    return openGridFsFileStore(config.MONGODB_URL!, config.MONGODB_DB);
  }
  return openDataDirFileStore(config.DATA_DIR);
}

/**
 * An event store by location, for `commerce events copy`: an EventStoreDB connection string
 * (esdb://, kurrentdb:// and their +discover forms), or an embedded data directory holding commerce.db.
 */
export async function openEventStoreAt(location: string): Promise<EventStore> {
  if (isEventStoreUrl(location)) {
    const problem = esdbConnectionStringProblem(location);
    if (problem) throw new ConfigError(`invalid event store address: ${problem}`);
    return (await import('../platform/eventStore/esdb/esdbEventStore.ts')).openEsdbEventStore(toEsdbConnectionString(location));
  }
  return openSqliteEventStore({ file: join(resolve(location), 'commerce.db') });
}

/**
 * For `commerce events copy`: the event store at a location under its own vault, so the copy
 * opens personal fields with the source's keys and seals them again with the target's (a person
 * erased before the copy arrives as the placeholder only). An EventStoreDB's vault is in the
 * MongoDB database its read store will use.
 */
export async function openSealedEventStoreAt(location: string, mongo: { url: string | undefined; db: string }): Promise<EventStore> {
  const store = await openEventStoreAt(location);
  if (isEventStoreUrl(location)) {
    if (!mongo.url) {
      await store.close();
      throw new ConfigError('MONGODB_URL (and MONGODB_DB) must name the MongoDB database the copied events will be read with: the keys sealing buyers\' personal data go there');
    }
    const { openMongoPersonalDataVault } = await import('../platform/privacy/mongodb/mongoVault.ts');
    return sealPersonalData(store, cachedVault(await openMongoPersonalDataVault(mongo.url, mongo.db)), personalFields);
  }
  return sealPersonalData(store, cachedVault(openSqlitePersonalDataVault({ file: join(resolve(location), 'commerce.db') })), personalFields);
}

/**
 * `commerce backup`: a consistent copy of the embedded profile's data directory (see
 * platform/sqlite/backupDataDir.ts), then the uploaded files: after the snapshot, so each file it
 * names is in the copy.
 */
export async function backupEmbeddedData(config: Config, to: string): Promise<BackupResult & { files: number; file_bytes: number }> {
  if (isProductionProfile(config)) {
    throw new BackupRefused("backup copies the embedded profile's data directory; back EventStoreDB and MongoDB up with their own tools (the uploaded files are in MongoDB)");
  }
  const started = performance.now();
  const result = backupDataDir(config.DATA_DIR, to, config.SQLITE_BUSY_TIMEOUT_MS);
  const files = await copyDataDirFiles(config.DATA_DIR, result.to);
  return { ...result, files: files.files, file_bytes: files.bytes, seconds: Number(((performance.now() - started) / 1000).toFixed(3)) };
}
export { BackupRefused, type BackupResult };

export type ComposeOptions = {
  /** Run the projections in this process (the API on the embedded profile does). */
  runProjections: boolean;
  /**
   * When not running them: wait for the checkpoints another process (the projection worker)
   * moves, so this process still reads its own writes. The API on the production profile does.
   */
  watchProjections?: boolean;
  /**
   * When running them: store a projection's checkpoint with its writes, not after every batch
   * (startProjections' lazyCheckpoints). Only where no other process waits on the stored
   * checkpoints: the `serve` of the embedded profile does; a projection worker must not.
   */
  lazyCheckpoints?: boolean;
  /**
   * Projections running elsewhere in this process (the server's subscriber thread), known through
   * their progress: used as Services.projections instead of running or watching them here. That
   * thread's connections also take the WAL checkpoints over (WAL_BOUND_PAGES).
   */
  projections?: ProjectionRunner;
  /** Told after each append of this process's (the server tells its subscriber thread). */
  onAppended?: () => void;
  /** When running them: told whenever a projection's position moves. */
  onProjectionProgress?: () => void;
  /** Where this process's figures go (the subscriber thread forwards its own to the server's). */
  metrics?: Metrics;
  clock?: Clock;
  logger: Logger;
};

export async function compose(config: Config, options: ComposeOptions): Promise<Services & { close(): Promise<void> }> {
  // Before anything starts: a refused secret must not leave stores open and projections running.
  const jwt = loadJwtSecret(config);
  // Read (or generated) on first use only: a deployment that never connects Stripe writes no key file.
  let data: Uint8Array | null = config.DATA_ENCRYPTION_KEY ? Buffer.from(config.DATA_ENCRYPTION_KEY, 'hex') : null;
  const secrets = {
    jwt,
    get data(): Uint8Array {
      data ??= generatedSecret(config, 'data-encryption-key', 'DATA_ENCRYPTION_KEY');
      return data;
    },
  };
  const metrics = options.metrics ?? createMetrics();
  const opened = await openStores(config, { checkpointsElsewhere: options.projections !== undefined });
  const vault = await openVault(config);
  const files = await openFileStore(config);
  // Sealed below the metrics and append tracking: they see the same appends, whatever their data.
  const store = observeEventStore(sealPersonalData(opened.store, vault, personalFields), metrics, options.onAppended);
  // Readers see each projection's read models in the generation served (a rebuild writes the next
  // one beside it); the projection runner takes the store under this view.
  const readStore = servedReadModels(opened.readStore, allProjections);
  const projections = options.projections
    ? options.projections
    : options.runProjections
      ? await startProjections(store, readStore, allProjections, options.logger, {
          lazyCheckpoints: options.lazyCheckpoints ?? false,
          ...(options.onProjectionProgress ? { onProgress: options.onProjectionProgress } : {}),
        })
      : options.watchProjections
        ? watchProjections(readStore, allProjections)
        : null;
  metrics.setProjectionLagSource(() => projectionLag({ store, readStore, projections: allProjections, runner: projections }));
  return {
    config,
    store,
    readStore,
    clock: options.clock ?? Date.now,
    secrets,
    stripeCredentials: readStoreStripeCredentials(readStore),
    payments: { stripe: stripeClientFactory(config) },
    projections,
    vault,
    metrics,
    files,
    async close() {
      await projections?.stop();
      await store.close();
      await readStore.close();
      await files.close();
    },
  };
}

/**
 * The generated secret as kept in DATA_DIR/jwt-secret: 32 random bytes in hex. Anything else (an
 * edited or truncated file) is refused at start: Buffer.from(…, 'hex') stops at the first character
 * that is not hex, so a damaged file made a short key, and anyone who guessed it could sign
 * service_jwt tokens.
 */
function jwtSecretFrom(text: string, file: string, setting = 'JWT_SECRET'): Uint8Array {
  const hex = text.trim();
  if (!/^(?:[0-9a-f]{2}){32,}$/i.test(hex)) {
    const lost = setting === 'JWT_SECRET' ? 'service_jwt tokens issued before stop working' : 'credentials sealed with it can no longer be read';
    throw new ConfigError(`invalid configuration: ${file} does not hold a generated secret (64 or more hex digits); remove it to have a new one generated (${lost}), or set ${setting}`);
  }
  return Buffer.from(hex, 'hex');
}

/** From JWT_SECRET, or generated once and kept in DATA_DIR so tokens survive restarts. */
function loadJwtSecret(config: Config): Uint8Array {
  if (config.JWT_SECRET) return new TextEncoder().encode(config.JWT_SECRET);
  return generatedSecret(config, 'jwt-secret', 'JWT_SECRET');
}

/** 32 random bytes kept in DATA_DIR/<name>, generated by the first process that needs them. */
function generatedSecret(config: Config, name: string, setting: string): Uint8Array {
  const dir = resolve(config.DATA_DIR);
  const file = join(dir, name);
  if (existsSync(file)) return jwtSecretFrom(readFileSync(file, 'utf8'), file, setting);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Written whole under another name, then linked into place (which fails if the name exists):
  // a process starting beside this one (the CLI and the server) never reads a half-written file.
  const draft = `${file}.${process.pid}.${randomBytes(6).toString('hex')}`;
  writeFileSync(draft, randomBytes(32).toString('hex'), { flag: 'wx', mode: 0o600 });
  try {
    linkSync(draft, file);
  } catch (error) {
    // Another process put its secret there first: use theirs.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(draft, { force: true });
  }
  return jwtSecretFrom(readFileSync(file, 'utf8'), file, setting);
}
