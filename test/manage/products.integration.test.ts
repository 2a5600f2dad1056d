import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInPerson, type ManageClient } from '../helpers/manageClient.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

type Product = { id: string; key: string; status: string; version_number: number; published_at: number | null; plans: Array<Record<string, unknown>> };

const product = (key: string, amount = 1900) => ({
  key,
  name: key,
  display_name: key.toUpperCase(),
  description: `About ${key}`,
  family: { lookup_key: 'photo', name: 'Photo' },
  features: [{ id: 'storage', name: 'Storage', value: 10 }],
  plans: [{ name: 'monthly', display_name: 'Monthly', renew_interval: 'P1M', currency_code: 'EUR', charges: [{ amount }] }],
});

describe('managing the catalog with a session', () => {
  let server: TestServer;
  let owner: ManageClient;
  let member: ManageClient;
  let organizationId: string;
  beforeAll(async () => {
    server = await startTestServer();
    const person = await signedInPerson(server);
    owner = person.client;
    organizationId = person.organizationId;
    member = (await signedInPerson(server, { organizationId, role: 'member' })).client;
  });
  afterAll(() => server.close({ remove: true }));

  it('creates, edits, publishes, archives and restores a product through the import\'s commands, with the person as actor', async () => {
    const created = await member.json<Product>('POST', '/manage/api/products', product('photo-pro'));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ key: 'photo-pro', status: 'active', version_number: 1, published_at: null, family: { id: 'fam_photo' } });
    expect(created.body.plans).toEqual([expect.objectContaining({ name: 'monthly', charges: [{ id: 'ch_1', type: 'flat', amount: 1900, currency_code: 'EUR' }] })]);
    const id = created.body.id;

    const { key: _key, ...edit } = product('photo-pro', 2900);
    const edited = await member.json<Product>('PUT', `/manage/api/products/${id}`, { ...edit, display_name: 'Photo Pro' });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ id, display_name: 'Photo Pro', version_number: 2 });
    expect(edited.body.plans[0]).toMatchObject({ charges: [expect.objectContaining({ amount: 2900 })] });

    const published = await member.json<Product>('POST', `/manage/api/products/${id}/publish`);
    expect(published.body).toMatchObject({ published_at: expect.any(Number), version_number: 3 });
    expect((await member.json<Product>('POST', `/manage/api/products/${id}/archive`)).body).toMatchObject({ status: 'archived' });
    expect((await member.json('POST', `/manage/api/products/${id}/publish`)).status).toBe(409);
    expect((await member.json<Product>('POST', `/manage/api/products/${id}/restore`)).body).toMatchObject({ status: 'active' });

    const events = await server.services.store.readAll({ after: null, limit: 100_000 });
    const productEvents = events.filter((e) => e.type.startsWith('Product') && e.stream.startsWith('product-'));
    expect(productEvents.length).toBeGreaterThan(0);
    for (const e of productEvents) expect(e.metadata.actor).toMatchObject({ type: 'user' });

    await server.settle();
    const detail = await owner.json<Product>('GET', `/manage/api/products/${id}`);
    expect(detail.body).toMatchObject({ id, status: 'active', display_name: 'Photo Pro' });
    const list = await owner.json<{ data: Array<{ id: string }>; meta: { total: number } }>('GET', '/manage/api/products?per_page=10');
    expect(list.body.data.map((p) => p.id)).toContain(id);
    expect(list.body.meta).toMatchObject({ current_page: 1, per_page: 10, total: 1 });
    // The list carries each product's plans as the detail does (the dashboard's catalog and offer form read them).
    expect((list.body.data[0] as unknown as Product).plans).toEqual(detail.body.plans);
    expect(detail.body.plans[0]).toMatchObject({ name: 'monthly', charges: [expect.objectContaining({ amount: 2900 })] });
  });

  it('refuses bad input with 422 in the Laravel shape and records nothing', async () => {
    const before = await server.services.store.headPosition();
    const bad = await owner.json<{ message: string; errors: Record<string, string[]> }>('POST', '/manage/api/products', {
      ...product('bad'),
      plans: [{ name: 'x', display_name: 'X', currency_code: 'euro', charges: [{ amount: -1 }] }],
    });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(expect.arrayContaining(['plans.0.currency_code', 'plans.0.charges.0.amount']));
    expect(bad.body.message).toMatch(/\(and \d+ more errors?\)$/);
    expect((await owner.json('POST', '/manage/api/products', { ...product('x'), unknown_field: 1 })).status).toBe(422);
    expect((await owner.json('GET', '/manage/api/products?page=0')).status).toBe(422);
    expect((await owner.json('GET', '/manage/api/products/..%2F')).status).toBe(422);
    expect(await server.services.store.headPosition()).toBe(before);
  });

  it("answers another organization's product exactly as an unknown one, and changes nothing", async () => {
    const stranger = (await signedInPerson(server)).client;
    const theirs = await stranger.json<Product>('POST', '/manage/api/products', product('theirs'));
    await server.settle();
    for (const [method, suffix, body] of [
      ['GET', '', undefined],
      ['PUT', '', (({ key: _k, ...rest }) => rest)(product('theirs'))],
      ['POST', '/publish', undefined],
      ['POST', '/archive', undefined],
      ['POST', '/restore', undefined],
    ] as const) {
      const foreign = await owner.json(method, `/manage/api/products/${theirs.body.id}${suffix}`, body);
      const unknown = await owner.json(method, `/manage/api/products/zzzzzz${suffix}`, body);
      expect(foreign.status).toBe(404);
      expect(foreign).toEqual(unknown);
    }
    expect((await stranger.json<Product>('GET', `/manage/api/products/${theirs.body.id}`)).body).toMatchObject({ status: 'active', version_number: 1 });
  });

  it('without a session answers 401; the public product writes still answer 403 to a bearer and change nothing', async () => {
    expect((await fetch(`${server.url}/manage/api/products`)).status).toBe(401);
    const { token } = await server.identity();
    const before = await server.services.store.headPosition();
    for (const [method, path] of [
      ['POST', '/api/catalog/products'],
      ['PUT', '/api/catalog/products/abc'],
      ['PATCH', '/api/catalog/products/abc'],
      ['DELETE', '/api/catalog/products/abc'],
    ] as const) {
      const response = await server.fetch(path, { method, token, headers: { 'content-type': 'application/json' }, body: JSON.stringify(product('nope')) });
      expect(response.status).toBe(403);
      expect(await response.json()).toEqual({ message: 'This action is unauthorized.', code: 'unauthorized' });
    }
    // The key's use may be recorded (ApiKeyUsed, at most once in five minutes); nothing else is.
    const after = await server.services.store.readAll({ after: before, limit: 100 });
    expect(after.filter((e) => e.type !== 'ApiKeyUsed')).toEqual([]);
  });
});
