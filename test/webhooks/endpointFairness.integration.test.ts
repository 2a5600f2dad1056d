import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { archiveProduct, type ProductWriteResult } from '../../modules/catalog/productCommands.ts';
import { runImport } from '../../app/import/importFile.ts';
import { secretBox } from '../../commands/webhooks/secretBox.ts';
import { SOURCE_STREAM_PREFIXES } from '../../domain/webhooks/eventTypes.ts';
import { WEBHOOK_DELIVERIES, type DeliveryDoc } from '../../projections/webhooks/webhookProjection.ts';
import { InFlight } from '../../webhooks/inFlight.ts';
import { sendPlanned } from '../../webhooks/sendPlanned.ts';
import { fanOut } from '../../webhooks/webhookFanout.ts';
import { families, product } from '../catalog/catalogFixtures.ts';
import type { ReceivedCall } from '../helpers/receiver.ts';
import { manualClock } from '../helpers/testServer.ts';
import { answer } from './webhookFixtures.ts';
import type { WebhookEventType } from '../../domain/webhooks/eventTypes.ts';
import { closedAfterEach, type openWebhookShop } from './webhookShop.ts';

const logger = { error: (o: object, m: string) => console.error(m, o), info: () => undefined };

/** One endpoint's calls at once (webhooks/webhookJob.ts). */
const PER_ENDPOINT = 16;

/**
 * One seller's endpoint that hangs, or a backlog of its deliveries, must not hold back another
 * seller's webhooks: the dispatcher reads due deliveries a page at a time, and pages full of
 * deliveries it cannot send must not stop it; the fan-out records a batch once its calls are
 * made, and must not wait for an endpoint with every call taken.
 */
describe('sellers beside an endpoint that hangs or a backlog', () => {
  const open = closedAfterEach();
  /**
   * A shop with two sellers: `name`, whose receiver answers with `respond` (never, by default),
   * subscribed to `eventTypes`, and another whose receiver answers 200, subscribed to offers.
   */
  const twoSellers = async (name: string, options: { respond?: (call: ReceivedCall, res: ServerResponse) => void; eventTypes?: WebhookEventType[]; shop?: Parameters<typeof openWebhookShop>[0] } = {}) => {
    const shop = await open.shop(options.shop);
    const troubled = await open.receiver(options.respond ?? (() => undefined));
    const healthy = await open.receiver();
    const slow = await shop.organization(name);
    const other = await shop.organization('Other Seller');
    const endpoint = await shop.endpoint(slow, troubled.url, options.eventTypes ?? ['offer.published']);
    await shop.endpoint(other, healthy.url, ['offer.published']);
    return { shop, troubled, healthy, slow, other, endpoint };
  };

  it("the dispatcher reads past a hanging endpoint's backlog to the other endpoints' due deliveries", { timeout: 60_000 }, async () => {
    const { shop, troubled: hanging, healthy, slow, other } = await twoSellers('Hanging Backlog', { shop: { env: { WEBHOOK_TIMEOUT_MS: '120000' } } });
    // More due to the hanging endpoint than a page of the dispatcher holds, all older than the other seller's.
    for (let i = 0; i < 30; i++) await shop.publish(slow, `backlog-${i}`);
    await shop.publish(other, 'other-1');
    await shop.catchUp();

    // The fan-out sends nothing itself: every delivery is found due by the dispatcher, 20 a page.
    await shop.startJob({ pollMs: 20, direct: false, dueBatch: 20 });
    await expect.poll(() => healthy.calls.length, { timeout: 20_000 }).toBe(1);
    expect(JSON.parse(healthy.calls[0]!.body)).toMatchObject({ type: 'offer.published', organization_id: other });
    // The hanging endpoint has its share of calls under way, no more.
    await expect.poll(() => hanging.calls.length, { timeout: 20_000 }).toBe(PER_ENDPOINT);
  });

  it('the dispatcher reads past a page of deliveries held back behind their resource’s retry', { timeout: 60_000 }, async () => {
    // Time stands still: the failed deliveries' retries never fall due in this test.
    const { shop, troubled: failing, healthy, slow: catalog, other } = await twoSellers('Catalog Churn', {
      respond: (_call, res) => answer(503)(res),
      eventTypes: ['product.published', 'product.archived'],
      shop: { clock: manualClock() },
    });
    // Six products published, then archived: each archive waits behind its product's failed publish.
    const imported = await runImport(
      { command: shop.ctx(catalog), organizationId: catalog, catchUp: shop.catchUp },
      { families, products: Array.from({ length: 6 }, (_, i) => product(`churn-${i}`)) },
    );
    for (const p of imported.sections.products as ProductWriteResult[]) await archiveProduct(shop.ctx(catalog), p.product_id);
    await shop.publish(other, 'behind-the-churn');
    await shop.catchUp();

    await shop.startJob({ pollMs: 20, direct: false, dueBatch: 4 });
    await expect.poll(() => healthy.calls.length, { timeout: 20_000 }).toBe(1);
    // Each publish was tried once, and no archive went ahead of its publish.
    expect(failing.calls.map((c) => JSON.parse(c.body).type)).toEqual(Array(6).fill('product.published'));
  });

  it('a fan-out batch is recorded at once when an endpoint in it has every call taken, its deliveries left pending', { timeout: 60_000 }, async () => {
    const { shop, troubled: hanging, healthy, slow, other, endpoint: taken } = await twoSellers('Every Call Taken');
    const from = await shop.services.store.headPosition();
    await shop.publish(slow, 'taken-1');
    await shop.publish(other, 'free-1');
    await shop.catchUp();

    // The slow seller's endpoint has all its calls at once taken, as by an earlier batch's calls
    // to a receiver that hangs: they end when the test says so.
    const inFlight = new InFlight(64, 16);
    let end!: () => void;
    const ended = new Promise<void>((r) => (end = r));
    const holding = Array.from({ length: 16 }, () => inFlight.slot(taken.id, () => ended));
    const events = await shop.services.store.readAll({ after: from, limit: 1000, streamPrefixes: SOURCE_STREAM_PREFIXES });
    const planned = (await fanOut(shop.services, events))!;
    expect(planned.map((d) => d.endpointId)).toContain(taken.id);
    let recorded: Awaited<ReturnType<typeof sendPlanned>> | null = null;
    const options = { box: secretBox(shop.services.secrets.jwt), logger, signal: new AbortController().signal, concurrency: 64, perEndpoint: 16, inFlight };
    // A batch would wait a minute for its calls: it has none under way to wait for.
    void sendPlanned(shop.services, planned, { ...options, waitMs: 60_000 }).then((r) => (recorded = r));
    await expect.poll(() => recorded, { timeout: 20_000 }).not.toBeNull();
    expect(recorded!.pending).toBe(1);
    expect(healthy.calls).toHaveLength(1);
    expect(hanging.calls).toHaveLength(0);
    await shop.catchUp();
    const [left] = await shop.services.readStore.find<DeliveryDoc>(WEBHOOK_DELIVERIES, { filter: { endpoint_id: taken.id } });
    expect(left).toMatchObject({ status: 'pending', attempts: 0 });
    end();
    await Promise.all(holding);
  });

  it('a fan-out batch is recorded once only calls that hang are left, without waiting its whole time for them', { timeout: 60_000 }, async () => {
    const { shop, troubled: hanging, healthy, slow, other, endpoint: stuck } = await twoSellers('Hangs Mid-Batch', { shop: { env: { WEBHOOK_TIMEOUT_MS: '120000' } } });
    // In the log before the job starts: one batch, with a call that hangs.
    await shop.publish(slow, 'hangs-1');
    await shop.publish(other, 'first');
    await shop.catchUp();

    // A batch may wait a minute for its calls, but not for calls that have stopped making progress.
    await shop.startJob({ pollMs: 50, batchWaitMs: 60_000 });
    await expect.poll(() => healthy.calls.length, { timeout: 20_000 }).toBe(1);
    await expect.poll(() => hanging.calls.length, { timeout: 20_000 }).toBe(1);
    await shop.publish(other, 'second');
    await expect.poll(() => healthy.calls.length, { timeout: 20_000 }).toBe(2);
    const [left] = await shop.services.readStore.find<DeliveryDoc>(WEBHOOK_DELIVERIES, { filter: { endpoint_id: stuck.id } });
    expect(left).toMatchObject({ status: 'pending', attempts: 0 });
  });
});
