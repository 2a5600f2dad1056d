import { gunzipSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadConfig } from '../../platform/runtime/config.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { seedOffer } from './sdkFixtures.ts';

let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ env: { FRAME_ANCESTORS: "'self' https://shop.example.com" } });
  const org = await server.identity();
  await seedOffer(server, org.organizationId, 'pro-plan', { name: 'Pro <script>alert(1)</script> Plan' });
});
afterAll(() => server?.close({ remove: true }));

const html = (path: string) => server.fetch(path, { headers: { accept: 'text/html' } });

describe('GET /checkout/{offer}', () => {
  test('strict headers: a per-response nonce for its one script and style, frame-ancestors from config, no cookie', async () => {
    const res = await html('/checkout/pro-plan?mode=test');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = res.headers.get('content-security-policy')!;
    const nonce = /script-src 'nonce-([A-Za-z0-9_-]+)'/.exec(csp)![1]!;
    expect(csp).toContain(`style-src 'nonce-${nonce}'`);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'self' https://shop.example.com");
    expect(csp).not.toContain('unsafe-inline');
    expect(res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('set-cookie')).toBeNull();
    const body = await res.text();
    const scripts = [...body.matchAll(/<script([^>]*)>/g)].map((m) => m[1]!);
    expect(scripts.filter((a) => !a.includes('type="application/json"'))).toEqual([` nonce="${nonce}"`]);
    expect([...body.matchAll(/<style([^>]*)>/g)].map((m) => m[1])).toEqual([` nonce="${nonce}"`]);
    expect(body).not.toMatch(/\son[a-z]+=/i); // no inline handlers
    expect(body).not.toMatch(/csk_|api[_-]?key|bearer/i); // no credential
    // The seller's content is text, never markup.
    expect(body).toContain('Pro &lt;script&gt;alert(1)&lt;/script&gt; Plan');
    const again = await html('/checkout/pro-plan');
    expect(again.headers.get('content-security-policy')).not.toContain(nonce);
  });

  test('every mode and frame renders; rendering appends nothing to the event log (the page script creates the session)', async () => {
    await server.settle();
    const head = await server.services.store.headPosition();
    for (const q of ['mode=preview', 'mode=test', 'mode=live', 'frame=modal&nonce=abcdefghijklmnop12&origin=https://shop.example.com', 'frame=bottom%20sheet', 'frame=1']) {
      const res = await html(`/checkout/pro-plan?${q}`);
      expect(res.status, q).toBe(200);
    }
    const preview = await (await html('/checkout/pro-plan?mode=preview')).text();
    expect(preview).toContain('"mode":"preview"');
    expect(preview).toMatch(/data-page-type="upsell"/);
    expect(await server.services.store.headPosition()).toBe(head);
  });

  test('an unknown offer answers a 404 page with the same headers; bad references and parameters an HTML page too, never JSON', async () => {
    const res = await html('/checkout/no-such-offer');
    expect(res.status).toBe(404);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'self' https://shop.example.com");
    expect(await res.text()).toContain('This checkout is not available');
    // Loaded into a frame, a JSON error is raw text with no way to close it.
    const cases: Array<[string, number, string]> = [
      ['/checkout/pro-plan?mode=bogus', 400, 'invalid_link'],
      ['/checkout/pro-plan?frame=popup', 400, 'invalid_link'],
      ['/checkout/pro-plan?nonce=short', 400, 'invalid_link'],
      ['/checkout/pro-plan?origin=javascript:alert(1)', 400, 'invalid_link'],
      ['/checkout/pro-plan?origin=file://', 400, 'invalid_link'],
      ['/checkout/..%2F..%2Fetc', 404, 'offer_not_found'],
      ['/checkout/pro%20plan', 404, 'offer_not_found'],
      ['/checkout/pro.plan', 404, 'offer_not_found'],
      ['/checkout/pro%2Fplan', 404, 'offer_not_found'],
      ['/checkout/pro/plan', 404, 'offer_not_found'],
      [`/checkout/${'a'.repeat(300)}`, 404, 'offer_not_found'],
    ];
    for (const [path, status, says] of cases) {
      const page = await html(path);
      expect(page.status, path).toBe(status);
      expect(page.headers.get('content-type'), path).toMatch(/^text\/html/);
      expect(page.headers.get('content-security-policy'), path).toContain("default-src 'none'");
      expect(await page.text(), path).toContain(says);
    }
    // A bad parameter beside a sound nonce and origin: the page can still greet the SDK and hand it the error.
    const framed = await (await html('/checkout/pro-plan?frame=modal&nonce=abcdefghijklmnop12&origin=https://shop.example.com&mode=bogus')).text();
    expect(framed).toContain('"parentOrigin":"https://shop.example.com"');
    expect(framed).toContain('"error":{"code":"invalid_link"');
  });
});

describe('GET /checkout/{offer} rate limit', () => {
  test('each buyer has their own bucket: one address over the limit does not shut the page for another', async () => {
    const limited = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '3' } });
    try {
      const org = await limited.identity();
      await seedOffer(limited, org.organizationId, 'pro-plan');
      const open = (remoteAddress: string) => limited.app.inject({ method: 'GET', url: '/checkout/pro-plan?mode=test', remoteAddress });
      for (let i = 0; i < 3; i++) expect((await open('10.0.0.1')).statusCode).toBe(200);
      const over = await open('10.0.0.1');
      expect(over.statusCode).toBe(429);
      expect(over.headers['content-type']).toMatch(/^text\/html/);
      expect(over.headers['retry-after']).toMatch(/^\d+$/);
      expect(over.body).toContain('Too many requests');
      const other = await open('10.0.0.2');
      expect(other.statusCode).toBe(200);
      expect(other.body).not.toContain('class="co-missing"');
      // The checkout API's own bucket is untouched by page views.
      expect((await limited.app.inject({ method: 'GET', url: '/api/checkout?offer=pro-plan', remoteAddress: '10.0.0.1' })).statusCode).toBe(200);
    } finally {
      await limited.close({ remove: true });
    }
  });
});

describe('GET /sdk.js and /sdk.mjs', () => {
  test('one IIFE script within 15 KB gzipped, cacheable, revalidated by ETag, served gzipped on request', async () => {
    const res = await server.fetch('/sdk.js', { headers: { accept: '*/*', 'accept-encoding': 'identity' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/javascript/);
    expect(res.headers.get('cache-control')).toMatch(/max-age=\d+/);
    const body = await res.text();
    const gzipped = gzipSync(body).length;
    console.log(`sdk.js: ${body.length} bytes, ${(gzipped / 1024).toFixed(1)} KB gzipped`);
    expect(gzipped).toBeLessThan(15 * 1024);
    expect(body).not.toMatch(/^\s*(import|export)\b/m);
    const etag = res.headers.get('etag')!;
    expect((await server.fetch('/sdk.js', { headers: { 'if-none-match': etag } })).status).toBe(304);
    const { request } = await import('undici');
    const gz = await request(`${server.url}/sdk.js`, { headers: { 'accept-encoding': 'gzip' } });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(Buffer.from(await gz.body.arrayBuffer())).toString()).toBe(body);
  });

  test('the ESM build exports createSdk', async () => {
    const body = await (await server.fetch('/sdk.mjs')).text();
    expect(body).toMatch(/export\s*\{[^}]*createSdk/);
  });
});

describe('configuration', () => {
  test('FRAME_ANCESTORS defaults to * and refuses values that could break out of the directive', () => {
    expect(loadConfig({}).FRAME_ANCESTORS).toBe('*');
    expect(loadConfig({ FRAME_ANCESTORS: 'https://a.example https://*.b.example' }).FRAME_ANCESTORS).toBe('https://a.example https://*.b.example');
    expect(() => loadConfig({ FRAME_ANCESTORS: "*; script-src 'unsafe-inline'" })).toThrow(/FRAME_ANCESTORS/);
  });

  test('the example page is served outside production only, unless SDK_EXAMPLES says otherwise', async () => {
    expect((await html('/examples/sdk?offer=pro-plan')).status).toBe(200);
    const prod = await startTestServer({ env: { NODE_ENV: 'production' } });
    const forced = await startTestServer({ env: { NODE_ENV: 'production', SDK_EXAMPLES: 'on' } });
    try {
      expect((await prod.fetch('/examples/sdk')).status).toBe(404);
      expect((await forced.fetch('/examples/sdk')).status).toBe(200);
    } finally {
      await prod.close({ remove: true });
      await forced.close({ remove: true });
    }
  });
});
