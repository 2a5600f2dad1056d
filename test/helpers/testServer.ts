import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../app/httpApp.ts';
import { startBackgroundJobs } from '../../app/backgroundJobs.ts';
import { compose } from '../../app/compose.ts';
import { loadConfig } from '../../platform/runtime/config.ts';
import type { Clock, Services } from '../../platform/runtime/services.ts';
import type { CommandContext } from '../../platform/es/handleCommand.ts';
import { createApiKey, createOrganization, createUser } from '../../modules/identity/identityCommands.ts';

export type ManualClock = Clock & { set(ms: number): void; advance(ms: number): void };

/** A clock tests move by hand (expiry, promo tiers). Starts at the real now unless told. */
export function manualClock(startMs = Date.now()): ManualClock {
  let now = startMs;
  const clock = (() => now) as ManualClock;
  clock.set = (ms) => {
    now = ms;
  };
  clock.advance = (ms) => {
    now += ms;
  };
  return clock;
}

export type TestServer = {
  /** http://127.0.0.1:<port>, a real server on loopback. */
  url: string;
  services: Services;
  /** The fastify instance behind url: its registeredRoutes() lists every route. */
  app: FastifyInstance;
  dataDir: string;
  /** Waits until every projection has applied the whole log. */
  settle(): Promise<void>;
  /** A new organization with a user and an API key. */
  identity(name?: string): Promise<{ organizationId: string; userId: string; email: string; token: string }>;
  cliContext(organizationId?: string | null): CommandContext;
  fetch(path: string, init?: RequestInit & { token?: string }): Promise<Response>;
  /** Stops the server; keeps the data directory unless `remove` (restart tests reuse it). */
  close(options?: { remove?: boolean }): Promise<void>;
};

export async function startTestServer(
  options: {
    dataDir?: string;
    clock?: Clock;
    env?: Record<string, string>;
    /** false: no projections in this process (read models stay as they are); settle() then fails. */
    runProjections?: boolean;
    /**
     * With runProjections false: read the checkpoints another process's projections store (the
     * production API's topology), so settle() and read-your-writes wait for that process.
     */
    watchProjections?: boolean;
  } = {},
): Promise<TestServer> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'commerce-test-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...options.env });
  const services = await compose(config, {
    runProjections: options.runProjections ?? true,
    watchProjections: options.watchProjections ?? false,
    ...(options.clock ? { clock: options.clock } : {}),
    logger: { error: (o, m) => console.error(m, o), info: () => undefined },
  });
  const app = await buildApp(services);
  const jobs = await startBackgroundJobs(services, { error: (o, m) => console.error(m, o), info: () => undefined });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;

  const cliContext = (organizationId: string | null = null): CommandContext => ({
    store: services.store,
    metadata: {
      correlation_id: 'test',
      actor: { type: 'cli' },
      organization_id: organizationId,
      occurred_at: Math.floor(services.clock() / 1000),
    },
  });
  const settle = async () => {
    const head = await services.store.headPosition();
    if (!services.projections) throw new Error('this test server runs no projections');
    if (head !== null && !(await services.projections.waitFor(head, 10_000))) throw new Error('projections did not catch up');
  };
  let counter = 0;

  return {
    url,
    services,
    app,
    dataDir,
    settle,
    cliContext,
    async identity(name = 'Test Org') {
      counter += 1;
      const org = await createOrganization(cliContext(), { name, timezone: 'UTC' });
      const email = `user${counter}-${org.id}@example.com`;
      const user = await createUser(cliContext(org.id), { email, organizationId: org.id });
      const key = await createApiKey(cliContext(org.id), { userId: user.id, organizationId: org.id });
      await settle();
      return { organizationId: org.id, userId: user.id, email, token: key.token };
    },
    fetch(path, init = {}) {
      const { token, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (token) headers.set('authorization', `Bearer ${token}`);
      if (!headers.has('accept')) headers.set('accept', 'application/json');
      return fetch(`${url}${path}`, { ...rest, headers });
    },
    async close({ remove = false } = {}) {
      await app.close();
      await jobs.stop();
      await services.close();
      if (remove) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
