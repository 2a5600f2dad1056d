import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInPerson } from '../helpers/manageClient.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const T0 = Date.UTC(2027, 0, 31, 12) / 1000;

/** The test clock routes under /manage/api: a person's session, the CSRF token on writes, their organization's clocks only. */
describe('test clocks for the dashboard', () => {
  let server: TestServer;
  let seller: Awaited<ReturnType<typeof signedInPerson>>;
  let stranger: Awaited<ReturnType<typeof signedInPerson>>;

  beforeAll(async () => {
    server = await startTestServer();
    seller = await signedInPerson(server, { role: 'member' });
    stranger = await signedInPerson(server);
  });
  afterAll(async () => server?.close({ remove: true }));

  /** A write carrying the session cookie but no valid CSRF token (what a forged cross-site form sends). */
  const forged = (method: string, path: string, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: {
        accept: 'application/json',
        'sec-fetch-site': 'same-origin',
        cookie: `commerce_session=${seller.client.cookie}`,
        'x-csrf-token': 'forged',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });

  it('creates, lists, reads, advances and deletes a clock with the session', async () => {
    const created = await seller.client.json<Body>('POST', '/manage/api/test_clocks', { frozen_time: T0, name: 'Renewals' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ id: expect.stringMatching(/^clock_/), object: 'test_helpers.test_clock', frozen_time: T0, status: 'ready', name: 'Renewals', livemode: false, created_at: expect.any(Number) });
    const id = created.body.id as string;
    expect((await seller.client.json<Body>('GET', '/manage/api/test_clocks')).body.data.map((c: Body) => c.id)).toContain(id);

    const backwards = await seller.client.json<Body>('POST', `/manage/api/test_clocks/${id}/advance`, { frozen_time: T0 - 1 });
    expect(backwards.status).toBe(422);
    expect(backwards.body.code).toBe('test_clock_backwards');

    const advanced = await seller.client.json<Body>('POST', `/manage/api/test_clocks/${id}/advance`, { frozen_time: T0 + 86_400 });
    expect(advanced.status).toBe(200);
    expect(advanced.body).toMatchObject({ id, frozen_time: T0 + 86_400, status: 'advancing' });
    // The server's advance job finishes it.
    await expect.poll(async () => (await seller.client.json<Body>('GET', `/manage/api/test_clocks/${id}`)).body.status, { timeout: 15_000 }).toBe('ready');

    const deleted = await seller.client.json<Body>('DELETE', `/manage/api/test_clocks/${id}`);
    expect(deleted).toEqual({ status: 200, body: { id, object: 'test_helpers.test_clock', deleted: true } });
    expect((await seller.client.json('GET', `/manage/api/test_clocks/${id}`)).status).toBe(404);
  });

  it('refuses a write without the CSRF token, and a request without a session', async () => {
    expect((await forged('POST', '/manage/api/test_clocks', { frozen_time: T0 })).status).toBe(403);
    const { body: clock } = await seller.client.json<Body>('POST', '/manage/api/test_clocks', { frozen_time: T0 });
    expect((await forged('POST', `/manage/api/test_clocks/${clock.id}/advance`, { frozen_time: T0 + 60 })).status).toBe(403);
    expect((await forged('DELETE', `/manage/api/test_clocks/${clock.id}`)).status).toBe(403);
    expect((await seller.client.json<Body>('GET', `/manage/api/test_clocks/${clock.id}`)).body).toMatchObject({ frozen_time: T0, status: 'ready' });
    expect((await fetch(`${server.url}/manage/api/test_clocks`, { headers: { accept: 'application/json' } })).status).toBe(401);
  });

  it("answers another organization's clock as unknown and keeps it out of their list", async () => {
    const { body: clock } = await seller.client.json<Body>('POST', '/manage/api/test_clocks', { frozen_time: T0 });
    expect((await stranger.client.json('GET', `/manage/api/test_clocks/${clock.id}`)).status).toBe(404);
    expect((await stranger.client.json('POST', `/manage/api/test_clocks/${clock.id}/advance`, { frozen_time: T0 + 60 })).status).toBe(404);
    expect((await stranger.client.json('DELETE', `/manage/api/test_clocks/${clock.id}`)).status).toBe(404);
    expect((await stranger.client.json<Body>('GET', '/manage/api/test_clocks')).body.data.map((c: Body) => c.id)).not.toContain(clock.id);
    expect((await seller.client.json<Body>('GET', `/manage/api/test_clocks/${clock.id}`)).body).toMatchObject({ frozen_time: T0, status: 'ready' });
  });

  it('describes the routes in the OpenAPI document, and the statement, history and metrics answers field by field', async () => {
    const doc = (await (await server.fetch('/api/openapi.json')).json()) as Body;
    for (const [path, method] of [
      ['/manage/api/test_clocks', 'get'],
      ['/manage/api/test_clocks', 'post'],
      ['/manage/api/test_clocks/{id}', 'get'],
      ['/manage/api/test_clocks/{id}/advance', 'post'],
      ['/manage/api/test_clocks/{id}', 'delete'],
    ] as const) {
      expect(doc.paths[path]?.[method]?.tags, `${method} ${path}`).toEqual(['manage']);
    }
    const answer = (path: string) => doc.paths[path].get.responses['200'].content['application/json'].schema as Body;
    expect(Object.keys(answer('/api/subscriptions/{id}/statement').properties)).toEqual(expect.arrayContaining(['totals', 'entries', 'pending_prorations', 'current_period']));
    expect(answer('/api/subscriptions/{id}/history').properties.data.items.properties.actor).toBeDefined();
    expect(Object.keys(answer('/manage/api/metrics/subscriptions').properties)).toEqual(expect.arrayContaining(['mrr', 'by_status', 'window', 'active_subscriptions']));
  });
});
