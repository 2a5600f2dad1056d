import { mkdtempSync, rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { compose } from '../../app/compose.ts';
import { loadConfig } from '../../app/config.ts';
import { archiveProduct, type ProductWriteResult } from '../../commands/catalog/productCommands.ts';
import type { CommandContext } from '../../commands/handleCommand.ts';
import { createOrganization } from '../../commands/identity/identityCommands.ts';
import { runImport } from '../../commands/import/importFile.ts';
import { secretBox } from '../../commands/webhooks/secretBox.ts';
import { createWebhookEndpoint } from '../../commands/webhooks/webhookEndpointCommands.ts';
import { WEBHOOK_DELIVERIES, type DeliveryDoc } from '../../projections/webhooks/webhookProjection.ts';
import { WEBHOOK_FANOUT_CHECKPOINT, webhookJob } from '../../webhooks/webhookJob.ts';
import { publishOffer, upsertOffer } from '../../commands/checkout/offerCommands.ts';
import { WEBHOOK_ATTEMPTS, type AttemptDoc } from '../../projections/webhooks/webhookProjection.ts';
import { families, product } from '../catalog/catalogFixtures.ts';
import { offerContent } from '../checkout/checkoutFixtures.ts';
import { answerOkAfter, startReceiver } from '../helpers/receiver.ts';
import { manualClock } from '../helpers/testServer.ts';
import { answer, WEBHOOK_ENV } from './webhookFixtures.ts';

const logger = { error: (o: object, m: string) => console.error(m, o), info: () => undefined };

/**
 * The deliveries a fan-out batch plans are sent from memory, then recorded: two events of one
 * resource in the same batch still go one after the other, a failure of the first holds the
 * second back until the first succeeds on its retry, a slow call is recorded pending, and a batch
 * handled again sends nothing it recorded.
 */
describe('event webhooks sent straight from the fan-out', () => {
  const dataDirs: string[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'commerce-hooks-batch-'));
    dataDirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
  });
  /** Publishes an offer of the organization: one `offer.published` event. */
  const publish = async (ctx: CommandContext, organizationId: string, slug: string) => {
    const offer = await upsertOffer(ctx, { organizationId, slug, ...offerContent() });
    await publishOffer(ctx, offer.uuid);
  };
  const contextOf = (services: { store: CommandContext['store'] }, clock: () => number) => (organizationId: string | null): CommandContext => ({
    store: services.store,
    metadata: { correlation_id: 'test', actor: { type: 'cli' }, organization_id: organizationId, occurred_at: Math.floor(clock() / 1000) },
  });

  it("keeps one resource's events in order within one batch: the second waits for the first's retry", { timeout: 60_000 }, async () => {
    const clock = manualClock();
    const services = await compose(loadConfig({ DATA_DIR: tempDir(), LOG_LEVEL: 'silent', ...WEBHOOK_ENV }), { runProjections: true, clock, logger });
    const receiver = await startReceiver((_call, res, index) => (index === 0 ? answer(500)(res) : answer(200)(res)));
    let job: { stop(): Promise<void> } | undefined;
    try {
      const ctx = contextOf(services, clock);
      const org = await createOrganization(ctx(null), { name: 'Batch Order Org', timezone: 'UTC' });
      const endpoint = await createWebhookEndpoint(ctx(org.id), secretBox(services.secrets.jwt), {
        organizationId: org.id,
        url: receiver.url,
        eventTypes: ['product.published', 'product.archived'],
      });
      const catchUp = async () => {
        const head = await services.store.headPosition();
        if (head !== null) await services.projections!.waitFor(head, 30_000);
      };
      const imported = await runImport({ command: ctx(org.id), organizationId: org.id, catchUp }, { families, products: [product('batched')] });
      const [published] = imported.sections.products as ProductWriteResult[];
      await archiveProduct(ctx(org.id), published!.product_id);
      await catchUp();

      // Both events are in the log before the job starts: its fan-out meets them in one batch.
      job = await webhookJob({ pollMs: 50 }).start(services, logger);
      const deliveries = async () =>
        (await services.readStore.find<DeliveryDoc>(WEBHOOK_DELIVERIES, { filter: { endpoint_id: endpoint.id }, sort: [['position', 1]] })).map((d) => [d.event_type, d.status, d.attempts]);
      await expect.poll(deliveries, { timeout: 20_000 }).toEqual([
        ['product.published', 'pending', 1],
        ['product.archived', 'pending', 0],
      ]);
      expect(receiver.calls).toHaveLength(1);

      clock.advance(5_000);
      await expect.poll(() => receiver.calls.length, { timeout: 20_000 }).toBe(3);
      expect(receiver.calls.map((c) => JSON.parse(c.body).type)).toEqual(['product.published', 'product.published', 'product.archived']);
      await expect.poll(deliveries, { timeout: 20_000 }).toEqual([
        ['product.published', 'succeeded', 2],
        ['product.archived', 'succeeded', 1],
      ]);
    } finally {
      await job?.stop();
      await services.close();
      await receiver.close();
    }
  });

  it('calls each delivery once while the dispatcher polls beside the fan-out, and records each call', { timeout: 60_000 }, async () => {
    const clock = Date.now;
    const services = await compose(loadConfig({ DATA_DIR: tempDir(), LOG_LEVEL: 'silent', ...WEBHOOK_ENV }), { runProjections: true, logger });
    // Slow enough that most deliveries wait for one of the 16 slots while the dispatcher, polling
    // every few milliseconds, finds them due in the read model.
    const receiver = await startReceiver(answerOkAfter(40));
    let job: { stop(): Promise<void> } | undefined;
    try {
      const ctx = contextOf(services, clock);
      const org = await createOrganization(ctx(null), { name: 'Once Org', timezone: 'UTC' });
      await createWebhookEndpoint(ctx(org.id), secretBox(services.secrets.jwt), { organizationId: org.id, url: receiver.url, eventTypes: ['offer.published'] });
      const offers = 48;
      for (let i = 0; i < offers; i++) {
        await publish(ctx(org.id), org.id, `once-${i}`);
      }
      const head = await services.store.headPosition();
      await services.projections!.waitFor(head!, 30_000);

      job = await webhookJob({ pollMs: 2 }).start(services, logger);
      await expect.poll(async () => (await services.readStore.find<AttemptDoc>(WEBHOOK_ATTEMPTS, {})).length, { timeout: 30_000 }).toBe(offers);
      await job.stop();
      job = undefined;
      const ids = receiver.calls.map((c) => String(c.headers['webhook-id']));
      expect(new Set(ids).size).toBe(offers);
      expect(ids).toHaveLength(offers);
      const attempts = await services.readStore.find<AttemptDoc>(WEBHOOK_ATTEMPTS, {});
      expect(attempts.every((a) => a.attempt === 1 && a.success)).toBe(true);
    } finally {
      await job?.stop();
      await services.close();
      await receiver.close();
    }
  });

  it('leaves every delivery to the dispatcher when the fan-out sends none itself, which delivers them all the same', { timeout: 60_000 }, async () => {
    const services = await compose(loadConfig({ DATA_DIR: tempDir(), LOG_LEVEL: 'silent', ...WEBHOOK_ENV }), { runProjections: true, logger });
    const receiver = await startReceiver();
    let job: { stop(): Promise<void> } | undefined;
    try {
      const ctx = contextOf(services, Date.now);
      const org = await createOrganization(ctx(null), { name: 'Held Org', timezone: 'UTC' });
      await createWebhookEndpoint(ctx(org.id), secretBox(services.secrets.jwt), { organizationId: org.id, url: receiver.url, eventTypes: ['offer.published'] });
      // Nothing sent from the fan-out: every delivery goes through the read model and the dispatcher.
      job = await webhookJob({ pollMs: 60_000, direct: false }).start(services, logger);
      for (let i = 0; i < 3; i++) {
        await publish(ctx(org.id), org.id, `held-${i}`);
      }
      // Poked once the read model shows them (the next timed pass is a minute away).
      await expect.poll(async () => (await services.readStore.find<AttemptDoc>(WEBHOOK_ATTEMPTS, {})).length, { timeout: 20_000 }).toBe(3);
      expect(new Set(receiver.calls.map((c) => String(c.headers['webhook-id']))).size).toBe(3);
    } finally {
      await job?.stop();
      await services.close();
      await receiver.close();
    }
  });

  it("records a slow call pending once its batch stops waiting, and its outcome when it answers; the other endpoint's is not held back", { timeout: 60_000 }, async () => {
    const services = await compose(loadConfig({ DATA_DIR: tempDir(), LOG_LEVEL: 'silent', ...WEBHOOK_ENV }), { runProjections: true, logger });
    const held: ServerResponse[] = [];
    // Answers only when the test lets it (well within the 1 s call time-out of WEBHOOK_ENV).
    const slow = await startReceiver((_call, res) => void held.push(res));
    const fast = await startReceiver();
    let job: { stop(): Promise<void> } | undefined;
    try {
      const ctx = contextOf(services, Date.now);
      const org = await createOrganization(ctx(null), { name: 'Slow Org', timezone: 'UTC' });
      const box = secretBox(services.secrets.jwt);
      const slowEndpoint = await createWebhookEndpoint(ctx(org.id), box, { organizationId: org.id, url: slow.url, eventTypes: ['offer.published'] });
      const fastEndpoint = await createWebhookEndpoint(ctx(org.id), box, { organizationId: org.id, url: fast.url, eventTypes: ['offer.published'] });
      job = await webhookJob({ pollMs: 20, batchWaitMs: 50 }).start(services, logger);
      await publish(ctx(org.id), org.id, 'slow-1');
      const statusOf = async (endpointId: string) =>
        (await services.readStore.find<DeliveryDoc>(WEBHOOK_DELIVERIES, { filter: { endpoint_id: endpointId } })).map((d) => [d.status, d.attempts]);

      // The batch recorded the fast one sent and the slow one pending while its call is under way;
      // the dispatcher, polling every 20 ms, leaves the claimed call alone.
      await expect.poll(async () => [await statusOf(fastEndpoint.id), await statusOf(slowEndpoint.id)], { timeout: 20_000 }).toEqual([[['succeeded', 1]], [['pending', 0]]]);
      expect(held).toHaveLength(1);
      held[0]!.writeHead(200, { 'content-type': 'text/plain' }).end('late');
      await expect.poll(() => statusOf(slowEndpoint.id), { timeout: 20_000 }).toEqual([['succeeded', 1]]);
      const [delivery] = await services.readStore.find<DeliveryDoc>(WEBHOOK_DELIVERIES, { filter: { endpoint_id: slowEndpoint.id } });
      const attempts = await services.readStore.find<AttemptDoc>(WEBHOOK_ATTEMPTS, { filter: { delivery_id: delivery!.id } });
      expect(attempts).toMatchObject([{ attempt: 1, success: true, response_excerpt: 'late' }]);
      expect(slow.calls).toHaveLength(1);
      expect(fast.calls).toHaveLength(1);
    } finally {
      await job?.stop();
      await services.close();
      await slow.close();
      await fast.close();
    }
  });

  it('sends nothing again that it recorded when its fan-out starts over from before the records (a crash before its checkpoint moved)', { timeout: 60_000 }, async () => {
    const services = await compose(loadConfig({ DATA_DIR: tempDir(), LOG_LEVEL: 'silent', ...WEBHOOK_ENV }), { runProjections: true, logger });
    const receiver = await startReceiver();
    let job: { stop(): Promise<void> } | undefined;
    try {
      const ctx = contextOf(services, Date.now);
      const org = await createOrganization(ctx(null), { name: 'Replay Org', timezone: 'UTC' });
      await createWebhookEndpoint(ctx(org.id), secretBox(services.secrets.jwt), { organizationId: org.id, url: receiver.url, eventTypes: ['offer.published'] });
      const succeeded = async () => (await services.readStore.find<DeliveryDoc>(WEBHOOK_DELIVERIES, { filter: { status: 'succeeded' } })).length;
      job = await webhookJob({ pollMs: 50 }).start(services, logger);
      for (let i = 0; i < 3; i++) await publish(ctx(org.id), org.id, `replay-${i}`);
      await expect.poll(succeeded, { timeout: 20_000 }).toBe(3);
      await job.stop();

      // The checkpoint gone: the fan-out reads the log from its start again.
      await services.readStore.reset(WEBHOOK_FANOUT_CHECKPOINT, []);
      await publish(ctx(org.id), org.id, 'replay-3');
      job = await webhookJob({ pollMs: 50 }).start(services, logger);
      const head = (await services.store.headPosition())!;
      await expect.poll(async () => (await services.readStore.readCheckpoint(WEBHOOK_FANOUT_CHECKPOINT)) ?? -1, { timeout: 20_000 }).toBeGreaterThanOrEqual(head);
      await expect.poll(succeeded, { timeout: 20_000 }).toBe(4);
      const ids = receiver.calls.map((c) => String(c.headers['webhook-id']));
      expect(ids).toHaveLength(4);
      expect(new Set(ids).size).toBe(4);
    } finally {
      await job?.stop();
      await services.close();
      await receiver.close();
    }
  });
});
