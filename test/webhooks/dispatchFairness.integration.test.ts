import { afterEach, describe, expect, it } from 'vitest';
import { startReceiver } from '../helpers/receiver.ts';
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
});
