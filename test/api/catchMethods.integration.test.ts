import { METHODS } from 'node:http';
import { connect } from 'node:net';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { automationFixture } from '../automation/fixtures.ts';
import { enumerateRoutes } from '../helpers/routes.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/** Every method Node's parser accepts but CONNECT, which Node never hands to a request handler. */
const NODE_METHODS = METHODS.filter((m) => m !== 'CONNECT');

/** The spec: the catch URL accepts any HTTP method; nothing else changes. */
describe('catch URL methods', () => {
  let server: TestServer;
  let me: Awaited<ReturnType<TestServer['identity']>>;
  let fixture: Awaited<ReturnType<typeof automationFixture>>;
  beforeAll(async () => {
    server = await startTestServer({ env: { CATCH_RATE_LIMIT_MAX: '100000' } });
    me = await server.identity();
    fixture = await automationFixture(server, me.organizationId, []);
  });
  afterAll(() => server.close({ remove: true }));

  const latestSample = async () => {
    await server.settle();
    const test = await server.fetch(`/api/automation/triggers/${fixture.trigger.id}/test`, { token: me.token });
    return ((await test.json()) as { samples: Array<{ method: string; payload: unknown }> }).samples[0];
  };

  it.each(NODE_METHODS)('%s starts a workflow and is recorded with its method', async (method) => {
    const response = await request(`${server.url}${fixture.path}`, {
      method,
      headers: { 'content-type': 'application/json' },
      ...(['GET', 'HEAD', 'TRACE'].includes(method) ? {} : { body: '{"email":"a@example.com"}' }),
    });
    const text = await response.body.text();
    expect(response.statusCode, text).toBe(200);
    if (method !== 'HEAD') expect(JSON.parse(text)).toMatchObject({ success: true, message: 'Workflow started' });
    const sample = await latestSample();
    expect(sample?.method).toBe(method);
  });

  it('a WebDAV method with a form body records its fields', async () => {
    const response = await request(`${server.url}${fixture.path}`, { method: 'PROPPATCH', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'email=b%40example.com' });
    expect(response.statusCode).toBe(200);
    await response.body.arrayBuffer();
    expect(await latestSample()).toMatchObject({ method: 'PROPPATCH', payload: { email: 'b@example.com' } });
  });

  it('an unknown catch key still answers 404 Webhook not found. for such a method', async () => {
    const response = await request(`${server.url}/hooks/catch/nope/nope`, { method: 'PURGE' });
    expect(response.statusCode).toBe(404);
    expect(await response.body.json()).toEqual({ message: 'Webhook not found.', code: 'not_found' });
  });

  it('other routes are as they were: the new methods are not theirs', async () => {
    const extra = new Set(NODE_METHODS.filter((m) => !['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'QUERY'].includes(m)));
    const withExtra = enumerateRoutes(server.app).filter((r) => extra.has(r.method));
    expect(new Set(withExtra.map((r) => r.url))).toEqual(new Set(['/hooks/catch/:sequence/:trigger']));
    for (const method of ['PROPFIND', 'PURGE', 'LOCK']) {
      const response = await request(`${server.url}/api/catalog/products`, { method, headers: { authorization: `Bearer ${me.token}` } });
      expect(response.statusCode).toBe(404);
      expect(response.headers['x-request-id']).toBeTruthy();
      expect(await response.body.json()).toEqual({ message: 'Route not found.', code: 'route_not_found' });
    }
  });

  it('the OpenAPI document stays OpenAPI: the catch path lists only OpenAPI’s operations', async () => {
    const doc = (await (await server.fetch('/api/openapi.json')).json()) as { paths: Record<string, Record<string, unknown>> };
    expect(Object.keys(doc.paths['/hooks/catch/{sequence}/{trigger}']!).sort()).toEqual(['delete', 'get', 'head', 'options', 'patch', 'post', 'put', 'query', 'trace']);
  });

  it('a method Node’s parser refuses still answers 400 in our shape', async () => {
    const { hostname, port } = new URL(server.url);
    const answer = await new Promise<string>((resolve) => {
      let text = '';
      const socket = connect(Number(port), hostname, () => socket.write(`FOO ${fixture.path} HTTP/1.1\r\nHost: localhost\r\n\r\n`));
      socket.on('data', (chunk) => (text += chunk.toString()));
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(answer).toContain('{"message":"Malformed HTTP request.","code":"bad_request"}');
  });
});
