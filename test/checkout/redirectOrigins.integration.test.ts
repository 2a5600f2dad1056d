import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../modules/identity/identityCommands.ts';
import { ImportValidationError, runImport, validateImport } from '../../app/import/importFile.ts';
import { signedInPerson, type ManageClient } from '../helpers/manageClient.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { json } from './checkoutFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const productBody = (key: string) => ({
  key,
  name: key,
  plans: [{ name: 'monthly', display_name: 'Monthly', renew_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 1500 }] }],
});
const offerBody = (slug: string, extra: Record<string, unknown> = {}) => ({
  slug,
  name: `Offer ${slug}`,
  product: 'redirect-product',
  plan: 'monthly',
  theme: { primary_color: '#112233' },
  pages: [{ id: 'main', type: 'checkout', title: 'Checkout', blocks: [{ type: 'price' }] }],
  published: true,
  ...extra,
});

/*
 * Issue 31, item 5: the public session route made links on the service's own domain that sent
 * buyers anywhere. A caller without the seller's API key may now send success_url and cancel_url
 * only on an origin the seller allowed, on the offer or for the organization; the seller's key
 * sets any http(s) URL. Everything goes through HTTP as a shop's server or an attacker would.
 */
describe('who may set a session\'s success_url and cancel_url', () => {
  let server: TestServer;
  let owner: ManageClient;
  let organizationId = '';
  let apiKey = '';
  let otherKey = '';

  beforeAll(async () => {
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000' } });
    const person = await signedInPerson(server);
    owner = person.client;
    organizationId = person.organizationId;
    apiKey = (await createApiKey(server.cliContext(organizationId), { userId: person.userId, organizationId })).token;
    otherKey = (await server.identity('Someone else')).token;
    expect((await owner.json('POST', '/manage/api/products', productBody('redirect-product'))).status).toBe(201);
    // Offers made through the dashboard's offer route: one with no origins, one that allows the shop's.
    expect((await owner.json('POST', '/manage/api/offers', offerBody('plain-offer'))).status).toBe(201);
    const allowing = await owner.json<Body>('POST', '/manage/api/offers', offerBody('shop-offer', { allowed_redirect_origins: ['HTTPS://Shop.Example:443/', 'http://localhost:8080'] }));
    expect(allowing.status).toBe(201);
    // Written as the browser writes an origin.
    expect(allowing.body.allowed_redirect_origins).toEqual(['https://shop.example', 'http://localhost:8080']);
    await server.settle();
  });
  afterAll(() => server.close({ remove: true }));

  const create = async (body: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const response = await server.fetch('/api/checkout/sessions', json(body, headers));
    return { status: response.status, body: (await response.json()) as Body };
  };
  const sessionCount = async () => ((await (await server.fetch('/api/checkout/sessions?per_page=1', { token: apiKey })).json()) as Body).meta.total as number;

  it('refuses a foreign origin from a public caller with 422 redirect_url_not_allowed, on each field, and records nothing', async () => {
    const count = await sessionCount();
    const before = await server.services.store.headPosition();
    const one = await create({ offer: 'plain-offer', success_url: 'https://evil.example/phish' });
    expect(one.status).toBe(422);
    expect(one.body).toEqual({
      message: expect.stringContaining('The success_url field must be on an origin the seller allowed'),
      code: 'redirect_url_not_allowed',
      errors: { success_url: [one.body.message] },
    });
    expect(await server.services.store.headPosition()).toBe(before);
    const both = await create({ offer: 'shop-offer', success_url: 'https://evil.example/a', cancel_url: 'https://evil.example/b' }, { 'idempotency-key': 'k-refused' });
    expect(both.status).toBe(422);
    expect(both.body.code).toBe('redirect_url_not_allowed');
    expect(Object.keys(both.body.errors).sort()).toEqual(['cancel_url', 'success_url']);
    expect(both.body.message).toMatch(/\(and 1 more error\)$/);
    await server.settle();
    expect(await sessionCount()).toBe(count);
    // The refusal was not stored against the key: the same key with allowed URLs creates the session.
    const retried = await create({ offer: 'shop-offer', success_url: 'https://shop.example/a', cancel_url: 'https://shop.example/b' }, { 'idempotency-key': 'k-refused' });
    expect(retried.status).toBe(201);
  });

  it('without any URL a public caller gets the offer (and its own URLs) as before', async () => {
    const created = await create({ offer: 'plain-offer' });
    expect(created.status).toBe(201);
  });

  it('accepts a URL on an origin the offer allows, and the hosted page of that session goes there', async () => {
    const created = await create({ offer: 'shop-offer', success_url: 'https://shop.example/thanks?s={CHECKOUT_SESSION_ID}', cancel_url: 'http://localhost:8080/cart' });
    expect(created.status).toBe(201);
    const page = await (await fetch(created.body.url as string)).text();
    expect(page).toContain('https://shop.example/thanks?s={CHECKOUT_SESSION_ID}');
    // Another offer of the same seller does not share the offer's list.
    expect((await create({ offer: 'plain-offer', success_url: 'https://shop.example/thanks' })).status).toBe(422);
  });

  it("accepts a URL on an origin the organization allows (set in its settings), for every offer; an emptied list refuses at once", async () => {
    expect((await create({ offer: 'plain-offer', success_url: 'https://org-shop.example/done' })).status).toBe(422);
    const set = await owner.json<Body>('PATCH', '/manage/api/organization', { allowed_redirect_origins: ['https://org-shop.example'] });
    expect(set.status).toBe(200);
    expect(set.body.allowed_redirect_origins).toEqual(['https://org-shop.example']);
    expect((await owner.json<Body>('GET', '/manage/api/organization')).body.allowed_redirect_origins).toEqual(['https://org-shop.example']);
    expect((await create({ offer: 'plain-offer', success_url: 'https://org-shop.example/done', cancel_url: 'https://org-shop.example/cart' })).status).toBe(201);
    expect((await create({ offer: 'shop-offer', cancel_url: 'https://org-shop.example/cart' })).status).toBe(201);
    // Decided on the organization's stream: no wait for a read model.
    expect((await owner.json('PATCH', '/manage/api/organization', { allowed_redirect_origins: [] })).status).toBe(200);
    expect((await create({ offer: 'plain-offer', success_url: 'https://org-shop.example/done' })).status).toBe(422);
  });

  it("lets the seller's API key set any http(s) URL; another organization's key finds no offer; a wrong key is a 401", async () => {
    const count = await sessionCount();
    const seller = await create({ offer: 'plain-offer', success_url: 'https://anywhere.example/ok', cancel_url: 'http://127.0.0.1:9/back' }, { authorization: `Bearer ${apiKey}` });
    expect(seller.status).toBe(201);
    await server.settle();
    expect(await sessionCount()).toBe(count + 1);
    const stranger = await create({ offer: 'plain-offer', success_url: 'https://anywhere.example/ok' }, { authorization: `Bearer ${otherKey}` });
    expect(stranger).toEqual({ status: 404, body: { message: 'Offer not found.', code: 'not_found' } });
    const wrong = await create({ offer: 'plain-offer', success_url: 'https://anywhere.example/ok' }, { authorization: `Bearer ${apiKey.slice(0, -4)}xxxx` });
    expect(wrong.status).toBe(401);
  });

  it('refuses javascript:, data: and other non-http URLs for everyone, allowed origins or key', async () => {
    for (const url of ['javascript:alert(1)', 'javascript://shop.example/%0Aalert(1)', 'data:text/html,<script>alert(1)</script>', 'file:///etc/passwd', '//evil.example/x', '/relative']) {
      const pub = await create({ offer: 'shop-offer', success_url: url });
      expect(pub.status, url).toBe(422);
      expect(pub.body.errors.success_url, url).toHaveLength(1);
      const seller = await create({ offer: 'shop-offer', cancel_url: url }, { authorization: `Bearer ${apiKey}` });
      expect(seller.status, url).toBe(422);
      expect(seller.body.errors.cancel_url, url).toHaveLength(1);
    }
  });

  it('compares origins exactly: scheme, host and port; no suffix, prefix or user-name tricks', async () => {
    const refused = [
      'https://evil.shop.example/x', // a subdomain is another origin
      'https://shop.example.evil.example/x', // a prefix of the host
      'https://evilshop.example/x', // a suffix of the host
      'http://shop.example/x', // another scheme
      'https://shop.example:8443/x', // another port
      'http://localhost:8081/x',
      'https://shop.example@evil.example/x', // user name: the host is evil.example
      'https://shop.example:pw@evil.example/x',
      'https://{CHECKOUT_SESSION_ID}.shop.example/x', // the session id would pick the host
      'https://shop.example.{CHECKOUT_SESSION_ID}/x',
    ];
    for (const url of refused) {
      const answer = await create({ offer: 'shop-offer', success_url: url });
      expect(answer.status, url).toBe(422);
      expect(answer.body.code, url).toBe('redirect_url_not_allowed');
    }
    for (const url of ['https://SHOP.example:443/x', 'https://shop.example/x?next=https://evil.example', 'https://shop.example/{CHECKOUT_SESSION_ID}@evil.example', 'https://user@shop.example/x']) {
      expect((await create({ offer: 'shop-offer', success_url: url })).status, url).toBe(201);
    }
  });

  it('refuses allowed origins that are not origins, and only owners change the organization\'s', async () => {
    for (const origin of ['https://shop.example/path', 'https://*.shop.example', 'javascript:alert(1)', 'data:text/plain,x', 'shop.example', 'https://user@shop.example', 'https://shop.example?x=1', 'null']) {
      const offer = await owner.json<Body>('POST', '/manage/api/offers', offerBody('bad-origins', { allowed_redirect_origins: [origin] }));
      expect(offer.status, origin).toBe(422);
      expect(Object.keys(offer.body.errors), origin).toEqual(['allowed_redirect_origins.0']);
      const org = await owner.json<Body>('PATCH', '/manage/api/organization', { allowed_redirect_origins: ['https://fine.example', origin] });
      expect(org.status, origin).toBe(422);
      expect(Object.keys(org.body.errors), origin).toEqual(['allowed_redirect_origins.1']);
    }
    const member = await signedInPerson(server, { organizationId, role: 'member' });
    expect((await member.client.json('GET', '/manage/api/organization')).status).toBe(200);
    expect((await member.client.json('PATCH', '/manage/api/organization', { allowed_redirect_origins: ['https://evil.example'] })).status).toBe(403);
  });

  it('takes an offer\'s origins from the import file too, which refuses one that is not an origin', async () => {
    const file = (origins: string[]) => ({
      offers: [{ ...offerBody('imported-offer'), allowed_redirect_origins: origins }],
    });
    try {
      validateImport(file(['https://shop.example/cart']));
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ImportValidationError);
      expect((error as ImportValidationError).issues).toEqual([{ path: 'offers[0].allowed_redirect_origins[0]', message: expect.stringContaining('https://shop.example') }]);
    }
    await runImport({ command: server.cliContext(organizationId), organizationId, catchUp: server.settle }, file(['https://imported.example']));
    await server.settle();
    expect((await create({ offer: 'imported-offer', success_url: 'https://imported.example/thanks' })).status).toBe(201);
    // Imported again without them: none allowed.
    await runImport({ command: server.cliContext(organizationId), organizationId, catchUp: server.settle }, { offers: [offerBody('imported-offer')] });
    await server.settle();
    expect((await create({ offer: 'imported-offer', success_url: 'https://imported.example/thanks' })).status).toBe(422);
  });
});
