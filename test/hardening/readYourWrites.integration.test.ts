import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStores, openVault } from '../../app/compose.ts';
import { personalFields } from '../../app/personalFields.ts';
import { sealPersonalData } from '../../platform/privacy/index.ts';
import { loadConfig } from '../../platform/runtime/config.ts';
import { allProjections } from '../../app/allProjections.ts';
import { startProjections } from '../../platform/es/projectionRunner.ts';
import { GOOD_CARD, json } from '../checkout/checkoutFixtures.ts';
import { signedInPerson, type ManageClient } from '../helpers/manageClient.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

type Json = Record<string, unknown>;

/**
 * The production topology on one SQLite file: the API process runs no projections and waits on
 * the checkpoints a projection worker stores beside its writes (platform/es/checkpointWatcher.ts);
 * the worker is a second set of stores with its own runner, which the test stops and starts. With
 * it stopped, the read models lag behind every write for as long as the test likes.
 */
async function projectionWorker(dataDir: string) {
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const stores = await openStores(config);
  // As compose() opens it: buyers' personal fields open with their keys.
  const store = sealPersonalData(stores.store, await openVault(config), personalFields);
  const runner = await startProjections(store, stores.readStore, allProjections, { error: (o, m) => console.error(m, o), info: () => undefined });
  return {
    async stop() {
      await runner.stop();
      await store.close();
      await stores.readStore.close();
    },
  };
}

const productBody = (key: string) => ({
  key,
  name: key,
  plans: [{ name: 'monthly', display_name: 'Monthly', renew_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 1500 }] }],
});
const offerBody = (slug: string, product: string) => ({
  slug,
  name: `Offer ${slug}`,
  product,
  plan: 'monthly',
  theme: { primary_color: '#112233' },
  pages: [{ id: 'main', type: 'checkout', title: 'Checkout', blocks: [{ type: 'price' }] }],
});

describe('read-your-writes with the projections lagging (API and projection worker apart)', () => {
  let server: TestServer;
  let worker: Awaited<ReturnType<typeof projectionWorker>> | null = null;
  let owner: ManageClient;
  let token: string;

  const startWorker = async () => {
    worker ??= await projectionWorker(server.dataDir);
  };
  const stopWorker = async () => {
    await worker?.stop();
    worker = null;
  };
  /**
   * A request sent while the worker is stopped; once it has been answered, or is waiting for the
   * read models, the worker starts: what the request answers. (Started at once, the worker could
   * catch up before the request is read, and an answer that did not wait would pass unseen.)
   */
  const whileWorkerStarts = async <T>(request: Promise<T>): Promise<T> => {
    let settled = false;
    const answer = request.finally(() => {
      settled = true;
    });
    // Background jobs may be waiting already: this request's wait is one more.
    const runner = server.services.projections!;
    const before = runner.waiting();
    while (!settled && runner.waiting() <= before) await new Promise((r) => setTimeout(r, 2));
    await startWorker();
    return answer;
  };

  beforeAll(async () => {
    server = await startTestServer({ runProjections: false, watchProjections: true });
    await startWorker();
    const person = await signedInPerson(server);
    owner = person.client;
    token = (await owner.json<{ token: string }>('POST', '/manage/api/api-keys', { name: 'main' })).body.token;
    await server.settle();
  });
  afterAll(async () => {
    await stopWorker();
    await server.close({ remove: true });
  });

  it('publishes a product and an offer right after creating them, deciding on their streams', async () => {
    await stopWorker();
    const product = await owner.json<{ id: string }>('POST', '/manage/api/products', productBody('now-pro'));
    expect(product.status).toBe(201);
    const published = await owner.json<Json>('POST', `/manage/api/products/${product.body.id}/publish`);
    expect(published.status).toBe(200);
    expect(published.body.published_at).toEqual(expect.any(Number));

    const offer = await owner.json<{ id: string }>('POST', '/manage/api/offers', offerBody('now-offer', 'now-pro'));
    expect(offer.status).toBe(201);
    const live = await owner.json<Json>('POST', `/manage/api/offers/${offer.body.id}/publish`);
    expect(live.status).toBe(200);
    expect(live.body.status).toBe('published');

    // The integration's key sees the product by id, though the key did not write it.
    const byKey = await whileWorkerStarts(server.fetch(`/api/catalog/products/${product.body.id}`, { token }));
    expect(byKey.status).toBe(200);
    await stopWorker();

    // The checkout link works at once: its page and its init data wait for the offer's stream.
    const publishedOffer = async (slug: string) => {
      const made = await owner.json<{ id: string }>('POST', '/manage/api/offers', offerBody(slug, 'now-pro'));
      expect((await owner.json('POST', `/manage/api/offers/${made.body.id}/publish`)).status).toBe(200);
      return made.body.id;
    };
    const linked = await publishedOffer('now-offer-page');
    const pageRead = await whileWorkerStarts(server.fetch(`/checkout/${linked}`, { headers: { accept: 'text/html' } }));
    expect(pageRead.status).toBe(200);
    await stopWorker();
    const initialized = await publishedOffer('now-offer-init');
    const init = await whileWorkerStarts(server.fetch(`/api/checkout?offer=${initialized}`));
    expect(init.status).toBe(200);
    await stopWorker();

    // A buyer's session for an offer published a moment ago (decided on the offer's stream), and
    // its public GET waiting for it.
    const sold = await publishedOffer('now-offer-sell');
    const created = await server.fetch('/api/checkout/sessions', json({ offer: sold }));
    expect(created.status).toBe(201);
    const { session } = (await created.json()) as { session: { id: string } };
    const read = await whileWorkerStarts(server.fetch(`/api/checkout/sessions/${session.id}`));
    expect(read.status).toBe(200);
    expect(((await read.json()) as { session: { id: string } }).session.id).toBe(session.id);
  });

  it('answers a write with its log position, and a public GET of the session it made waits for it', async () => {
    await startWorker();
    await owner.json('POST', '/manage/api/products', productBody('pos-pro'));
    const offer = await owner.json<{ id: string }>('POST', '/manage/api/offers', { ...offerBody('pos-offer', 'pos-pro'), published: true });
    await server.settle();
    await stopWorker();

    const created = await server.fetch('/api/checkout/sessions', json({ offer: offer.body.id }));
    expect(created.status).toBe(201);
    const position = created.headers.get('commerce-position');
    expect(position).toMatch(/^\d+$/);
    expect(Number(position)).toBe(await server.services.store.headPosition());
    const { session } = (await created.json()) as { session: { id: string } };
    const read = await whileWorkerStarts(server.fetch(`/api/checkout/sessions/${session.id}`));
    expect(read.status).toBe(200);
    expect(read.headers.get('commerce-stale')).toBeNull();
  });

  it('shows an invoice at once after its payment, to a person who did not pay it', async () => {
    await startWorker();
    await owner.json('POST', '/manage/api/products', productBody('inv-pro'));
    const offer = await owner.json<{ id: string }>('POST', '/manage/api/offers', { ...offerBody('inv-offer', 'inv-pro'), published: true });
    await server.settle();
    const created = (await (await server.fetch('/api/checkout/sessions', json({ offer: offer.body.id }))).json()) as { session: { id: string } };
    await server.settle();
    await stopWorker();

    const id = created.session.id;
    expect((await server.fetch(`/api/checkout/sessions/${id}/start`, json({ email: 'buyer@example.com', name: 'Ada' }))).status).toBe(200);
    const paid = await server.fetch(`/api/checkout/sessions/${id}/pay`, json({ card: GOOD_CARD }));
    expect(paid.status).toBe(200);
    const invoiceId = ((await paid.json()) as { session: { invoice: { id: string } } }).session.invoice.id;
    const invoice = await whileWorkerStarts(owner.json<Json>('GET', `/manage/api/invoices/${invoiceId}`));
    expect(invoice.status).toBe(200);
    expect(invoice.body).toMatchObject({ id: invoiceId, status: 'paid', session_id: id });
  });

  it('lets a new API key in at once, and its own list includes what it just wrote', async () => {
    await startWorker();
    await server.settle();
    await stopWorker();
    const made = await owner.json<{ token: string }>('POST', '/manage/api/api-keys', { name: 'fresh' });
    expect(made.status).toBe(201);
    const fresh = made.body.token;
    const first = await whileWorkerStarts(server.fetch('/api/webhook-endpoints', { token: fresh }));
    expect(first.status).toBe(200);

    await stopWorker();
    const endpoint = await server.fetch('/api/webhook-endpoints', { ...json({ url: 'https://hooks.example.com/in', event_types: ['checkout.session.completed'] }), token: fresh });
    expect(endpoint.status).toBe(201);
    const { id } = (await endpoint.json()) as { id: string };
    const list = await whileWorkerStarts(server.fetch('/api/webhook-endpoints', { token: fresh }));
    expect(list.status).toBe(200);
    expect(((await list.json()) as { data: Array<{ id: string }> }).data.map((e) => e.id)).toContain(id);
  });

  it('refuses a revoked API key from the moment its revocation is answered', async () => {
    await startWorker();
    const made = await owner.json<{ id: string; token: string }>('POST', '/manage/api/api-keys', { name: 'to revoke' });
    await server.settle();
    expect((await server.fetch('/api/checkout/sessions', { token: made.body.token })).status).toBe(200);
    await stopWorker();
    const runner = server.services.projections!;
    const before = runner.waiting();
    let answered = false;
    const revoked = owner.request('DELETE', `/manage/api/api-keys/${made.body.id}`).finally(() => {
      answered = true;
    });
    // The 204 waits for the read models; answered without waiting, the key is tried at once.
    while (!answered && runner.waiting() <= before) await new Promise((r) => setTimeout(r, 2));
    if (!answered) await startWorker();
    expect((await revoked).status).toBe(204);
    expect((await server.fetch('/api/checkout/sessions', { token: made.body.token })).status).toBe(401);
  });

  it('lets another client wait for a position it sends back, and says stale after the bound', async () => {
    await startWorker();
    await server.settle();
    await stopWorker();
    const endpoint = await server.fetch('/api/webhook-endpoints', { ...json({ url: 'https://hooks.example.com/two', event_types: ['checkout.session.completed'] }), token });
    expect(endpoint.status).toBe(201);
    const position = endpoint.headers.get('commerce-position')!;
    const { id } = (await endpoint.json()) as { id: string };

    // The same key, the worker stopped: after the bound the read model's answer, marked stale.
    const stale = await server.fetch('/api/webhook-endpoints', { token });
    expect(stale.status).toBe(200);
    expect(stale.headers.get('commerce-stale')).toBe('true');
    expect(((await stale.json()) as { data: Array<{ id: string }> }).data.map((e) => e.id)).not.toContain(id);

    // The owner's session did not write it, but sends the position back: it waits for it.
    const seen = await whileWorkerStarts(owner.request('GET', '/manage/api/webhook-endpoints', undefined, { 'commerce-position': position }));
    expect(seen.status).toBe(200);
    expect(seen.headers.get('commerce-stale')).toBeNull();
    expect(((await seen.json()) as { data: Array<{ id: string }> }).data.map((e) => e.id)).toContain(id);

    const bad = await owner.request('GET', '/manage/api/webhook-endpoints', undefined, { 'commerce-position': 'soon' });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'invalid_position' });
  });
});
