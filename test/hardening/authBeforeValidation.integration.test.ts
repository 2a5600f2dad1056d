import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enumerateRoutes, fillPath, type RouteInfo } from '../helpers/routes.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * Every bearer route authenticates before it validates: a caller without a valid key gets 401
 * `Unauthenticated.` whatever the path, query and body, never a 422 that teaches the parameter
 * rules. The routes come from the app itself, so a route added later is covered.
 */
describe('authentication comes before validation on every bearer route', () => {
  let server: TestServer;
  let routes: RouteInfo[];
  beforeAll(async () => {
    server = await startTestServer();
    routes = enumerateRoutes(server.app).filter((r) => r.protected);
  });
  afterAll(() => server.close({ remove: true }));

  /** A query with every declared key repeated (an array where a scalar is expected) and out of range. */
  const badQuery = (route: RouteInfo, token: 'none' | 'bogus') =>
    [
      ...route.queryKeys.filter((k) => k !== 'api_token').flatMap((k) => [`${k}=bogus`, `${k}=1e99`]),
      ...(token === 'bogus' ? ['api_token=a', 'api_token=b'] : []),
    ].join('&');

  const credentials: Array<[string, Record<string, string>, 'none' | 'bogus']> = [
    ['no credential', {}, 'none'],
    ['a malformed bearer token', { authorization: 'Bearer not-a-key' }, 'none'],
    ['a well-formed unknown key', { authorization: 'Bearer csk_key_AAAAAAAAAAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB' }, 'none'],
    ['a repeated ?api_token=', {}, 'bogus'],
  ];

  it.each(credentials)('with %s, a request with bad parameters answers 401 Unauthenticated.', async (_name, headers, token) => {
    expect(routes.map((r) => `${r.method} ${r.url}`)).toEqual(
      expect.arrayContaining(['GET /api/users/me', 'GET /api/automation/triggers/:trigger_id/test', 'GET /api/checkout/sessions']),
    );
    for (const route of routes) {
      const query = badQuery(route, token);
      const path = `${fillPath(route.url, () => encodeURIComponent('!!bad.value!!'))}${query ? `?${query}` : ''}`;
      const takesBody = !['GET', 'HEAD'].includes(route.method);
      const response = await server.fetch(path, {
        method: route.method,
        headers: { ...headers, ...(takesBody ? { 'content-type': 'application/json' } : {}) },
        ...(takesBody ? { body: '{"malformed": ' } : {}),
      });
      const label = `${route.method} ${path}`;
      expect(response.status, label).toBe(401);
      if (route.method !== 'HEAD') expect(await response.json(), label).toEqual({ message: 'Unauthenticated.', code: 'unauthenticated' });
      else await response.arrayBuffer();
    }
  });

  it('the audit’s three requests, one by one', async () => {
    for (const path of ['/api/users/me?api_token=a&api_token=b', '/api/automation/triggers/abc/test', '/api/checkout/sessions?status=bogus']) {
      const response = await server.fetch(path);
      expect(response.status, path).toBe(401);
      expect(await response.json()).toEqual({ message: 'Unauthenticated.', code: 'unauthenticated' });
    }
  });
});
