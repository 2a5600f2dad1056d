import { afterEach, describe, expect, it } from 'vitest';
import { archiveProduct, type ProductWriteResult } from '../../commands/catalog/productCommands.ts';
import { runImport } from '../../commands/import/importFile.ts';
import { families, product } from '../catalog/catalogFixtures.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { manualClock } from '../helpers/testServer.ts';
import { answer } from './webhookFixtures.ts';
import { openWebhookShop } from './webhookShop.ts';

/** One endpoint's calls at once (webhooks/webhookJob.ts). */
const PER_ENDPOINT = 16;

/**
 * The dispatcher reads the oldest due deliveries a page at a time: an endpoint that hangs, with
 * more due than a page holds, must not fill every page with deliveries it cannot take, or the
 * other sellers' retries and resends wait until its backlog is gone.
 */
describe('the dispatcher beside an endpoint that hangs with a backlog', () => {
  const closing: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const close of closing.splice(0).reverse()) await close();
  });

  it("reads past that endpoint's backlog to the other endpoints' due deliveries", { timeout: 60_000 }, async () => {
    const shop = await openWebhookShop({ env: { WEBHOOK_TIMEOUT_MS: '120000' } });
    const hanging = await startReceiver(() => undefined);
    const healthy = await startReceiver();
    closing.push(() => shop.close(), () => hanging.close(), () => healthy.close());
    const slow = await shop.organization('Hanging Backlog');
    const other = await shop.organization('Other Seller');
    await shop.endpoint(slow, hanging.url, ['offer.published']);
    await shop.endpoint(other, healthy.url, ['offer.published']);
    // More due to the hanging endpoint than a page of the dispatcher holds, all older than the other seller's.
    for (let i = 0; i < 30; i++) await shop.publish(slow, `backlog-${i}`);
    await shop.publish(other, 'other-1');
    await shop.catchUp();

    // The fan-out sends nothing itself: every delivery is found due by the dispatcher, 20 a page.
    await shop.startJob({ pollMs: 20, direct: false, dueBatch: 20 });
    await expect.poll(() => healthy.calls.length, { timeout: 20_000 }).toBe(1);
    expect(JSON.parse(healthy.calls[0]!.body)).toMatchObject({ type: 'offer.published', organization_id: other });
    // The hanging endpoint has its share of calls under way, no more.
    expect(hanging.calls).toHaveLength(PER_ENDPOINT);
  });

  it('reads past a page of deliveries held back behind their resource’s retry', { timeout: 60_000 }, async () => {
    // Time stands still: the failed deliveries' retries never fall due in this test.
    const shop = await openWebhookShop({ clock: manualClock() });
    const failing = await startReceiver((_call, res) => answer(503)(res));
    const healthy = await startReceiver();
    closing.push(() => shop.close(), () => failing.close(), () => healthy.close());
    const catalog = await shop.organization('Catalog Churn');
    const other = await shop.organization('Other Seller');
    await shop.endpoint(catalog, failing.url, ['product.published', 'product.archived']);
    await shop.endpoint(other, healthy.url, ['offer.published']);
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
});
