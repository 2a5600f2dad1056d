import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { buildApp } from '../../app/httpApp.ts';
import { startBackgroundJobs } from '../../app/backgroundJobs.ts';
import { compose } from '../../app/compose.ts';
import { runImport } from '../../app/import/importFile.ts';
import { createApiKey, createOrganization, createUser } from '../../modules/identity/identityCommands.ts';
import { testClockAdvanceJob } from '../../modules/subscriptions/jobs/testClockAdvance.ts';
import { DomainError } from '../../platform/domain/index.ts';
import type { CommandContext } from '../../platform/es/handleCommand.ts';
import { loadConfig } from '../../platform/runtime/config.ts';
import type { Services } from '../../platform/runtime/services.ts';
import { offerContent } from '../checkout/checkoutFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const silent = { error: (o: unknown, m: string) => console.error(m, o), info: () => undefined };

/**
 * The service's routes and projections on a fresh SQLite file, with no background job running
 * unless a test starts one: an advance then stays `advancing` until the test starts the advance
 * job, which is how a restart after a crash finds it.
 */
export async function clockApp() {
  const dataDir = mkdtempSync(join(tmpdir(), 'commerce-clock-'));
  const services = await compose(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), { runProjections: true, watchProjections: false, logger: silent });
  const app: FastifyInstance = await buildApp(services);
  const jobs: Array<{ stop(): Promise<void> }> = [];
  const ctx = (organizationId: string | null = null): CommandContext => ({
    store: services.store,
    metadata: { correlation_id: 'test', actor: { type: 'cli' }, organization_id: organizationId, occurred_at: Math.floor(services.clock() / 1000) },
  });
  const settle = async () => {
    const head = await services.store.headPosition();
    if (head !== null && !(await services.projections!.waitFor(head, 10_000))) throw new Error('projections did not catch up');
  };
  let n = 0;
  return {
    services: services as Services,
    dataDir,
    app,
    ctx,
    settle,
    async identity() {
      n += 1;
      const org = await createOrganization(ctx(), { name: `Org ${n}`, timezone: 'UTC' });
      const user = await createUser(ctx(org.id), { email: `seller${n}-${org.id}@example.com`, organizationId: org.id });
      const key = await createApiKey(ctx(org.id), { userId: user.id, organizationId: org.id });
      await settle();
      return { organizationId: org.id, token: key.token };
    },
    async call(method: InjectOptions['method'], url: string, options: { token?: string; body?: unknown } = {}): Promise<{ status: number; body: Body }> {
      const response = await app.inject({
        method,
        url,
        headers: { accept: 'application/json', ...(options.token ? { authorization: `Bearer ${options.token}` } : {}) },
        ...(options.body !== undefined ? { payload: options.body as object } : {}),
      });
      return { status: response.statusCode, body: response.body ? (JSON.parse(response.body) as Body) : {} };
    },
    /** Starts the test-clock advance job, as a restarted service would. */
    async startAdvanceJob() {
      jobs.push(await startBackgroundJobs(services, silent, [testClockAdvanceJob]));
    },
    async stopJobs() {
      await Promise.all(jobs.splice(0).map((j) => j.stop()));
    },
    /** A published offer of a product whose plan is of `type`, made by the import. */
    async offerOf(organizationId: string, slug: string, type: 'recurring' | 'one_time' = 'recurring', options: { trialDays?: number; renew?: string } = {}) {
      const content = offerContent();
      await runImport(
        { command: ctx(organizationId), organizationId, catchUp: settle },
        {
          products: [
            {
              key: `${slug}-product`,
              name: slug,
              plans: [
                type === 'recurring'
                  ? { name: 'monthly', display_name: 'Monthly', renew_interval: options.renew ?? 'P1Y', invoice_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 1900 }] }
                  : { name: 'once', display_name: 'Once', type: 'one_time', renew_interval: null, currency_code: 'EUR', charges: [{ amount: 4900 }] },
              ],
            },
          ],
          offers: [
            { slug, name: content.name, product: `${slug}-product`, plan: type === 'recurring' ? 'monthly' : 'once', theme: content.theme, pages: content.pages, published: true, ...(options.trialDays ? { trial_period_days: options.trialDays } : {}) },
          ],
        },
      );
      await settle();
    },
    async close() {
      await this.stopJobs();
      await app.close();
      await services.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type ClockApp = Awaited<ReturnType<typeof clockApp>>;

/** An organization's import through the harness, and the fields a refused file names. */
export function importer(harness: ClockApp, organizationId: string) {
  const importFile = (file: unknown) => runImport({ command: harness.ctx(organizationId), organizationId, catchUp: harness.settle }, file);
  const refusal = async (file: unknown): Promise<Record<string, string[]>> => {
    try {
      await importFile(file);
    } catch (error) {
      if (error instanceof DomainError) return error.fields ?? {};
      throw error;
    }
    throw new Error('expected a refusal');
  };
  return { importFile, refusal };
}

/** Polls until `check` holds (bounded): for work a background job finishes. */
export async function waitFor<T>(what: string, read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (check(value)) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
