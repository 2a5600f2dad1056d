import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compose } from '../../app/compose.ts';
import { loadConfig, runsInApi } from '../../platform/runtime/config.ts';
import { runUnderLease } from '../../platform/runtime/leasedWork.ts';
import { startProjectionWorker } from '../../app/workers.ts';
import { createOrganization } from '../../modules/identity/identityCommands.ts';
import { openSqliteEventStore } from '../../platform/eventStore/sqlite/sqliteEventStore.ts';
import { ORGANIZATIONS } from '../../modules/identity/identityProjection.ts';
import { openSqliteReadStore } from '../../platform/readStore/sqlite/sqliteReadStore.ts';
import { until } from '../contracts/eventStoreContract.ts';

type WorkerProcess = { child: ChildProcess; lines: string[]; exited: Promise<number | null> };
const children: ChildProcess[] = [];
const dirs: string[] = [];
const quiet = { error: () => undefined, info: () => undefined };

function startWorker(dataDir: string, kind: 'projections' | 'automation'): WorkerProcess {
  const child = spawn(process.execPath, ['bin/commerce.js', 'worker', kind], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, LEASE_TTL_MS: '1500' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const lines: string[] = [];
  child.stdout!.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  child.stderr!.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, lines, exited };
}

const tookLease = (w: WorkerProcess) => w.lines.some((l) => l.includes('lease taken'));

afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('workers', () => {
  it('two projection workers share the projections; the survivor takes over when one dies', { timeout: 60_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'commerce-workers-'));
    dirs.push(dataDir);
    const file = join(dataDir, 'commerce.db');
    const store = openSqliteEventStore({ file });
    const readStore = openSqliteReadStore({ file });
    const ctx = {
      store,
      metadata: { correlation_id: 'req_t', actor: { type: 'cli' as const }, organization_id: null, occurred_at: 1_700_000_000 },
    };
    try {
      const a = startWorker(dataDir, 'projections');
      const b = startWorker(dataDir, 'projections');
      // Each takes its share: both end up running projections.
      await until(() => tookLease(a) && tookLease(b), 30_000);

      const first = await createOrganization(ctx, { name: 'First', timezone: 'UTC' });
      await until(async () => (await readStore.get(ORGANIZATIONS, first.id)) !== null);

      // Whichever held the identity projection dies: the other takes it over.
      a.child.kill('SIGKILL');
      await a.exited;
      const second = await createOrganization(ctx, { name: 'Second', timezone: 'UTC' });
      await until(async () => (await readStore.get(ORGANIZATIONS, second.id)) !== null, 15_000);
      expect(await readStore.get(ORGANIZATIONS, second.id)).toMatchObject({ name: 'Second' });

      b.child.kill('SIGTERM');
      expect(await b.exited).toBe(0);
    } finally {
      await store.close();
      await readStore.close();
    }
  });

  it('an automation worker starts and stops cleanly on SIGTERM', { timeout: 30_000 }, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'commerce-workers-'));
    dirs.push(dataDir);
    const worker = startWorker(dataDir, 'automation');
    await until(() => worker.lines.some((l) => l.includes('automation worker started')), 20_000);
    worker.child.kill('SIGTERM');
    const code = await worker.exited;
    expect(code, worker.lines.join('\n')).toBe(0);
  });

  it('runUnderLease: one runner at a time; a stopped runner hands over at once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'commerce-lease-'));
    dirs.push(dataDir);
    const readStore = openSqliteReadStore({ file: join(dataDir, 'commerce.db') });
    const active = new Set<string>();
    const starter = (owner: string) => async () => {
      active.add(owner);
      return { stop: async () => void active.delete(owner) };
    };
    // A lease of 1.5 s, renewed every 0.5 s: with 600 ms (renewed every 200 ms) an event loop
    // held up 400 ms on a busy machine would let the other runner take a lease its holder still runs under.
    const options = (owner: string) => ({ readStore, owner, ttlMs: 1500, logger: quiet });
    const a = runUnderLease('job:test', options('a'), starter('a'));
    const b = runUnderLease('job:test', options('b'), starter('b'));
    await until(() => active.size === 1);
    // More than a lease's lifetime: the holder renews, the other stays out.
    await new Promise((r) => setTimeout(r, 1600));
    expect(active.size).toBe(1);
    const first = [...active][0]!;
    await (first === 'a' ? a : b).stop();
    await until(() => active.size === 1 && !active.has(first));
    await (first === 'a' ? b : a).stop();
    expect(active.size).toBe(0);
    await readStore.close();
  });

  it('an API process that runs no projections reads its own writes through the worker checkpoints', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'commerce-watch-'));
    dirs.push(dataDir);
    const config = loadConfig({ DATA_DIR: dataDir, RUN_PROJECTIONS: 'false', LEASE_TTL_MS: '1000' });
    expect(runsInApi(config, 'RUN_PROJECTIONS')).toBe(false);
    const api = await compose(config, { runProjections: false, watchProjections: true, logger: quiet });
    const worker = await startProjectionWorker(config, quiet);
    try {
      const ctx = {
        store: api.store,
        metadata: { correlation_id: 'req_w', actor: { type: 'cli' as const }, organization_id: null, occurred_at: 1_700_000_000 },
      };
      const org = await createOrganization(ctx, { name: 'Watched', timezone: 'UTC' });
      const head = (await api.store.headPosition())!;
      expect(await api.projections!.waitFor(head, 10_000)).toBe(true);
      expect(await api.readStore.get(ORGANIZATIONS, org.id)).toMatchObject({ name: 'Watched' });
      expect(api.projections!.checkpoint()).toBeGreaterThanOrEqual(head);
      expect(await api.projections!.waitFor(head + 1_000_000, 100)).toBe(false);
    } finally {
      await worker.stop();
      await api.close();
    }
  });

  it('RUN_PROJECTIONS and RUN_BACKGROUND_JOBS: auto is on for embedded, off for production', () => {
    const embedded = loadConfig({});
    const productionEnv = { EVENTSTORE_URL: 'esdb://localhost:2113?tls=false', MONGODB_URL: 'mongodb://localhost' };
    const production = loadConfig(productionEnv);
    expect(runsInApi(embedded, 'RUN_PROJECTIONS')).toBe(true);
    expect(runsInApi(embedded, 'RUN_BACKGROUND_JOBS')).toBe(true);
    expect(runsInApi(production, 'RUN_PROJECTIONS')).toBe(false);
    expect(runsInApi(production, 'RUN_BACKGROUND_JOBS')).toBe(false);
    expect(runsInApi(loadConfig({ ...productionEnv, RUN_PROJECTIONS: 'true' }), 'RUN_PROJECTIONS')).toBe(true);
    expect(() => loadConfig({ RUN_PROJECTIONS: 'sometimes' })).toThrow(/RUN_PROJECTIONS/);
  });
});
