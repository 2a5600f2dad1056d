import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * What the router refuses before any route or hook runs (a URL it cannot decode, a path
 * parameter over maxParamLength) answers like every other error: our shape, an X-Request-Id and
 * the common security headers, and nothing of the URL echoed back.
 */
describe('router refusals', () => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer();
    ({ token } = await server.identity());
  });
  afterAll(() => server.close({ remove: true }));

  const longKey = 'k'.repeat(201);
  it.each([
    ['an undecodable URL', '/api/catalog/products/%ff', 400, { message: 'The request URL is malformed.', code: 'bad_request' }],
    ['an undecodable catch URL', '/hooks/catch/%ff/x', 400, { message: 'The request URL is malformed.', code: 'bad_request' }],
    ['a path parameter over 200 characters', `/api/catalog/products/${longKey}`, 414, { message: 'A segment of the request path is too long.', code: 'uri_too_long' }],
    ['a catch key over 200 characters', `/hooks/catch/${longKey}/x`, 414, { message: 'A segment of the request path is too long.', code: 'uri_too_long' }],
  ])('%s answers in our error shape with the common headers', async (_name, path, status, body) => {
    const response = await server.fetch(path, { token });
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    const text = await response.text();
    expect(JSON.parse(text)).toEqual(body);
    expect(text).not.toContain(path.slice(-20));
  });

  it('keeps the caller’s request id, as other answers do', async () => {
    const response = await server.fetch('/api/catalog/products/%ff', { headers: { 'x-request-id': 'trace-0123456789' } });
    expect(response.headers.get('x-request-id')).toBe('trace-0123456789');
    await response.arrayBuffer();
  });
});
