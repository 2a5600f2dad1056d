import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInPerson, type ManageClient } from '../helpers/manageClient.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

type Offer = { id: string; uuid: string; slug: string; status: string; price: number; currency: string; name: string };

const productBody = (key: string) => ({
  key,
  name: key,
  plans: [{ name: 'monthly', display_name: 'Monthly', renew_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 1500 }] }],
});
const offerBody = (slug: string, product: string, extra: Record<string, unknown> = {}) => ({
  slug,
  name: `Offer ${slug}`,
  product,
  plan: 'monthly',
  theme: { primary_color: '#112233' },
  pages: [{ id: 'main', type: 'checkout', title: 'Checkout', blocks: [{ type: 'price' }] }],
  ...extra,
});

describe('managing offers with a session', () => {
  let server: TestServer;
  let owner: ManageClient;
  let stranger: ManageClient;
  beforeAll(async () => {
    server = await startTestServer();
    owner = (await signedInPerson(server)).client;
    stranger = (await signedInPerson(server)).client;
    expect((await owner.json('POST', '/manage/api/products', productBody('offer-product'))).status).toBe(201);
    expect((await stranger.json('POST', '/manage/api/products', productBody('their-product'))).status).toBe(201);
    await server.settle();
  });
  afterAll(() => server.close({ remove: true }));

  it('creates an offer of a plan, edits its theme and pages, publishes it (the public checkout finds it) and archives it', async () => {
    const created = await owner.json<Offer>('POST', '/manage/api/offers', offerBody('spring-sale', 'offer-product'));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ slug: 'spring-sale', status: 'draft', price: 1500, currency: 'EUR' });
    const edited = await owner.json<Offer>('PUT', `/manage/api/offers/${created.body.id}`, offerBody('spring-sale', 'offer-product', { name: 'Spring', theme: { primary_color: '#abcdef' } }));
    expect(edited.body).toMatchObject({ name: 'Spring', theme: { primary_color: '#abcdef' } });
    expect((await owner.json<Offer>('POST', `/manage/api/offers/${created.body.uuid}/publish`)).body.status).toBe('published');
    await server.settle();
    expect((await server.fetch('/api/checkout?offer=spring-sale')).status).toBe(200);
    const listed = await owner.json<{ data: Offer[] }>('GET', '/manage/api/offers');
    expect(listed.body.data).toEqual([expect.objectContaining({ id: created.body.id, slug: 'spring-sale', status: 'published' })]);
    expect((await owner.json<Offer>('POST', '/manage/api/offers/spring-sale/archive')).body.status).toBe('archived');
  });

  it('refuses bad input (422) and another organization\'s product or offer as unknown ones, changing nothing', async () => {
    const before = await server.services.store.headPosition();
    expect((await owner.json('POST', '/manage/api/offers', offerBody('bad', 'offer-product', { theme: { primary_color: 'red' } }))).status).toBe(422);
    const theirProduct = await owner.json('POST', '/manage/api/offers', offerBody('x-offer', 'their-product'));
    const noProduct = await owner.json('POST', '/manage/api/offers', offerBody('x-offer', 'no-such-product'));
    expect(theirProduct.status).toBe(422);
    expect(theirProduct.body).toEqual({ ...(noProduct.body as object), message: expect.any(String), errors: { product: [expect.stringContaining('their-product')] } });
    expect(await server.services.store.headPosition()).toBe(before);

    const theirs = await stranger.json<Offer>('POST', '/manage/api/offers', offerBody('their-offer', 'their-product'));
    await server.settle();
    for (const suffix of ['', '/publish', '/archive']) {
      const method = suffix ? 'POST' : 'GET';
      const foreign = await owner.json(method, `/manage/api/offers/${theirs.body.id}${suffix}`);
      expect(foreign.status).toBe(404);
      expect(foreign).toEqual(await owner.json(method, `/manage/api/offers/nothing-here${suffix}`));
    }
    expect((await stranger.json<Offer>('GET', '/manage/api/offers/their-offer')).body.status).toBe('draft');
  });
});
