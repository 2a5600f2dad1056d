import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manageClient, signedInPerson, type ManageClient } from '../helpers/manageClient.ts';
import { enumerateRoutes, fillPath, type RouteInfo } from '../helpers/routes.ts';
import { seedOrganization } from '../helpers/seed.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * The management API attacked route by route, every route fastify registered: by no one, by a
 * forged session cookie, by a member on what only owners may do, and by another organization's
 * owner with this organization's ids. The bearer side (keys of removed people, tokens members
 * granted) is swept in test/identity/apiKeyRights and test/oauth/oauthRoles.
 */

/** What only an owner may do (docs/accounts.md). */
const OWNER_ONLY = new Set([
  'PUT /manage/api/portal_settings',
  'PATCH /manage/api/organization',
  'POST /manage/api/members',
  'PATCH /manage/api/members/:user',
  'DELETE /manage/api/members/:user',
  'GET /manage/api/api-keys',
  'POST /manage/api/api-keys',
  'DELETE /manage/api/api-keys/:key',
  'PUT /manage/api/payments/stripe',
  'DELETE /manage/api/payments/stripe',
  'POST /manage/api/invoices/:id/refunds',
  'GET /manage/api/webhook-endpoints',
  'POST /manage/api/webhook-endpoints',
  'GET /manage/api/webhook-endpoints/:id',
  'PATCH /manage/api/webhook-endpoints/:id',
  'DELETE /manage/api/webhook-endpoints/:id',
  'POST /manage/api/webhook-endpoints/:id/rotate-secret',
  'GET /manage/api/webhook-endpoints/:id/deliveries',
  'POST /manage/api/webhook-deliveries/:id/resend',
  'GET /manage/api/oauth-apps',
  'POST /manage/api/oauth-apps',
  'GET /manage/api/oauth-apps/:client_id',
  'PATCH /manage/api/oauth-apps/:client_id',
  'DELETE /manage/api/oauth-apps/:client_id',
  'PUT /manage/api/subscription_settings',
  'GET /manage/api/organization/smtp',
  'PUT /manage/api/organization/smtp',
  'DELETE /manage/api/organization/smtp',
  'POST /manage/api/organization/smtp/test',
  'POST /manage/api/tax/settings',
  'POST /manage/api/tax_rates',
  'POST /manage/api/tax_rates/starter',
  'POST /manage/api/tax_rates/:id',
]);

/** Routes about the signed-in person themselves, which would end the attacker's own session. */
const OWN_SESSION = new Set(['POST /manage/api/sign-out', 'PUT /manage/api/session/organization', 'DELETE /manage/api/sessions/:session']);

const key = (r: RouteInfo) => `${r.method} ${r.url}`;
const HIGH_LIMITS = { CHECKOUT_RATE_LIMIT: '1000000', CATCH_RATE_LIMIT_MAX: '1000000', PROMO_RATE_LIMIT_MAX: '1000000', SIGN_IN_RATE_LIMIT_MAX: '1000000' };

describe('the management API under attack', () => {
  let server: TestServer;
  let routes: RouteInfo[];
  let ownerA: Awaited<ReturnType<typeof signedInPerson>>;
  let memberA: Awaited<ReturnType<typeof signedInPerson>>;
  let ownerB: Awaited<ReturnType<typeof signedInPerson>>;
  /** Ids of organization A's resources, by the route parameter that takes them. */
  const idsOfA = new Map<string, string[]>();
  const add = (param: string, id: string | number | undefined | null) => {
    if (id === undefined || id === null) return;
    idsOfA.set(param, [...(idsOfA.get(param) ?? []), String(id)]);
  };

  beforeAll(async () => {
    server = await startTestServer({ env: HIGH_LIMITS });
    ownerA = await signedInPerson(server);
    memberA = await signedInPerson(server, { organizationId: ownerA.organizationId, role: 'member' });
    ownerB = await signedInPerson(server);
    const seeded = await seedOrganization(server, ownerA.organizationId);
    const a = ownerA.client;
    const made = await a.json<{ id: string }>('POST', '/manage/api/api-keys', { name: 'A server' });
    const app = await a.json<{ client_id: string }>('POST', '/manage/api/oauth-apps', { name: 'A app', redirect_uris: ['https://a.example/cb'] });
    const invited = await a.json<{ id: string }>('POST', '/manage/api/members', { email: 'someone@a.example', role: 'member' });
    expect([made.status, app.status, invited.status]).toEqual([201, 201, 201]);
    await server.settle();
    // Ids as a client finds them: A's own list routes, then what the seed made.
    const list = async (path: string) => ((await a.json<{ data: Array<Record<string, unknown>> }>('GET', path)).body.data ?? []);
    for (const p of await list('/manage/api/products')) add('product', p.id as string);
    for (const o of await list('/manage/api/offers')) add('offer', (o.uuid ?? o.id) as string);
    for (const m of await list('/manage/api/members')) add('user', m.id as string);
    for (const k of await list('/manage/api/api-keys')) add('key', k.id as string);
    for (const f of await list('/manage/api/families')) add('lookup_key', f.lookup_key as string);
    for (const s of await list('/manage/api/sessions')) add('session', s.id as string);
    add('client_id', app.body.client_id);
    add('invitation', invited.body.id);
    for (const id of seeded.subscription ?? []) {
      add('id', id);
      add('subscription', id);
    }
    for (const id of seeded.id ?? []) add('id', id);
    for (const id of seeded.trigger_id ?? []) add('id', id);
    for (const id of seeded.workflow_id ?? []) add('id', id);
    for (const e of await list('/manage/api/webhook-endpoints')) add('id', e.id as string);
    for (const s of await list('/manage/api/sequences')) add('id', s.id as string);
    add('stream', `product-${idsOfA.get('product')![0]}`);
    for (const b of await list('/manage/api/benefits')) add('benefit', b.id as string);
    for (const f of await list('/manage/api/files')) add('file', f.id as string);
    routes = enumerateRoutes(server.app).filter((r) => r.url.startsWith('/manage/api/') && r.method !== 'HEAD');
  });
  afterAll(() => server.close({ remove: true }));

  const send = (client: ManageClient, method: string, path: string) =>
    client.request(method, path, method === 'GET' || method === 'DELETE' ? undefined : {});

  it('answers 401 on every session route to no one and to a forged session cookie', async () => {
    const sessionRoutes = routes.filter((r) => r.session);
    expect(sessionRoutes.length).toBeGreaterThan(80);
    const victimSession = idsOfA.get('session')![0]!;
    const forged = manageClient(server);
    forged.cookie = `${victimSession}.${'x'.repeat(32)}`;
    const nobody = manageClient(server);
    for (const route of sessionRoutes) {
      const path = fillPath(route.url, (p) => encodeURIComponent(idsOfA.get(p)?.[0] ?? 'x'));
      expect((await send(nobody, route.method, path)).status, `${key(route)} as no one`).toBe(401);
      expect((await send(forged, route.method, path)).status, `${key(route)} with a forged cookie`).toBe(401);
    }
    // The victim is still signed in.
    expect((await ownerA.client.request('GET', '/manage/api/session')).status).toBe(200);
  });

  it('refuses a member every owner-only route, on the organization’s real ids, and no other', async () => {
    const refused: string[] = [];
    for (const route of routes.filter((r) => r.session && !OWN_SESSION.has(key(r)))) {
      const path = fillPath(route.url, (p) => encodeURIComponent(idsOfA.get(p)?.[0] ?? 'x'));
      const response = await send(memberA.client, route.method, path);
      expect(response.status, `${key(route)} as a member`).toBeLessThan(500);
      if (response.status === 403) refused.push(key(route));
      if (OWNER_ONLY.has(key(route))) expect(await response.json(), `${key(route)} as a member`).toMatchObject({ code: 'unauthorized' });
    }
    expect(refused.sort()).toEqual([...OWNER_ONLY].sort());
    // Nothing of A's was changed by the attempts: the key, the app and the endpoint are there.
    await server.settle();
    expect((await ownerA.client.json<{ data: unknown[] }>('GET', '/manage/api/api-keys')).body.data.length).toBeGreaterThan(0);
    expect((await ownerA.client.json<{ data: unknown[] }>('GET', '/manage/api/oauth-apps')).body.data.length).toBe(1);
    expect((await ownerA.client.json<{ data: unknown[] }>('GET', '/manage/api/webhook-endpoints')).body.data.length).toBe(1);
  });

  it('gives another organization’s owner exactly the unknown-id answer for every id of this one', async () => {
    const checked = new Set<string>();
    for (const route of routes.filter((r) => r.session && r.params.length > 0 && !OWN_SESSION.has(key(r)))) {
      const ids = idsOfA.get(route.params[0]!) ?? [];
      for (const id of ids.slice(0, 4)) {
        const path = fillPath(route.url, () => encodeURIComponent(id));
        const unknownId = /^\d+$/.test(id) ? String(Number(id) + 1_000_000) : id.slice(0, -1) + (id.endsWith('Q') ? 'R' : 'Q');
        const unknownPath = fillPath(route.url, () => encodeURIComponent(unknownId));
        const cross = await send(ownerB.client, route.method, path);
        const unknown = await send(ownerB.client, route.method, unknownPath);
        const [crossBody, unknownBody] = [await cross.text(), await unknown.text()];
        expect(cross.status, `${route.method} ${path} by B's owner`).toBe(unknown.status);
        expect(cross.status, `${route.method} ${path} by B's owner`).toBeGreaterThanOrEqual(400);
        expect(crossBody.replaceAll(id, '<id>')).toBe(unknownBody.replaceAll(unknownId, '<id>'));
        checked.add(key(route));
      }
    }
    // Every route that takes an id was tried with real ones.
    const missing = routes.filter((r) => r.session && r.params.length > 0 && !OWN_SESSION.has(key(r)) && !checked.has(key(r))).map(key);
    expect(missing.filter((k) => !k.includes('/passkeys/') && !k.includes('/offers/preview/') && !k.includes('/invoices/') && !k.includes('/connected-apps/') && !k.includes('/features/') && !k.includes('/promos/') && !k.includes('/webhook-deliveries/'))).toEqual([]);
    // Nothing of A's was changed by B: A's owner, key and member are all still there.
    await server.settle();
    expect((await ownerA.client.request('GET', '/manage/api/session')).status).toBe(200);
    expect((await ownerA.client.json<{ data: unknown[] }>('GET', '/manage/api/members')).body.data.length).toBe(3);
    console.log(`checked ${checked.size} id-taking management routes across organizations`);
  });
});
