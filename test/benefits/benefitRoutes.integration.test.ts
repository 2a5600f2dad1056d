import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../app/import/importFile.ts';
import { loadProductByKey } from '../../modules/catalog/index.ts';
import { scopeForRoute } from '../../modules/oauth/domain/oauthScopes.ts';
import { signedInPerson } from '../helpers/manageClient.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The benefit routes, bearer and management, on a real server and SQLite file. */
describe('benefit routes', () => {
  let server: TestServer;
  let seller: { organizationId: string; token: string };
  let other: { organizationId: string; token: string };
  let product: { id: string; uuid: string };
  let otherProduct: string;

  const productOf = async (organizationId: string, key: string) => {
    await runImport(
      { command: server.cliContext(organizationId), organizationId, catchUp: server.settle },
      { products: [{ key, name: key, plans: [{ name: 'once', display_name: 'Once', type: 'one_time', renew_interval: null, currency_code: 'EUR', charges: [{ amount: 900 }] }] }] },
    );
    const p = (await loadProductByKey(server.cliContext(), organizationId, key))!;
    return { id: p.routeKey, uuid: p.productId };
  };

  beforeAll(async () => {
    server = await startTestServer();
    seller = await server.identity();
    other = await server.identity();
    product = await productOf(seller.organizationId, 'zine');
    otherProduct = (await productOf(other.organizationId, 'their-zine')).id;
  });
  afterAll(() => server.close({ remove: true }));

  const call = async (method: string, path: string, body?: unknown, token = seller.token): Promise<{ status: number; body: Body }> => {
    const response = await server.fetch(path, { method, token, ...(body !== undefined ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}) });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as Body) : {} };
  };

  it('creates file and license key benefits, reads, lists, filters, changes and deletes them', async () => {
    const file = await call('POST', `/api/products/${product.id}/benefits`, { type: 'file', description: 'The PDF', properties: { files: ['file_abc123', 'file_def456'] } });
    expect(file.status).toBe(201);
    expect(file.body).toEqual({ id: expect.stringMatching(/^ben_[A-Za-z0-9]+$/), object: 'benefit', type: 'file', description: 'The PDF', product_id: product.id, properties: { files: ['file_abc123', 'file_def456'] }, created: expect.any(Number) });
    // By UUID as well as by id; the defaults of a key filled in.
    const key = await call('POST', `/api/products/${product.uuid}/benefits`, { type: 'license_key', description: 'App key', properties: { prefix: 'ZINE', activation_limit: 3 } });
    expect(key.status).toBe(201);
    expect(key.body).toMatchObject({ type: 'license_key', product_id: product.id, properties: { prefix: 'ZINE', activation_limit: 3, expires_after_days: null, bound_to: 'perpetual' } });

    expect(await call('GET', `/api/benefits/${file.body.id}`)).toEqual({ status: 200, body: file.body });
    const all = await call('GET', '/api/benefits');
    expect(all.status).toBe(200);
    expect(all.body.data.map((b: Body) => b.id).sort()).toEqual([file.body.id, key.body.id].sort());
    expect(all.body.meta).toMatchObject({ total: 2 });
    expect((await call('GET', '/api/benefits?type=license_key')).body.data.map((b: Body) => b.id)).toEqual([key.body.id]);
    expect((await call('GET', `/api/benefits?product=${product.uuid}`)).body.data).toHaveLength(2);
    expect((await call('GET', '/api/benefits?product=nope')).body.data).toEqual([]);
    expect((await call('GET', `/api/products/${product.id}/benefits`)).body.data).toHaveLength(2);

    const changed = await call('PATCH', `/api/benefits/${file.body.id}`, { description: 'The PDF, 2nd edition', properties: { files: ['file_ghi789'] } });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: file.body.id, description: 'The PDF, 2nd edition', properties: { files: ['file_ghi789'] } });
    expect((await call('GET', `/api/benefits/${file.body.id}`)).body.properties).toEqual({ files: ['file_ghi789'] });

    expect(await call('DELETE', `/api/benefits/${key.body.id}`)).toEqual({ status: 200, body: { id: key.body.id, object: 'benefit', deleted: true } });
    expect((await call('GET', `/api/benefits/${key.body.id}`)).status).toBe(404);
    expect((await call('PATCH', `/api/benefits/${key.body.id}`, { description: 'x' })).status).toBe(404);
    expect((await call('DELETE', `/api/benefits/${key.body.id}`)).status).toBe(404);
    expect((await call('GET', '/api/benefits')).body.data.map((b: Body) => b.id)).toEqual([file.body.id]);
    expect((await call('GET', '/api/benefit_grants')).body).toMatchObject({ data: [], meta: { total: 0 } });
  });

  it('refuses bad input with 422 and a clear message, never a 500', async () => {
    const bad = [
      { type: 'file', description: 'x', properties: { files: [] } },
      { type: 'file', description: 'x', properties: { files: ['not-a-file'] } },
      { type: 'file', description: '', properties: { files: ['file_a'] } },
      { type: 'file', description: 'x' },
      { type: 'music', description: 'x', properties: {} },
      { type: 'license_key', description: 'x', properties: { activation_limit: 0 } },
      { type: 'license_key', description: 'x', properties: { bound_to: 'forever' } },
      { type: 'license_key', description: 'x', properties: { prefix: 'has space' } },
      { type: 'license_key', description: 'x', properties: { files: ['file_a'] } },
      { type: 'license_key', description: 'x', extra: true },
      'not an object',
    ];
    for (const body of bad) {
      const r = await call('POST', `/api/products/${product.id}/benefits`, body);
      expect(r.status, JSON.stringify(body)).toBe(422);
      expect(r.body.message, JSON.stringify(body)).toEqual(expect.any(String));
      expect(r.body.code).toEqual(expect.any(String));
    }
    const file = (await call('POST', `/api/products/${product.id}/benefits`, { type: 'file', description: 'x', properties: { files: ['file_a'] } })).body;
    // A file benefit takes no key's terms, and the other way round.
    const wrongKind = await call('PATCH', `/api/benefits/${file.id}`, { properties: { prefix: 'X', activation_limit: 1, expires_after_days: null, bound_to: 'perpetual' } });
    expect(wrongKind.status).toBe(422);
    expect(wrongKind.body).toMatchObject({ code: 'invalid_benefit_properties', errors: { properties: [expect.any(String)] } });
    expect((await call('GET', '/api/benefits/not-an-id')).status).toBe(422);
    expect((await call('GET', '/api/benefits?type=music')).status).toBe(422);
    expect((await call('GET', '/api/benefit_grants?status=lost')).status).toBe(422);
    expect((await call('GET', '/api/benefits/ben_doesnotexist')).status).toBe(404);
    expect((await call('POST', '/api/products/nope/benefits', { type: 'file', description: 'x', properties: { files: ['file_a'] } })).status).toBe(404);
    expect((await server.fetch('/api/benefits')).status).toBe(401);
  });

  it("keeps each organization's benefits and grants to itself", async () => {
    const mine = (await call('POST', `/api/products/${product.id}/benefits`, { type: 'file', description: 'Mine', properties: { files: ['file_mine'] } })).body;
    // Another organization's product is unknown here, and so is a benefit of ours there.
    expect((await call('POST', `/api/products/${otherProduct}/benefits`, { type: 'file', description: 'x', properties: { files: ['file_a'] } })).status).toBe(404);
    expect((await call('GET', `/api/products/${otherProduct}/benefits`)).status).toBe(404);
    expect((await call('GET', `/api/products/${product.id}/benefits`, undefined, other.token)).status).toBe(404);
    expect((await call('GET', `/api/benefits/${mine.id}`, undefined, other.token)).status).toBe(404);
    expect((await call('PATCH', `/api/benefits/${mine.id}`, { description: 'Theirs now' }, other.token)).status).toBe(404);
    expect((await call('DELETE', `/api/benefits/${mine.id}`, undefined, other.token)).status).toBe(404);
    expect((await call('GET', '/api/benefits', undefined, other.token)).body.data).toEqual([]);
    expect((await call('GET', `/api/benefits/${mine.id}`)).body.description).toBe('Mine');
  });

  it('serves the same routes to the dashboard under /manage/api, to a member', async () => {
    const person = await signedInPerson(server, { organizationId: seller.organizationId, role: 'member' });
    const created = await person.client.json<Body>('POST', `/manage/api/products/${product.id}/benefits`, { type: 'license_key', description: 'Pro key', properties: { bound_to: 'subscription' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ object: 'benefit', type: 'license_key', properties: { bound_to: 'subscription' } });
    const listed = await person.client.json<Body>('GET', `/manage/api/benefits?product=${product.id}`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((b: Body) => b.id)).toContain(created.body.id);
    expect((await person.client.json('GET', `/manage/api/benefits/${created.body.id}`)).status).toBe(200);
    expect((await person.client.json('GET', '/manage/api/benefit_grants')).status).toBe(200);
    const stranger = await signedInPerson(server, { organizationId: other.organizationId, role: 'member' });
    expect((await stranger.client.json('GET', `/manage/api/benefits/${created.body.id}`)).status).toBe(404);
  });

  it('names the scope of each route: benefits:read for reads, benefits:write for the rest', () => {
    expect(scopeForRoute('GET', '/api/benefits')).toBe('benefits:read');
    expect(scopeForRoute('GET', '/api/benefits/:benefit')).toBe('benefits:read');
    expect(scopeForRoute('GET', '/api/products/:product/benefits')).toBe('benefits:read');
    expect(scopeForRoute('GET', '/api/benefit_grants')).toBe('benefits:read');
    expect(scopeForRoute('POST', '/api/products/:product/benefits')).toBe('benefits:write');
    expect(scopeForRoute('PATCH', '/api/benefits/:benefit')).toBe('benefits:write');
    expect(scopeForRoute('DELETE', '/api/benefits/:benefit')).toBe('benefits:write');
  });
});
