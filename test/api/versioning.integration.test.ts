import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enumerateRoutes } from '../helpers/routes.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * The spec: "No path carries a version segment." The README's Versioning section says what we do
 * instead (one additive version, deprecations announced with a Deprecation header); this holds
 * the part a test can: no route, and no path of the OpenAPI document, has a `v1`-like segment,
 * and a client that guesses one gets the unknown-route answer rather than a second API.
 */
describe('versioning', () => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer();
    ({ token } = await server.identity());
  });
  afterAll(() => server.close({ remove: true }));

  const versionSegment = /\/v\d+(?:\.\d+)*(?:\/|$)/i;

  it('no registered route and no documented path carries a version segment', async () => {
    const urls = enumerateRoutes(server.app).map((r) => r.url);
    expect(urls).toContain('/api/users/me');
    expect(urls.filter((u) => versionSegment.test(u))).toEqual([]);
    const openapi = (await (await server.fetch('/api/openapi.json')).json()) as { info: { version: string }; paths: Record<string, unknown> };
    expect(Object.keys(openapi.paths)).toContain('/api/catalog/products');
    expect(Object.keys(openapi.paths).filter((p) => versionSegment.test(p))).toEqual([]);
    // The README: info.version is the service's release, not an API version.
    const release = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
    expect(openapi.info.version).toBe(release);
  });

  it.each(['/api/v1/users/me', '/v1/api/catalog/products', '/api/v2/checkout?offer=x'])('%s is an unknown route (404 Route not found.)', async (path) => {
    const response = await server.fetch(path, { token });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ message: 'Route not found.' });
  });
});
