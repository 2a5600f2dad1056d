import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { archiveProduct, type ProductWriteResult } from '../../modules/catalog/productCommands.ts';
import { runImport } from '../../app/import/importFile.ts';
import { WEBHOOK_DELIVERIES, type DeliveryDoc } from '../../modules/webhooks/webhookProjection.ts';
import { families, product } from '../catalog/catalogFixtures.ts';
import type { ReceivedCall } from '../helpers/receiver.ts';
import { manualClock } from '../helpers/testServer.ts';
import { answer } from './webhookFixtures.ts';
import type { WebhookEventType } from '../../modules/webhooks/domain/eventTypes.ts';
import { closedAfterEach, type openWebhookShop } from './webhookShop.ts';

/** One endpoint's calls at once (modules/webhooks/jobs/webhookJob.ts). */
const PER_ENDPOINT = 16;

/**
 * One seller's endpoint that hangs, or a backlog of its deliveries, must not hold back another
 * endpoint's webhooks, on the same origin or another: the dispatcher reads due deliveries a page
 * at a time, and pages full of deliveries it cannot send must not stop it.
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

    // Every delivery is found due by the dispatcher, 20 a page.
    await shop.startJob({ pollMs: 20, dueBatch: 20 });
    await expect.poll(() => healthy.calls.length, { timeout: 20_000 }).toBe(1);
    expect(JSON.parse(healthy.calls[0]!.body)).toMatchObject({ type: 'offer.published', organization_id: other });
    // The hanging endpoint has its share of calls under way, no more.
    await expect.poll(() => hanging.calls.length, { timeout: 20_000 }).toBe(PER_ENDPOINT);
  });

  it('an endpoint that hangs does not delay another endpoint on the same origin', { timeout: 60_000 }, async () => {
    const shop = await open.shop({ env: { WEBHOOK_TIMEOUT_MS: '120000' } });
    // One host and port: a path that never answers, and one that answers at once.
    const receiver = await open.receiver((call, res) => (call.url === '/hangs' ? undefined : answer(200)(res)));
    const slow = await shop.organization('Same Origin Hangs');
    const other = await shop.organization('Same Origin Answers');
    await shop.endpoint(slow, `${receiver.url}/hangs`, ['offer.published']);
    await shop.endpoint(other, `${receiver.url}/answers`, ['offer.published']);
    await shop.startJob({ pollMs: 20 });
    const to = (path: string) => receiver.calls.filter((c) => c.url === path);

    for (let i = 0; i < PER_ENDPOINT + 4; i++) await shop.publish(slow, `hangs-${i}`);
    await expect.poll(() => to('/hangs').length, { timeout: 20_000 }).toBe(PER_ENDPOINT);
    await shop.publish(other, 'answers-1');
    await expect.poll(() => to('/answers').length, { timeout: 20_000 }).toBe(1);
    expect(JSON.parse(to('/answers')[0]!.body)).toMatchObject({ type: 'offer.published', organization_id: other });
    // The hanging endpoint still has its share under way, no more.
    expect(to('/hangs')).toHaveLength(PER_ENDPOINT);
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

    await shop.startJob({ pollMs: 20, dueBatch: 4 });
    await expect.poll(() => healthy.calls.length, { timeout: 20_000 }).toBe(1);
    // The publishes' calls run beside the healthy one, so some may still be on their way.
    await expect.poll(() => failing.calls.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(6);
    // Each publish was tried once, and no archive went ahead of its publish.
    expect(failing.calls.map((c) => JSON.parse(c.body).type)).toEqual(Array(6).fill('product.published'));
  });

  it('records a delivery whose call hangs as pending, and sends the next ones to other endpoints meanwhile', { timeout: 60_000 }, async () => {
    const { shop, troubled: hanging, healthy, slow, other, endpoint: stuck } = await twoSellers('Hangs Mid-Batch', { shop: { env: { WEBHOOK_TIMEOUT_MS: '120000' } } });
    // In the log before the job starts: one fan-out batch, with a call that hangs.
    await shop.publish(slow, 'hangs-1');
    await shop.publish(other, 'first');
    await shop.catchUp();

    await shop.startJob({ pollMs: 50 });
    await expect.poll(() => healthy.calls.length, { timeout: 20_000 }).toBe(1);
    await expect.poll(() => hanging.calls.length, { timeout: 20_000 }).toBe(1);
    await shop.publish(other, 'second');
    await expect.poll(() => healthy.calls.length, { timeout: 20_000 }).toBe(2);
    const [left] = await shop.services.readStore.find<DeliveryDoc>(WEBHOOK_DELIVERIES, { filter: { endpoint_id: stuck.id } });
    expect(left).toMatchObject({ status: 'pending', attempts: 0 });
  });
});
