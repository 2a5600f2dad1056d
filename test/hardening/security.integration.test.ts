import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { enumerateRoutes, fillPath, type RouteInfo } from '../helpers/routes.ts';
import { seedOrganization } from '../helpers/seed.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

type Answer = { status: number; body: string };

const LOW_LIMITS = { CHECKOUT_RATE_LIMIT: '25', CATCH_RATE_LIMIT_MAX: '25', PROMO_RATE_LIMIT_MAX: '25', LICENSE_RATE_LIMIT_PER_ADDRESS: '25' };
const HIGH_LIMITS = { CHECKOUT_RATE_LIMIT: '1000000', CATCH_RATE_LIMIT_MAX: '1000000', PROMO_RATE_LIMIT_MAX: '1000000', LICENSE_RATE_LIMIT_PER_ADDRESS: '1000000', LICENSE_RATE_LIMIT_PER_KEY: '1000000' };

describe('security of every route', () => {
  let server: TestServer;
  let routes: RouteInfo[];
  let a: Awaited<ReturnType<TestServer['identity']>>;
  let b: Awaited<ReturnType<TestServer['identity']>>;
  let seededB: Record<string, string[]>;

  beforeAll(async () => {
    // Rate limits high enough for the isolation checks; the 429 test below runs on its own server.
    server = await startTestServer({ env: HIGH_LIMITS });
    a = await server.identity('Org A');
    b = await server.identity('Org B');
    await seedOrganization(server, a.organizationId);
    seededB = await seedOrganization(server, b.organizationId);
    await server.settle();
    routes = enumerateRoutes(server.app).filter((r) => r.method !== 'HEAD');
  });
  afterAll(() => server.close({ remove: true }));

  async function answer(method: string, path: string, token: string): Promise<Answer> {
    const response = await server.fetch(path, { method, token });
    return { status: response.status, body: await response.text() };
  }

  it('gives a token of org A exactly the unknown-id answer for every id of org B, on every protected route', async () => {
    const protectedRoutes = routes.filter((r) => r.protected);
    expect(protectedRoutes.length).toBeGreaterThan(0);
    // Ids of B, found the way a client finds them: from B's own list routes (GET /x lists the ids /x/:param takes).
    const idsByPrefix = new Map<string, string[]>();
    for (const list of protectedRoutes.filter((r) => r.method === 'GET' && r.params.length === 0)) {
      const response = await server.fetch(list.url, { token: b.token });
      if (response.status !== 200) continue;
      const text = await response.text();
      // A CSV export (GET /api/exports/…) names each row's id in its first column; a report's
      // (the tax report: periods, the same for every organization) names none.
      const csv = response.headers.get('content-type')?.startsWith('text/csv');
      if (csv && !/^\w+_id,/.test(text)) continue;
      const ids = csv
        ? text.split('\r\n').slice(1, -1).map((line) => line.slice(0, line.indexOf(',')))
        : ((JSON.parse(text) as { data?: Array<{ id?: unknown }> }).data ?? []).map((d) => d.id).filter((id): id is string => typeof id === 'string');
      idsByPrefix.set(list.url, ids);
      // A's lists never show B's ids.
      const ofA = await answer('GET', list.url, a.token);
      for (const id of ids) expect(ofA.body, `${list.url} of A shows ${id} of B`).not.toContain(id);
    }
    const checked: string[] = [];
    for (const route of protectedRoutes.filter((r) => r.params.length > 0)) {
      const prefix = route.url.slice(0, route.url.indexOf('/:'));
      const ids = idsByPrefix.get(prefix)?.length ? idsByPrefix.get(prefix)! : (seededB[route.params[0]!] ?? []);
      expect(ids.length, `no ids of org B found for ${route.method} ${route.url}: seed them in test/helpers/seed.ts`).toBeGreaterThan(0);
      for (const id of ids.slice(0, 3)) {
        const path = fillPath(route.url, () => encodeURIComponent(id));
        // Same shape, no such resource: the id with its last character changed.
        const unknownId = /^\d+$/.test(id) ? String(Number(id) + 1_000_000) : id.slice(0, -1) + (id.endsWith('Q') ? 'R' : 'Q');
        const unknownPath = fillPath(route.url, () => encodeURIComponent(unknownId));
        const own = await answer(route.method, path, b.token);
        if (route.method === 'GET') expect(own.status, `B reading its own ${path}`).toBe(200);
        const cross = await answer(route.method, path, a.token);
        const unknown = await answer(route.method, unknownPath, a.token);
        expect(cross.status, `${route.method} ${path} with A's token`).toBe(unknown.status);
        expect(cross.body.replaceAll(id, '<id>')).toBe(unknown.body.replaceAll(unknownId, '<id>'));
        expect(cross.status).toBeGreaterThanOrEqual(400);
        checked.push(`${route.method} ${route.url}`);
      }
    }
    console.log(`organization isolation checked on: ${[...new Set(checked)].join(', ') || '(no protected route takes an id yet)'}`);
  });

  it('keeps no API key in the SQLite files, only its hash', async () => {
    // Use the tokens, so any request path that might store them has run.
    for (const token of [a.token, b.token]) expect((await server.fetch('/api/users/me', { token })).status).toBe(200);
    await server.settle();
    const bytes = readdirSync(server.dataDir)
      .filter((f) => f.startsWith('commerce.db'))
      .map((f) => readFileSync(join(server.dataDir, f)).toString('latin1'))
      .join('\n');
    expect(bytes.length).toBeGreaterThan(0);
    for (const token of [a.token, b.token]) {
      const secret = token.split('_').at(-1)!;
      expect(secret).toHaveLength(32);
      expect(bytes).not.toContain(token);
      expect(bytes).not.toContain(secret);
    }
    // What is there is the SHA-256 of the secret, as hex.
    const { createHash } = await import('node:crypto');
    expect(bytes).toContain(createHash('sha256').update(a.token.split('_').at(-1)!).digest('hex'));
  });

  it('sends strict headers with every HTML page', async () => {
    const pages: string[] = [];
    for (const route of routes.filter((r) => r.method === 'GET')) {
      // Real ids where there are some (the hosted checkout page of a published offer), else a dummy.
      const path = fillPath(route.url, (p) => encodeURIComponent(seededB[p]?.[0] ?? 'x'));
      const response = await server.fetch(path, { headers: { accept: 'text/html' }, token: a.token });
      expect(response.headers.get('x-content-type-options'), route.url).toBe('nosniff');
      if (!String(response.headers.get('content-type')).startsWith('text/html')) continue;
      pages.push(route.url);
      const csp = response.headers.get('content-security-policy') ?? '';
      expect(csp, `${route.url} CSP`).toMatch(/default-src 'none'|default-src 'self'/);
      expect(csp, `${route.url} frame-ancestors`).toMatch(/frame-ancestors [^;]+/);
      expect(csp).not.toMatch(/script-src[^;]*'unsafe-eval'/);
      expect(response.headers.get('referrer-policy'), route.url).toMatch(/^(no-referrer|strict-origin-when-cross-origin|same-origin|strict-origin)$/);
    }
    expect(pages).toContain('/docs');
    console.log(`HTML pages checked: ${pages.join(', ')}`);
  });
});

describe('rate limits', () => {
  let routes: RouteInfo[];
  beforeAll(async () => {
    const probe = await startTestServer();
    routes = enumerateRoutes(probe.app).filter((r) => r.method !== 'HEAD');
    await probe.close({ remove: true });
  });

  it('puts none on the routes that take a bearer, as the README says (a key is known and revocable)', () => {
    const bearer = routes.filter((r) => r.protected);
    expect(bearer.map((r) => r.url)).toContain('/api/catalog/products');
    expect(bearer.filter((r) => r.rateLimited).map((r) => `${r.method} ${r.url}`)).toEqual([]);
  });

  it('answers 429 with Retry-After and X-RateLimit-* on every public checkout and catch route', async () => {
    const limited = routes.filter(
      (r) => !r.protected && r.method !== 'OPTIONS' && r.url !== '/api/openapi.json' && (r.url.startsWith('/api/') || r.url.startsWith('/hooks/')),
    );
    const server = await startTestServer({ env: LOW_LIMITS });
    try {
    for (const route of limited) {
      expect(route.rateLimited, `${route.method} ${route.url} has no rate limit`).toBe(true);
      const path = fillPath(route.url, () => 'ratelimitprobe');
      let last: { status: number; headers: Record<string, unknown>; body: string } | undefined;
      for (let i = 0; i < 2000; i++) {
        // undici's request, not fetch: the catch route takes methods fetch refuses (TRACE).
        const response = await request(`${server.url}${path}`, {
          method: route.method,
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          ...(['GET', 'HEAD', 'TRACE'].includes(route.method) ? {} : { body: '{}' }),
        });
        last = { status: response.statusCode, headers: response.headers, body: await response.body.text() };
        if (last.status === 429) break;
        expect(Number(last.headers['x-ratelimit-remaining']), `${route.url} counts down`).toBeGreaterThanOrEqual(0);
      }
      expect(last!.status, `${route.method} ${route.url} never answered 429`).toBe(429);
      expect(JSON.parse(last!.body)).toMatchObject({ message: 'Too Many Attempts.' });
      expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
      expect(Number(last!.headers['x-ratelimit-limit'])).toBeGreaterThan(0);
      expect(last!.headers['x-ratelimit-remaining']).toBe('0');
      expect(Number(last!.headers['x-ratelimit-reset'])).toBeGreaterThan(0);
    }
    } finally {
      await server.close({ remove: true });
    }
    console.log(`rate limits checked on: ${limited.map((r) => `${r.method} ${r.url}`).join(', ') || '(none yet)'}`);
  });

});

describe('rate limits when the wall clock steps back', () => {
  it('reopen when their window has passed, timed by the monotonic clock, with an honest Retry-After', async () => {
    // A second's window: the three hits below must land in one window, which 300 ms left a busy
    // machine little room for; Retry-After is still 1.
    const server = await startTestServer({ env: { CATCH_RATE_LIMIT_MAX: '2', CATCH_RATE_LIMIT_WINDOW_MS: '1000' } });
    const hit = async () => {
      const response = await request(`${server.url}/hooks/catch/clockprobe/clockprobe`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      await response.body.text();
      return response;
    };
    // An NTP step or a VM restored from a snapshot: the wall clock goes back an hour.
    const wallClock = Date.now;
    const steppedBack = vi.spyOn(Date, 'now').mockImplementation(() => wallClock() - 3_600_000);
    try {
      expect((await hit()).statusCode).toBe(404);
      expect((await hit()).statusCode).toBe(404);
      const limited = await hit();
      expect(limited.statusCode).toBe(429);
      const retryAfter = Number(limited.headers['retry-after']);
      expect(retryAfter).toBe(1);
      steppedBack.mockImplementation(() => wallClock() - 7_200_000);
      // Waiting as long as Retry-After said is enough (its seconds round the window's rest up).
      await new Promise((r) => setTimeout(r, retryAfter * 1000 + 50));
      // Unknown keys: past the limiter, the route answers 404.
      expect((await hit()).statusCode).toBe(404);
    } finally {
      steppedBack.mockRestore();
      await server.close({ remove: true });
    }
  });
});
