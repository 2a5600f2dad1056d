import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compose } from '../../app/compose.ts';
import { loadConfig } from '../../platform/runtime/config.ts';
import type { Clock } from '../../platform/runtime/services.ts';
import { publishOffer, upsertOffer } from '../../modules/checkout/offerCommands.ts';
import type { CommandContext } from '../../platform/es/handleCommand.ts';
import { createOrganization } from '../../modules/identity/identityCommands.ts';
import { secretBox } from '../../platform/lib/secretBox.ts';
import { createWebhookEndpoint } from '../../modules/webhooks/webhookEndpointCommands.ts';
import type { WebhookEventType } from '../../modules/webhooks/domain/eventTypes.ts';
import { afterEach } from 'vitest';
import { webhookJob, type WebhookJobOptions } from '../../modules/webhooks/jobs/webhookJob.ts';
import { offerContent } from '../checkout/checkoutFixtures.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { WEBHOOK_ENV } from './webhookFixtures.ts';

const logger = { error: (o: object, m: string) => console.error(m, o), info: () => undefined };

/**
 * The service's parts on a fresh SQLite data directory, with no HTTP server and no webhook job
 * running, for tests that start the job themselves (with their own options) and write through
 * the command layer. `close` stops the jobs started here, closes the service and removes its data.
 */
export async function openWebhookShop(options: { clock?: Clock; env?: Record<string, string> } = {}) {
  const dataDir = mkdtempSync(join(tmpdir(), 'commerce-hooks-'));
  const clock = options.clock ?? Date.now;
  const services = await compose(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...WEBHOOK_ENV, ...options.env }), { runProjections: true, clock, logger });
  const box = secretBox(services.secrets.jwt);
  const jobs: Array<{ stop(): Promise<void> }> = [];
  const ctx = (organizationId: string | null): CommandContext => ({
    store: services.store,
    metadata: { correlation_id: 'test', actor: { type: 'cli' }, organization_id: organizationId, occurred_at: Math.floor(clock() / 1000) },
  });
  return {
    services,
    ctx,
    organization: async (name: string) => (await createOrganization(ctx(null), { name, timezone: 'UTC' })).id,
    endpoint: (organizationId: string, url: string, eventTypes: WebhookEventType[]) => createWebhookEndpoint(ctx(organizationId), box, { organizationId, url, eventTypes }),
    /** Publishes an offer of the organization: one `offer.published` event. */
    async publish(organizationId: string, slug: string) {
      const offer = await upsertOffer(ctx(organizationId), { organizationId, slug, ...offerContent() });
      await publishOffer(ctx(organizationId), offer.uuid);
    },
    /** Resolves once the projections have applied the whole log. */
    async catchUp() {
      const head = await services.store.headPosition();
      if (head !== null) await services.projections!.waitFor(head, 30_000);
    },
    /** Starts a webhook job; `close` stops it, if the test has not. */
    async startJob(jobOptions: WebhookJobOptions) {
      const started = await webhookJob(jobOptions).start(services, logger);
      let stopping: Promise<void> | null = null;
      const job = { stop: () => (stopping ??= started.stop()) };
      jobs.push(job);
      return job;
    },
    async close() {
      await Promise.all(jobs.map((j) => j.stop()));
      await services.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * For a describe block: the shops and receivers opened through it are closed after each test,
 * the receivers before the shop.
 */
export function closedAfterEach() {
  const closing: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });
  return {
    async shop(options?: Parameters<typeof openWebhookShop>[0]) {
      const shop = await openWebhookShop(options);
      closing.push(() => shop.close());
      return shop;
    },
    async receiver(...args: Parameters<typeof startReceiver>) {
      const receiver = await startReceiver(...args);
      closing.push(() => receiver.close());
      return receiver;
    },
  };
}
