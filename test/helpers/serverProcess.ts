import { spawn, type ChildProcess } from 'node:child_process';
import { inject } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { compose } from '../../app/compose.ts';
import { loadConfig } from '../../platform/runtime/config.ts';
import type { Services } from '../../platform/runtime/services.ts';
import type { CommandContext } from '../../platform/es/handleCommand.ts';
import { createSequence, createTrigger } from '../../modules/automation/automationCommands.ts';
import { publishOffer, upsertOffer } from '../../modules/checkout/offerCommands.ts';
import { createApiKey, createOrganization, createUser } from '../../modules/identity/identityCommands.ts';
import { allProjections } from '../../app/allProjections.ts';
import { catchUpProjections } from '../../platform/es/projectionRunner.ts';
import { offerContent } from '../checkout/checkoutFixtures.ts';

const ROOT = resolve(import.meta.dirname, '../..');

export type ServerProcess = {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code and signal once the process has exited and its output is all read. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGTERM (a clean shutdown), then waits for the exit. */
  stop(): Promise<void>;
};

/** Our environment without what vitest adds (BASE_URL='/' would be read as our BASE_URL). */
export function cleanEnv(): Record<string, string> {
  // DATA_DIR and PORT too: every test names its own.
  const skip = new Set(['BASE_URL', 'MODE', 'DEV', 'PROD', 'SSR', 'NODE_ENV', 'TEST', 'DATA_DIR', 'PORT']);
  return Object.fromEntries(
    Object.entries(process.env).filter(
      (e): e is [string, string] => e[1] !== undefined && !skip.has(e[0]) && !e[0].startsWith('VITEST'),
    ),
  );
}

export const tempDataDir = (prefix = 'commerce-proc-') => mkdtempSync(join(tmpdir(), prefix));

/**
 * Starts the real server the way `npm start` does (the compiled `commerce.js serve`, built once per
 * run by test/globalSetup.ts), on a free port, and resolves once it prints the address it listens on.
 */
export async function startServerProcess(options: {
  dataDir: string;
  env?: Record<string, string>;
  /** A command that runs the server under its conditions, e.g. `['prlimit', '--fsize=4000000:']`. */
  launcher?: string[];
}): Promise<ServerProcess> {
  const [command, ...args] = [...(options.launcher ?? []), process.execPath, inject('cliPath') ?? 'bin/commerce.js', 'serve'];
  const child = spawn(command!, args, {
    cwd: ROOT,
    env: { ...cleanEnv(), DATA_DIR: options.dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  // 'close', not 'exit': at 'exit' the last of its output may still be in the pipes, and tests
  // read output() once the process has exited (the log lines of its shutdown).
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) =>
    child.once('close', (code, signal) => res({ code, signal })),
  );
  const url = await new Promise<string>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`server did not start within 30 s:\n${out}`)), 30_000);
    const check = () => {
      const match = /listening on (http:\/\/[\d.:]+)/.exec(out);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        res(match[1]!);
      }
    };
    child.stdout!.on('data', check);
    void exited.then(({ code }) => {
      clearTimeout(timer);
      rej(new Error(`server exited (${code}) before listening:\n${out}`));
    });
  });
  return {
    url,
    child,
    output: () => out,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

export type CliRun = { code: number | null; stdout: string; stderr: string };

/**
 * Runs the real `commerce` CLI as a child process, as a person would: compiled, as it ships (built
 * once per run by test/globalSetup.ts), else `node bin/commerce.js`.
 */
export function runCli(args: string[], env: Record<string, string>, input?: string): Promise<CliRun> {
  const cli = inject('cliPath') ?? 'bin/commerce.js';
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], { cwd: ROOT, env: { ...cleanEnv(), LOG_LEVEL: 'silent', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

/** Retries `check` until it passes (returns without throwing) or the time runs out, then throws its last error. */
export async function eventuallyPasses<T>(check: () => Promise<T>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/**
 * Waits until the server process at `url` has applied the whole log (every projection's lag is 0
 * on /readyz): what `settle()` is for an in-process test server, for a real `serve` process
 * beside which another process (the CLI) wrote.
 */
export async function caughtUp(url: string, timeoutMs = 20_000): Promise<void> {
  await eventuallyPasses(async () => {
    const response = await fetch(`${url}/readyz`, { headers: { accept: 'application/json' } });
    const body = (await response.json()) as { projections: Array<{ projection: string; lag_events: number }> };
    const behind = body.projections.filter((p) => p.lag_events > 0);
    if (behind.length > 0) throw new Error(`projections behind the log: ${JSON.stringify(behind)}`);
  }, timeoutMs);
}

/** Opens the data directory in this process (as the CLI does), runs `work`, catches read models up and closes. */
export async function withServices<T>(dataDir: string, work: (services: Services, ctx: (org?: string | null) => CommandContext) => Promise<T>): Promise<T> {
  const services = await compose(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), {
    runProjections: false,
    logger: { error: (o, m) => console.error(m, o), info: () => undefined },
  });
  const ctx = (organizationId: string | null = null): CommandContext => ({
    store: services.store,
    metadata: { correlation_id: 'test-seed', actor: { type: 'cli' }, organization_id: organizationId, occurred_at: Math.floor(Date.now() / 1000) },
  });
  try {
    const result = await work(services, ctx);
    await catchUpProjections(services.store, services.readStore, allProjections);
    return result;
  } finally {
    await services.close();
  }
}

/** An organization, a user and an API key written straight into the data directory. */
export async function seedIdentity(dataDir: string, name = 'Seeded Org'): Promise<{ organizationId: string; token: string }> {
  return withServices(dataDir, async (_services, ctx) => {
    const org = await createOrganization(ctx(), { name, timezone: 'UTC' });
    const user = await createUser(ctx(org.id), { email: `owner-${org.id}@example.com`, organizationId: org.id });
    const key = await createApiKey(ctx(org.id), { userId: user.id, organizationId: org.id });
    return { organizationId: org.id, token: key.token };
  });
}

/** A published offer and a catch URL whose sequence has no actions, written straight into the data directory. */
export async function seedOfferAndCatchUrl(dataDir: string, organizationId: string, name: string): Promise<{ catchPath: string; offerSlug: string }> {
  return withServices(dataDir, async (_s, ctx) => {
    const slug = `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-offer`;
    const offer = await upsertOffer(ctx(organizationId), { organizationId, slug, ...offerContent() });
    await publishOffer(ctx(organizationId), offer.uuid);
    const sequence = await createSequence(ctx(organizationId), { organizationId, name, actions: [] });
    const trigger = await createTrigger(ctx(organizationId), { organizationId, sequenceId: sequence.id, name });
    return { catchPath: `/hooks/catch/${sequence.route_key}/${trigger.route_key}`, offerSlug: offer.slug };
  });
}
