import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

describe('/ and /docs: where a person who opens the service goes', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close({ remove: true }));

  it('/ answers a browser with a page that links the docs and the SDK example, and JSON clients with the same links', async () => {
    const page = await server.fetch('/', { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    expect(html).toContain('<a href="/docs">');
    expect(html).toContain('<a href="/examples/sdk">');
    // The dashboard is served by the service, so the front page links it.
    expect(html).toContain('<a href="/dashboard">');

    const json = await server.fetch('/', { headers: { accept: 'application/json' } });
    expect(json.status).toBe(200);
    expect(await json.json()).toMatchObject({ links: { docs: '/docs', openapi: '/api/openapi.json', sdk_example: '/examples/sdk', dashboard: '/dashboard' } });
    for (const path of ['/docs', '/api/openapi.json', '/examples/sdk', '/healthz', '/dashboard']) expect((await server.fetch(path)).status, path).toBe(200);
  });

  it('/docs lists the catch route once (it takes every method) and renders `code` in its text as code', async () => {
    const html = await (await server.fetch('/docs')).text();
    expect(html.match(/\/hooks\/catch\/\{sequence\}\/\{trigger\}/g)).toHaveLength(1);
    expect(html).toMatch(/<td class="m">ANY<\/td><td><code>\/hooks\/catch/);
    expect(html).not.toContain('`');
    expect(html).toContain('<code>Authorization: Bearer &lt;api key&gt;</code>');
    // Routes with one method each keep a row each.
    expect(html).toMatch(/<td class="m">GET<\/td><td><code>\/api\/catalog\/products<\/code>/);
    expect(html).toMatch(/<td class="m">POST<\/td><td><code>\/api\/catalog\/products<\/code>/);
  });
});
