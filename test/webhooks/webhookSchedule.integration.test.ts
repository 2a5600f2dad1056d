import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveProduct } from '../../modules/catalog/productCommands.ts';
import { WEBHOOK_ENDPOINTS, type EndpointDoc } from '../../modules/webhooks/webhookProjection.ts';
import { families, importProducts, product, productResults } from '../catalog/catalogFixtures.ts';
import { makeOffer } from '../checkout/checkoutFixtures.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';
import { answer, attemptsOf, deliveriesOf, fannedOut, subscribe, WEBHOOK_ENV } from './webhookFixtures.ts';

/** Time-driven behaviour, by an injected clock: each test moves it, so each has its own server. */
describe('event webhook schedule', () => {
  let server: TestServer;
  const clock = manualClock();
  beforeAll(async () => {
    server = await startTestServer({ clock, env: WEBHOOK_ENV });
  });
  afterAll(() => server.close({ remove: true }));

  it("keeps one resource's events in order: a later event waits while an earlier one is being retried", { timeout: 60_000 }, async () => {
    const org = await server.identity();
    const r = await startReceiver((_call, res, index) => (index === 0 ? answer(500)(res) : answer(200)(res)));
    try {
      const endpoint = await subscribe(server, org.organizationId, r.url, ['product.published', 'product.archived']);
      await server.settle();
      const [imported] = productResults(await importProducts(server, org.organizationId, { families, products: [product('ordered')] }));
      await expect.poll(() => r.calls.length, { timeout: 20_000 }).toBe(1);
      await archiveProduct(server.cliContext(org.organizationId), imported!.product_id);
      await fannedOut(server);
      // The failure recorded (its retry due 5 s after it), the later event not attempted.
      await expect.poll(async () => (await deliveriesOf(server, endpoint.id)).map((d) => [d.event_type, d.status, d.attempts]), { timeout: 20_000 }).toEqual([
        ['product.published', 'pending', 1],
        ['product.archived', 'pending', 0],
      ]);

      clock.advance(5_000);
      await expect.poll(() => r.calls.length, { timeout: 20_000 }).toBe(3);
      expect(r.calls.map((c) => JSON.parse(c.body).type)).toEqual(['product.published', 'product.published', 'product.archived']);
      const archived = JSON.parse(r.calls[2]!.body);
      expect(archived.data.object).toMatchObject({ id: imported!.id, status: 'archived' });
      // The published event shows the product as it was then, not as it is now.
      expect(JSON.parse(r.calls[1]!.body).data.object).toMatchObject({ id: imported!.id, status: 'active', archived_at: null });
    } finally {
      await r.close();
    }
  });

  it('disables an endpoint that has failed for five days, and sends it nothing more', { timeout: 60_000 }, async () => {
    const org = await server.identity();
    const down = await startReceiver((_call, res) => answer(502, 'bad gateway')(res));
    try {
      const endpoint = await subscribe(server, org.organizationId, down.url, ['offer.published']);
      await server.settle();
      await makeOffer(server, org.organizationId);
      await expect.poll(() => down.calls.length, { timeout: 20_000 }).toBe(1);
      await fannedOut(server);
      // Recorded once the call has returned (the receiver may see it first).
      await expect.poll(async () => (await server.services.readStore.get<EndpointDoc>(WEBHOOK_ENDPOINTS, endpoint.id))?.failing_since ?? null, { timeout: 20_000 }).not.toBeNull();

      clock.advance(5 * 24 * 3600 * 1000);
      await expect.poll(async () => (await server.services.readStore.get<EndpointDoc>(WEBHOOK_ENDPOINTS, endpoint.id))?.disabled_reason, { timeout: 20_000 }).toBe('failing');
      expect(down.calls).toHaveLength(2);
      const disabled = (await server.services.store.readStream(`webhook_endpoint-${endpoint.id}`)).find((e) => e.type === 'WebhookEndpointDisabled');
      expect(disabled?.data).toMatchObject({ reason: 'failing' });

      // Its next retry is abandoned rather than sent, and new events make no delivery for it.
      const [delivery] = await deliveriesOf(server, endpoint.id);
      clock.advance(300_000);
      await expect.poll(async () => (await deliveriesOf(server, endpoint.id))[0]?.status, { timeout: 20_000 }).toBe('failed');
      expect(await attemptsOf(server, delivery!.id)).toHaveLength(2);
      await makeOffer(server, org.organizationId);
      await fannedOut(server);
      expect(await deliveriesOf(server, endpoint.id)).toHaveLength(1);
      expect(down.calls).toHaveLength(2);
    } finally {
      await down.close();
    }
  });
});
