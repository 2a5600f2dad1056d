import fc from 'fast-check';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../platform/http/jsonDepth.ts';
import { createSequence, createTrigger } from '../../modules/automation/automationCommands.ts';
import { seedOrganization } from '../helpers/seed.ts';
import { enumerateRoutes, fillPath, type RouteInfo } from '../helpers/routes.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * Property-based fuzzing of every registered route over a real loopback server: thousands of
 * generated hostile requests, and none may answer 5xx, crash the process, answer a 4xx that is
 * not JSON with a message, or pollute Object.prototype. FUZZ_REQUESTS scales the total.
 */
const TOTAL_REQUESTS = Number(process.env.FUZZ_REQUESTS ?? 3000);

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype'];
const NASTY_STRINGS = [
  '',
  ' ',
  '..',
  '../../../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '%2e%2e%2f%2e%2e%2f',
  '\u0000',
  'a\u0000b',
  '__proto__',
  'constructor',
  'prototype',
  'null',
  'undefined',
  'NaN',
  '-1',
  '0',
  '1e309',
  '9007199254740993',
  'true',
  '[]',
  '{}',
  "' OR 1=1 --",
  '"; DROP TABLE events; --',
  '<script>alert(1)</script>',
  '${7*7}{{7*7}}',
  '\u202e\ufeff\ud800',
  'ﬀ𝕏👩‍👩‍👧',
];

const text = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS) },
  // Long strings built by repetition: generating them character by character would cost more than sending them.
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 1000, max: 20_000 }), fc.constantFrom('a', 'é', '\u0000', '%', '/', '𝕏', ' ')).map(([n, c]) => c.repeat(n)) },
);

/** A path segment: usually encoded, sometimes raw bytes a router must survive. */
const pathValue = fc.oneof(
  { weight: 4, arbitrary: text.map((s) => encodeURIComponent(s.replace(/[\ud800-\udfff]/g, '?'))) },
  { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%ff%fe', '%00', '%c0%ae%c0%ae', '..%2f..%2f', '%252e%252e', 'a%2Fb', '..', '.') },
  { weight: 1, arbitrary: fc.integer({ min: 150, max: 400 }).map((n) => 'aZ9_-'.repeat(n).slice(0, n)) },
);

const jsonLeaf = fc.oneof(
  text,
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom(Number.MAX_SAFE_INTEGER + 2, -0, 1e308),
);

const hostileJson: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    jsonLeaf,
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(fc.oneof(fc.string({ maxLength: 10 }), fc.constantFrom(...PROTO_KEYS)), tie('value'), { maxKeys: 5 }),
  ),
})).value;

/** A body aimed at the route's own fields: right names, wrong types and hostile values. */
function bodyFor(route: RouteInfo): fc.Arbitrary<string> {
  const keys = [...route.bodyKeys, ...PROTO_KEYS, 'offer', 'offer_id', 'email', 'id'];
  return fc
    .tuple(fc.dictionary(fc.constantFrom(...keys), hostileJson, { maxKeys: 6 }), fc.boolean())
    .map(([o, poison]) => {
      const s = JSON.stringify(o);
      // A literal "__proto__" key in the text, as an attacker sends it (JSON.stringify of an object cannot).
      return poison && !s.includes('"__proto__"') ? s.replace(/^\{/, '{"__proto__":{"polluted":"yes"},') : s;
    });
}

const deepJson = fc
  .record({
    // Around the ingress limit, past SQLite's JSON depth (1000), and far past JSON.stringify's stack.
    depth: fc.oneof(fc.integer({ min: MAX_JSON_DEPTH - 2, max: MAX_JSON_DEPTH + 2 }), fc.integer({ min: 1_000, max: 200_000 })),
    kind: fc.constantFrom('array', 'object', 'proto'),
  })
  .map(({ depth, kind }) =>
    kind === 'array'
      ? '['.repeat(depth) + ']'.repeat(depth)
      : kind === 'object'
        ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
        : '{"__proto__":'.repeat(depth) + '{"polluted":1}' + '}'.repeat(depth),
  );

const rawBody: fc.Arbitrary<string | Uint8Array | undefined> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: hostileJson.map((v) => JSON.stringify(v) ?? 'null') },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }) },
  // Invalid UTF-8 inside a JSON string: lone continuation bytes, overlongs, surrogates.
  { weight: 1, arbitrary: fc.constantFrom([0x80], [0xc0, 0xae], [0xed, 0xa0, 0x80], [0xff, 0xfe], [0xf4, 0x90, 0x80, 0x80]).map(
    (bad) => Buffer.concat([Buffer.from('{"offer":"'), Buffer.from(bad), Buffer.from('","email":"a\u0000b"}')]),
  ) },
  { weight: 1, arbitrary: fc.constantFrom('{', '{"a":1,}', 'nul', '"unterminated', '\u0000\u0000', '{"a":1}{"b":2}', '[1,2', '\ufeff{}') },
);

const contentType = fc.constantFrom(
  undefined,
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'application/json; charset=utf-16le',
  'text/plain',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----x',
  'application/octet-stream',
  'application/xml',
  'application/vnd.api+json',
  '*/*',
  'application/json, text/plain',
  'json',
  ';;;',
);

const ODD_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'PROPFIND', 'SEARCH', 'TRACE', 'MKCOL', 'LOCK', 'QUERY'];

const headerValue = fc.oneof(
  fc.string({ maxLength: 60, unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) }),
  fc.constantFrom('Bearer ', 'Bearer csk_key_AAAAAAAAAAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB', 'Basic Zm9vOmJhcg==', 'Bearer ../../etc/passwd'),
);

const extraHeaders = fc.dictionary(
  fc.constantFrom('authorization', 'x-request-id', 'accept', 'x-api-key', 'idempotency-key', 'webhook-id', 'x-forwarded-for', 'cookie', 'if-match', 'origin', 'referer', 'accept-encoding', 'x-http-method-override'),
  headerValue,
  { maxKeys: 4 },
);

type FuzzRequest = {
  /** The route pattern the request was generated for. */
  route: string;
  method: string;
  path: string;
  query: Array<[string, string]>;
  headers: Record<string, string>;
  body: string | Uint8Array | undefined;
  contentType: string | undefined;
  withToken: boolean;
};

/**
 * Routes that serve HTML pages to browsers (found by asking each GET route for text/html), the
 * OAuth authorization server's browser-facing routes, whose errors a person reads as a page, and
 * the hosted card page of a failed renewal (reached only by an emailed link no request here has).
 */
const htmlPages = new Set<string>([
  '/oauth/*',
  '/oauth/interaction/:uid',
  '/billing/:token',
  '/billing/:token/card',
  '/billing/:token/settle',
  // The page script's calls: JSON, but a token of `.` or `..` lands on the page's own route.
  '/billing/:token/payment-intent',
  '/billing/:token/setup-intent',
  // The customer portal: its pages and forms answer as pages, for a browser.
  '/portal/:organization',
  '/portal/:organization/sign-in',
  '/portal/:organization/sign-out',
  '/portal/:organization/session/:token',
  '/portal/:organization/subscriptions/:id/cancel',
  '/portal/:organization/subscriptions/:id/reactivate',
  '/portal/:organization/subscriptions/:id/change_plan',
  '/portal/:organization/subscriptions/:id/card',
  // A buyer's download link: a refusal is a page saying what to do.
  '/downloads/:file',
]);

/** Real ids of seeded data, so hostile bodies and queries also reach handlers past the lookup. */
let realIds: string[] = [];

function requestsFor(route: RouteInfo, bodies: fc.Arbitrary<string | Uint8Array | undefined>): fc.Arbitrary<FuzzRequest> {
  const segment = realIds.length > 0 ? fc.oneof({ weight: 2, arbitrary: pathValue }, { weight: 1, arbitrary: fc.constantFrom(...realIds) }) : pathValue;
  const queryKey = fc.oneof(fc.constantFrom(...route.queryKeys, ...PROTO_KEYS, 'api_token', 'page', 'per_page', 'a[b]', '__proto__[polluted]', 'constructor[prototype][polluted]'), fc.string({ maxLength: 8 }));
  return fc.record({
    route: fc.constant(route.url),
    method: fc.oneof({ weight: 4, arbitrary: fc.constant(route.method) }, { weight: 1, arbitrary: fc.constantFrom(...ODD_METHODS) }),
    path: fc.array(segment, { minLength: route.params.length, maxLength: route.params.length }).map((values) => {
      let i = 0;
      return fillPath(route.url, () => values[i++] ?? 'x');
    }),
    query: fc.array(fc.tuple(queryKey, text.map((s) => s.slice(0, 2000))), { maxLength: 4 }),
    headers: extraHeaders,
    body: bodies,
    contentType,
    withToken: fc.boolean(),
  });
}

describe('fuzzing every route', () => {
  let server: TestServer;
  let token: string;
  let routes: RouteInfo[];
  /** A real, enabled trigger's catch URL: random keys would only ever reach the 404. */
  let catchPath: string;
  const agent = new Agent({ connections: 4, keepAliveTimeout: 10_000 });
  const prototypeBefore = Object.getOwnPropertyNames(Object.prototype).sort();
  const timings: string[] = [];
  const stats = { requests: 0, byStatus: new Map<number, number>() };

  beforeAll(async () => {
    // Limits out of the way, so hostile input reaches validation and handlers rather than a 429.
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '100000000', CATCH_RATE_LIMIT_MAX: '100000000', PROMO_RATE_LIMIT_MAX: '100000000', LICENSE_RATE_LIMIT_PER_ADDRESS: '100000000', LICENSE_RATE_LIMIT_PER_KEY: '100000000' } });
    const me = await server.identity('Fuzz Org');
    token = me.token;
    const seeded = await seedOrganization(server, me.organizationId);
    const sequence = await createSequence(server.cliContext(me.organizationId), { organizationId: me.organizationId, name: 'Fuzz', actions: [] });
    const trigger = await createTrigger(server.cliContext(me.organizationId), { organizationId: me.organizationId, sequenceId: sequence.id, name: 'Fuzz' });
    catchPath = `/hooks/catch/${sequence.route_key}/${trigger.route_key}`;
    const products = (await (await server.fetch('/api/catalog/products', { token })).json()) as { data: Array<{ id: string }> };
    realIds = [...Object.values(seeded).flat(), ...products.data.map((p) => p.id)].map(encodeURIComponent);
    // HEAD twins of GET routes are reached through the odd methods below.
    routes = enumerateRoutes(server.app).filter((r) => r.method !== 'HEAD');
    for (const route of routes.filter((r) => r.method === 'GET')) {
      for (const id of route.params.length === 0 ? ['x'] : [...realIds, 'x']) {
        if (htmlPages.has(route.url)) break;
        const response = await fetch(`${server.url}${fillPath(route.url, () => id)}`, { headers: { accept: 'text/html' } });
        if (response.status < 400 && String(response.headers.get('content-type')).startsWith('text/html')) htmlPages.add(route.url);
        await response.arrayBuffer();
      }
    }
  });
  afterAll(async () => {
    await agent.close();
    await server.close({ remove: true });
  });

  async function send(r: FuzzRequest): Promise<void> {
    const qs = r.query.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v.replace(/[\ud800-\udfff]/g, '?'))}`).join('&');
    const headers: Record<string, string> = { ...r.headers };
    if (r.withToken) headers.authorization = `Bearer ${token}`;
    if (r.contentType) headers['content-type'] = r.contentType;
    const methodTakesBody = !['GET', 'HEAD'].includes(r.method);
    const description = `${r.method} ${r.path}${qs ? `?${qs.slice(0, 200)}` : ''} content-type=${r.contentType} body=${String(r.body instanceof Uint8Array ? `bytes(${r.body.length})` : r.body?.slice(0, 200))}`;
    let response;
    try {
      response = await request(`${server.url}${r.path}${qs ? `?${qs}` : ''}`, {
        method: r.method,
        headers,
        body: methodTakesBody ? r.body : undefined,
        dispatcher: agent,
        headersTimeout: 15_000,
        bodyTimeout: 15_000,
      });
    } catch (error) {
      throw new Error(`${description}: no response (${(error as Error).message})`);
    }
    const raw = await response.body.text();
    stats.requests += 1;
    stats.byStatus.set(response.statusCode, (stats.byStatus.get(response.statusCode) ?? 0) + 1);
    if (response.statusCode >= 500) throw new Error(`${description}: answered ${response.statusCode} ${raw.slice(0, 300)}`);
    const type = String(response.headers['content-type'] ?? '');
    if (response.statusCode >= 400 && type.startsWith('text/html') && htmlPages.has(r.route)) {
      // A page for browsers (the hosted checkout) shows its errors as a page, under its strict policy.
      if (!/frame-ancestors/.test(String(response.headers['content-security-policy'] ?? ''))) {
        throw new Error(`${description}: HTML ${response.statusCode} without a frame-ancestors policy`);
      }
      return;
    }
    if (response.statusCode >= 400 && r.method !== 'HEAD') {
      if (!type.startsWith('application/json')) throw new Error(`${description}: ${response.statusCode} is ${type}, not JSON: ${raw.slice(0, 200)}`);
      const body = JSON.parse(raw) as { message?: unknown };
      if (typeof body.message !== 'string' || body.message === '') throw new Error(`${description}: ${response.statusCode} without a message: ${raw.slice(0, 200)}`);
    }
  }

  it('answers thousands of hostile requests across all routes with no 5xx and JSON 4xx bodies', async () => {
    expect(routes.length).toBeGreaterThan(5);
    const perRoute = Math.max(30, Math.floor(TOTAL_REQUESTS / routes.length));
    for (const route of routes) {
      const bodies = fc.oneof({ weight: 2, arbitrary: rawBody }, { weight: 2, arbitrary: bodyFor(route) });
      const started = performance.now();
      await fc.assert(fc.asyncProperty(requestsFor(route, bodies), send), { numRuns: perRoute, endOnFailure: true });
      timings.push(`${route.method} ${route.url} ${Math.round(performance.now() - started)}ms`);
    }
    expect(stats.requests).toBeGreaterThanOrEqual(routes.length * 30);
  }, 120_000);

  it('survives deep JSON, bodies over the limit and very long URLs on every route that takes a body', async () => {
    const bodyRoutes = routes.filter((r) => !['GET', 'HEAD', 'OPTIONS'].includes(r.method));
    const big = fc.oneof(deepJson, fc.integer({ min: 1024 * 1024 - 64, max: 1024 * 1024 + 4096 }).map((n) => `{"a":"${'x'.repeat(n)}"}`));
    for (const route of bodyRoutes) {
      await fc.assert(
        fc.asyncProperty(requestsFor(route, big).map((r) => ({ ...r, method: route.method, contentType: 'application/json' })), send),
        { numRuns: 12, endOnFailure: true },
      );
    }
    for (const route of routes) {
      await send({ route: route.url, method: route.method, path: `${fillPath(route.url, () => 'x')}`, query: [['q', 'y'.repeat(60_000)]], headers: {}, body: undefined, contentType: undefined, withToken: true });
    }
    // Deep bodies against a real trigger, where they reach the event log and the projections
    // unless refused at ingress; the last test checks every projection still applies the log.
    const catchRoute = routes.find((r) => r.url.startsWith('/hooks/catch/'))!;
    const deepAtCatch = fc.record({
      route: fc.constant(catchRoute.url),
      method: fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE'),
      path: fc.constant(catchPath),
      query: fc.constant<Array<[string, string]>>([]),
      headers: fc.constant({}),
      body: deepJson,
      contentType: fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/vnd.sender+json'),
      withToken: fc.constant(false),
    });
    await fc.assert(fc.asyncProperty(deepAtCatch, send), { numRuns: 40, endOnFailure: true });
  }, 60_000);

  it('leaves Object.prototype unpolluted and the server alive', async () => {
    expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(prototypeBefore);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const health = await fetch(`${server.url}/healthz`);
    expect(health.status).toBe(200);
    // Every projection applied everything the fuzzing got recorded: none is stuck on a document.
    await server.settle();
    const ready = await fetch(`${server.url}/readyz`);
    expect(ready.status, await ready.text()).toBe(200);
    if (process.env.FUZZ_TIMINGS) console.log(timings.join('\n'));
    console.log(`fuzz: ${stats.requests} requests over ${routes.length} routes; statuses ${JSON.stringify(Object.fromEntries(stats.byStatus))}`);
  });
});
