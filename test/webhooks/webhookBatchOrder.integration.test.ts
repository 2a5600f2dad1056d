import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { archiveProduct, type ProductWriteResult } from '../../modules/catalog/productCommands.ts';
import { runImport } from '../../app/import/importFile.ts';
import { WEBHOOK_ATTEMPTS, WEBHOOK_DELIVERIES, type AttemptDoc, type DeliveryDoc } from '../../modules/webhooks/webhookProjection.ts';
import { WEBHOOK_FANOUT_CHECKPOINT } from '../../modules/webhooks/jobs/webhookJob.ts';
import { families, product } from '../catalog/catalogFixtures.ts';
import { answerOkAfter } from '../helpers/receiver.ts';
import { manualClock } from '../helpers/testServer.ts';
import { answer } from './webhookFixtures.ts';
import { closedAfterEach } from './webhookShop.ts';

/**
 * A fan-out batch's deliveries are recorded, then sent by the dispatcher: two events of one
 * resource in the same batch go one after the other, a failure of the first holds the second
 * back until the first succeeds on its retry, a slow call is recorded pending, and a batch
 * handled again sends nothing it recorded.
 */
describe('event webhooks of one fan-out batch', () => {
  const { shop: open, receiver: receiving } = closedAfterEach();

  it("keeps one resource's events in order within one batch: the second waits for the first's retry", { timeout: 60_000 }, async () => {
    const clock = manualClock();
    const shop = await open({ clock });
    const receiver = await receiving((_call, res, index) => (index === 0 ? answer(500)(res) : answer(200)(res)));
    const org = await shop.organization('Batch Order Org');
    const endpoint = await shop.endpoint(org, receiver.url, ['product.published', 'product.archived']);
    const imported = await runImport({ command: shop.ctx(org), organizationId: org, catchUp: shop.catchUp }, { families, products: [product('batched')] });
    const [published] = imported.sections.products as ProductWriteResult[];
    await archiveProduct(shop.ctx(org), published!.product_id);
    await shop.catchUp();

    // Both events are in the log before the job starts: its fan-out meets them in one batch.
    await shop.startJob({ pollMs: 50 });
    const deliveries = async () =>
      (await shop.services.readStore.find<DeliveryDoc>(WEBHOOK_DELIVERIES, { filter: { endpoint_id: endpoint.id }, sort: [['position', 1]] })).map((d) => [d.event_type, d.status, d.attempts]);
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
  });

  it('calls each delivery once while the dispatcher polls beside the fan-out, and records each call', { timeout: 60_000 }, async () => {
    const shop = await open();
    // Slow enough that most deliveries wait for one of the 16 slots while the dispatcher, polling
    // every few milliseconds, finds them still due in the read model.
    const receiver = await receiving(answerOkAfter(40));
    const org = await shop.organization('Once Org');
    await shop.endpoint(org, receiver.url, ['offer.published']);
    const offers = 48;
    for (let i = 0; i < offers; i++) await shop.publish(org, `once-${i}`);
    await shop.catchUp();

    const job = await shop.startJob({ pollMs: 2 });
    const attempts = () => shop.services.readStore.find<AttemptDoc>(WEBHOOK_ATTEMPTS, {});
    await expect.poll(async () => (await attempts()).length, { timeout: 30_000 }).toBe(offers);
    await job.stop();
    const ids = receiver.calls.map((c) => String(c.headers['webhook-id']));
    expect(new Set(ids).size).toBe(offers);
    expect(ids).toHaveLength(offers);
    expect((await attempts()).every((a) => a.attempt === 1 && a.success)).toBe(true);
  });

  it('pokes the dispatcher once the read model shows the deliveries recorded, without waiting for its timer', { timeout: 60_000 }, async () => {
    const shop = await open();
    const receiver = await receiving();
    const org = await shop.organization('Held Org');
    await shop.endpoint(org, receiver.url, ['offer.published']);
    await shop.startJob({ pollMs: 60_000 });
    for (let i = 0; i < 3; i++) await shop.publish(org, `held-${i}`);
    // Poked once the read model shows them (the next timed pass is a minute away).
    await expect.poll(async () => (await shop.services.readStore.find<AttemptDoc>(WEBHOOK_ATTEMPTS, {})).length, { timeout: 20_000 }).toBe(3);
    expect(new Set(receiver.calls.map((c) => String(c.headers['webhook-id']))).size).toBe(3);
  });

  it("records a slow call pending while it is under way, and its outcome when it answers; the other endpoint's is not held back", { timeout: 60_000 }, async () => {
    const shop = await open();
    const held: ServerResponse[] = [];
    // Answers only when the test lets it (well within the 1 s call time-out of WEBHOOK_ENV).
    const slow = await receiving((_call, res) => void held.push(res));
    const fast = await receiving();
    const org = await shop.organization('Slow Org');
    const slowEndpoint = await shop.endpoint(org, slow.url, ['offer.published']);
    const fastEndpoint = await shop.endpoint(org, fast.url, ['offer.published']);
    await shop.startJob({ pollMs: 20 });
    await shop.publish(org, 'slow-1');
    const statusOf = async (endpointId: string) =>
      (await shop.services.readStore.find<DeliveryDoc>(WEBHOOK_DELIVERIES, { filter: { endpoint_id: endpointId } })).map((d) => [d.status, d.attempts]);

    // The fast one recorded sent and the slow one pending while its call is under way; the
    // dispatcher, polling every 20 ms, leaves the claimed call alone.
    await expect.poll(async () => [await statusOf(fastEndpoint.id), await statusOf(slowEndpoint.id)], { timeout: 20_000 }).toEqual([[['succeeded', 1]], [['pending', 0]]]);
    expect(held).toHaveLength(1);
    held[0]!.writeHead(200, { 'content-type': 'text/plain' }).end('late');
    await expect.poll(() => statusOf(slowEndpoint.id), { timeout: 20_000 }).toEqual([['succeeded', 1]]);
    const [delivery] = await shop.services.readStore.find<DeliveryDoc>(WEBHOOK_DELIVERIES, { filter: { endpoint_id: slowEndpoint.id } });
    const attempts = await shop.services.readStore.find<AttemptDoc>(WEBHOOK_ATTEMPTS, { filter: { delivery_id: delivery!.id } });
    expect(attempts).toMatchObject([{ attempt: 1, success: true, response_excerpt: 'late' }]);
    expect(slow.calls).toHaveLength(1);
    expect(fast.calls).toHaveLength(1);
  });

  it('sends nothing again that it recorded when its fan-out starts over from before the records (a crash before its checkpoint moved)', { timeout: 60_000 }, async () => {
    const shop = await open();
    const receiver = await receiving();
    const org = await shop.organization('Replay Org');
    await shop.endpoint(org, receiver.url, ['offer.published']);
    const { readStore, store } = shop.services;
    const succeeded = async () => (await readStore.find<DeliveryDoc>(WEBHOOK_DELIVERIES, { filter: { status: 'succeeded' } })).length;
    const first = await shop.startJob({ pollMs: 50 });
    for (let i = 0; i < 3; i++) await shop.publish(org, `replay-${i}`);
    await expect.poll(succeeded, { timeout: 20_000 }).toBe(3);
    await first.stop();

    // The checkpoint gone: the fan-out reads the log from its start again.
    await readStore.reset(WEBHOOK_FANOUT_CHECKPOINT, []);
    await shop.publish(org, 'replay-3');
    await shop.startJob({ pollMs: 50 });
    const head = (await store.headPosition())!;
    await expect.poll(async () => (await readStore.readCheckpoint(WEBHOOK_FANOUT_CHECKPOINT)) ?? -1, { timeout: 20_000 }).toBeGreaterThanOrEqual(head);
    await expect.poll(succeeded, { timeout: 20_000 }).toBe(4);
    const ids = receiver.calls.map((c) => String(c.headers['webhook-id']));
    expect(ids).toHaveLength(4);
    expect(new Set(ids).size).toBe(4);
  });
});
