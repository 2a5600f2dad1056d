import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enumerateRoutes, fillPath, type RouteInfo } from '../helpers/routes.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/** The README's promise: a body that is not JSON answers 415 on every JSON route, whatever it looks like. */
/** The hosted card page's own posts (its form, and its script's same-origin calls), credentialed by the link's token alone. */
const HOSTED_FORMS = new Set([
  '/billing/:token',
  '/billing/:token/card',
  '/billing/:token/settle',
  '/billing/:token/payment-intent',
  '/billing/:token/setup-intent',
  '/receipts/:token/cancel',
  '/receipts/:token/reactivate',
]);

describe('media types of JSON routes', () => {
  let server: TestServer;
  let token: string;
  let bodyRoutes: RouteInfo[];
  beforeAll(async () => {
    server = await startTestServer();
    ({ token } = await server.identity());
    bodyRoutes = enumerateRoutes(server.app).filter((r) => ['POST', 'PUT', 'PATCH', 'DELETE'].includes(r.method) && !r.url.startsWith('/hooks/catch/'));
  });
  afterAll(() => server.close({ remove: true }));

  it('POST /api/checkout/sessions with text/plain and a JSON-looking body answers 415', async () => {
    const response = await server.fetch('/api/checkout/sessions', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{"offer":"x"}' });
    expect(response.status).toBe(415);
    expect(await response.json()).toEqual({ message: 'The request body must be JSON.', code: 'unsupported_media_type' });
  });

  it.each(['text/plain', 'text/plain; charset=utf-8', 'text/html', 'application/x-www-form-urlencoded', 'application/xml'])(
    'every route that reads a body refuses %s with 415 (or refuses the caller before reading it)',
    async (contentType) => {
      expect(bodyRoutes.length).toBeGreaterThan(3);
      for (const route of bodyRoutes) {
        // OAuth's endpoints and its consent form take form bodies by RFC 6749 (and only those).
        if (contentType === 'application/x-www-form-urlencoded' && route.url.startsWith('/oauth/')) continue;
        // So do the hosted pages' own forms (the card page of a failed renewal, a receipt's cancel, the portal's).
        if (contentType === 'application/x-www-form-urlencoded' && (HOSTED_FORMS.has(route.url) || route.url.startsWith('/portal/'))) continue;
        const response = await server.fetch(fillPath(route.url, () => 'x'), { method: route.method, token, headers: { 'content-type': contentType }, body: '{"offer":"x"}' });
        const label = `${route.method} ${route.url}: ${response.status}`;
        // The catalog's writes deny every caller in onRequest, before any body is read.
        if (route.protected) expect([403, 415], label).toContain(response.status);
        // A management route refuses a caller without a session (401) before reading the body.
        else if (route.session) expect([401, 415], label).toContain(response.status);
        else expect(response.status, label).toBe(415);
        await response.arrayBuffer();
      }
    },
  );
});
