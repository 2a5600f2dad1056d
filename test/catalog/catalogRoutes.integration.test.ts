import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { families, importProducts, plan, product, productResults } from './catalogFixtures.ts';

type Page = { data: Array<{ id: string }>; links: unknown; meta: unknown };

const LIST_FIELDS = ['id', 'name', 'display_name', 'description', 'family', 'version_number', 'status', 'published_at', 'archived_at'];

describe('catalog routes', () => {
  let server: TestServer;
  let me: Awaited<ReturnType<TestServer['identity']>>;
  let other: Awaited<ReturnType<TestServer['identity']>>;
  let keys: string[];
  let otherKey: string;

  beforeAll(async () => {
    server = await startTestServer();
    me = await server.identity('Main');
    other = await server.identity('Other');
    const products = Array.from({ length: 7 }, (_, i) => product(`p${i + 1}`));
    products[1] = product('p2', { status: 'archived', published: false, family: null, plans: [plan('monthly'), plan('yearly', { renew_interval: 'P1Y' })] });
    keys = productResults(await importProducts(server, me.organizationId, { families, products })).map((p) => p.id);
    otherKey = productResults(await importProducts(server, other.organizationId, { families, products: [product('secret')] }))[0]!.id;
  });
  afterAll(() => server.close({ remove: true }));

  const get = (path: string, token = me.token) => server.fetch(path, { token });

  it('lists exactly the spec list fields, in creation order, with Laravel links and meta', async () => {
    const response = await get('/api/catalog/products');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const body = (await response.json()) as { data: Array<Record<string, unknown>>; links: unknown; meta: unknown };
    expect(body.data.map((p) => p.id)).toEqual(keys);
    for (const item of body.data) expect(Object.keys(item)).toEqual(LIST_FIELDS);
    expect(body.data[0]).toMatchObject({
      name: 'p1',
      display_name: 'P1',
      description: 'About p1',
      family: { id: 'fam_saas', name: 'SaaS', lookup_key: 'saas' },
      version_number: 1,
      status: 'active',
      archived_at: null,
    });
    expect(body.data[0]!.published_at).toEqual(expect.any(Number));
    expect(body.data[1]).toMatchObject({ status: 'archived', family: null, published_at: null, archived_at: expect.any(Number) });
    const path = `${server.url}/api/catalog/products`;
    expect(body.links).toEqual({ first: `${path}?page=1`, last: `${path}?page=1`, prev: null, next: null });
    expect(body.meta).toEqual({ current_page: 1, from: 1, last_page: 1, path, per_page: 250, to: 7, total: 7 });
  });

  it('pages with per_page and page, links carrying both', async () => {
    const path = `${server.url}/api/catalog/products`;
    const page2 = (await (await get('/api/catalog/products?per_page=3&page=2')).json()) as Page;
    expect(page2.data.map((p) => p.id)).toEqual(keys.slice(3, 6));
    expect(page2.links).toEqual({
      first: `${path}?page=1&per_page=3`,
      last: `${path}?page=3&per_page=3`,
      prev: `${path}?page=1&per_page=3`,
      next: `${path}?page=3&per_page=3`,
    });
    expect(page2.meta).toEqual({ current_page: 2, from: 4, last_page: 3, path, per_page: 3, to: 6, total: 7 });
    const last = (await (await get('/api/catalog/products?per_page=3&page=3')).json()) as Page;
    expect(last.data.length).toBe(1);
    expect(last.links).toMatchObject({ next: null, prev: `${path}?page=2&per_page=3` });
    const beyond = (await (await get('/api/catalog/products?per_page=3&page=9')).json()) as Page;
    expect(beyond.data).toEqual([]);
    expect(beyond.meta).toMatchObject({ from: null, to: null, current_page: 9, last_page: 3 });
    expect(beyond.links).toMatchObject({ next: null, prev: `${path}?page=3&per_page=3` });
  });

  it('accepts per_page 1 and the documented maximum 500, and answers 422 outside', async () => {
    expect((await get('/api/catalog/products?per_page=1')).status).toBe(200);
    expect((await get('/api/catalog/products?per_page=500')).status).toBe(200);
    for (const query of ['per_page=0', 'per_page=501', 'per_page=-5', 'per_page=99999999999999999999', 'per_page=1e9', 'per_page=abc', 'per_page=2.5', 'page=0', 'page=-1', 'page=abc', 'page=1.5', 'page=1&page=2', 'per_page=']) {
      const response = await get(`/api/catalog/products?${query}`);
      expect(response.status, query).toBe(422);
      const body = (await response.json()) as { message: string; code: string; errors: Record<string, string[]> };
      expect(body.code).toBe('validation_failed');
      expect(Object.keys(body.errors).length).toBeGreaterThan(0);
    }
  });

  it('shows one product with features, twins and timestamps', async () => {
    const response = await get(`/api/catalog/products/${keys[0]}`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown>;
    expect(Object.keys(body).sort()).toEqual(
      [...LIST_FIELDS, 'created_at', 'updated_at', 'features', 'twins'].sort(),
    );
    expect(body).toMatchObject({
      id: keys[0],
      features: [{ id: 'seats', name: 'Seats', description: null, value: 5 }],
      twins: [{ provider: 'stripe', external_id: 'prod_p1' }],
      created_at: expect.any(Number),
      updated_at: expect.any(Number),
    });
  });

  it('lists the plans of a product with object "plan" and charges', async () => {
    const response = await get(`/api/catalog/products/${keys[1]}/plans`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: Array<Record<string, unknown>> };
    expect(body.data).toHaveLength(2);
    expect(body.data[0]).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9]{6,}$/),
      object: 'plan',
      status: 'active',
      type: 'recurring',
      display_name: 'monthly plan',
      description: 'The monthly plan',
      name: 'monthly',
      renew_interval: 'P1M',
      billing_anchor: 'anniversary',
      invoice_interval: 'P1M',
      currency_code: 'EUR',
      currency_symbol: '€',
      charges: [{ id: 'ch_1', type: 'flat', amount: 1900, currency_code: 'EUR' }],
      tax_behavior: 'unspecified',
    });
    expect(body.data[1]).toMatchObject({ name: 'yearly', renew_interval: 'P1Y' });
  });

  it("answers 404 for another organization's product exactly as for an unknown one", async () => {
    const unknown = await get('/api/catalog/products/zzzzzz');
    const foreign = await get(`/api/catalog/products/${otherKey}`);
    const foreignPlans = await get(`/api/catalog/products/${otherKey}/plans`);
    expect(unknown.status).toBe(404);
    expect(foreign.status).toBe(404);
    expect(foreignPlans.status).toBe(404);
    const expected = { message: 'Product not found.', code: 'not_found' };
    expect(await unknown.json()).toEqual(expected);
    expect(await foreign.json()).toEqual(expected);
    expect(await foreignPlans.json()).toEqual(expected);
    const list = (await (await get('/api/catalog/products', other.token)).json()) as { data: Array<{ id: string }> };
    expect(list.data.map((p) => p.id)).toEqual([otherKey]);
    expect((await get(`/api/catalog/products/${keys[0]}`, other.token)).status).toBe(404);
  });

  it.each([
    ['POST', '/api/catalog/products'],
    ['PUT', '/api/catalog/products/KEY'],
    ['PATCH', '/api/catalog/products/KEY'],
    ['DELETE', '/api/catalog/products/KEY'],
  ])('%s %s answers 403 to an authenticated caller, 401 without a token, and changes nothing', async (method, template) => {
    const path = template.replace('KEY', keys[0]!);
    const head = await server.services.store.headPosition();
    for (const body of [JSON.stringify({ name: 'hacked', display_name: 'x' }), '{"name":', 'null', '']) {
      const headers: Record<string, string> = body === '' ? {} : { 'content-type': 'application/json' };
      const response = await server.fetch(path, { method, token: me.token, headers, ...(body === '' ? {} : { body }) });
      expect(response.status, body).toBe(403);
      expect(await response.json()).toEqual({ message: 'This action is unauthorized.', code: 'unauthorized' });
    }
    const anonymous = await server.fetch(path, { method, headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ message: 'Unauthenticated.', code: 'unauthenticated' });
    expect(await server.services.store.headPosition()).toBe(head);
    const detail = (await (await get(`/api/catalog/products/${keys[0]}`)).json()) as Record<string, unknown>;
    expect(detail).toMatchObject({ name: 'p1', version_number: 1 });
  });

  it.each(['/api/catalog/products', '/api/catalog/products/KEY', '/api/catalog/products/KEY/plans'])(
    'GET %s answers 401 without a valid token',
    async (template) => {
      const path = template.replace('KEY', keys[0]!);
      for (const headers of [{}, { authorization: 'Bearer nope' }, { authorization: 'Basic abc' }] as Array<Record<string, string>>) {
        const response = await server.fetch(path, { headers });
        expect(response.status).toBe(401);
        expect(await response.json()).toEqual({ message: 'Unauthenticated.', code: 'unauthenticated' });
      }
    },
  );

  it('answers bad paths, queries and headers with 4xx JSON, never 500', async () => {
    const cases: Array<[string, RequestInit & { token?: string }]> = [
      ['/api/catalog/products/..%2F..%2Fetc%2Fpasswd', {}],
      ['/api/catalog/products/%2e%2e', {}],
      ['/api/catalog/products/a.b', {}],
      ['/api/catalog/products/' + 'x'.repeat(300), {}],
      ['/api/catalog/products/%00', {}],
      ['/api/catalog/products/%E0%A4%A', {}],
      ['/api/catalog/products/abc%20def/plans', {}],
      ['/api/catalog/products/-1', {}],
      ['/api/catalog/products/null/plans', {}],
      ['/api/catalog/products?per_page[]=5', {}],
      ['/api/catalog/products?page=%00', {}],
      ['/api/catalog/products?per_page=' + '9'.repeat(500), {}],
      ['/api/catalog/products', { headers: { accept: 'text/html' } }],
      ['/api/catalog/products', { headers: { 'content-type': 'application/json' }, method: 'GET' }],
    ];
    for (const [path, init] of cases) {
      const response = await server.fetch(path, { token: me.token, ...init });
      expect(response.status, path).toBeGreaterThanOrEqual(200);
      expect(response.status, path).toBeLessThan(500);
      if (response.status >= 400) {
        const body = (await response.json()) as { message: unknown };
        expect(typeof body.message, path).toBe('string');
      }
    }
  });

  it('ignores a Host header that is not a plausible host when building links', async () => {
    const { request } = await import('undici');
    const port = new URL(server.url).port;
    for (const host of ['evil.example/x?', 'a b', 'user@evil.example', '"><script>', '']) {
      const response = await request(`${server.url}/api/catalog/products?per_page=2`, {
        headers: { host, authorization: `Bearer ${me.token}` },
      });
      const body = (await response.body.json()) as { links: { first: string }; meta: { path: string } };
      expect(response.statusCode).toBeLessThan(500);
      if (response.statusCode === 200) {
        expect(body.links.first, host).toBe(`http://127.0.0.1:${port}/api/catalog/products?page=1&per_page=2`);
      }
    }
    const named = await request(`${server.url}/api/catalog/products?per_page=2`, {
      headers: { host: 'shop.example.com:8080', authorization: `Bearer ${me.token}` },
    });
    expect(((await named.body.json()) as { meta: { path: string } }).meta.path).toBe('http://shop.example.com:8080/api/catalog/products');
  });

  it('serves a change to the list right after the catalog projection applies it', async () => {
    const before = (await (await get('/api/catalog/products?per_page=2')).json()) as { data: Array<{ name: string }> };
    expect(before.data[0]!.name).toBe('p1');
    await importProducts(server, me.organizationId, { families, products: [product('p1', { name: 'renamed' })] });
    const after = (await (await get('/api/catalog/products?per_page=2')).json()) as { data: Array<{ name: string; version_number: number }> };
    expect(after.data[0]).toMatchObject({ name: 'renamed', version_number: 2 });
  });

  it('documents every catalog route and field in the OpenAPI document', async () => {
    const doc = (await (await server.fetch('/api/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.paths['/api/catalog/products']!).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/api/catalog/products/{product}']!).sort()).toEqual(['delete', 'get', 'patch', 'put']);
    expect(doc.paths['/api/catalog/products/{product}/plans']).toHaveProperty('get');
    const text = JSON.stringify(doc.paths['/api/catalog/products/{product}/plans']);
    for (const field of ['currency_symbol', 'billing_anchor', 'invoice_interval', 'renew_interval', 'charges']) expect(text).toContain(field);
  });
});
