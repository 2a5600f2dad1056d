import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../platform/http/jsonDepth.ts';
import { automationFixture } from '../automation/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

const TOO_DEEP = { message: `The request body is nested more than ${MAX_JSON_DEPTH} levels deep.`, code: 'body_too_deep' };

/** `{"x":[[…]]}`: an object holding arrays, `depth` levels in all. */
const deepBody = (depth: number) => `{"x":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;

/**
 * A body nested deeper than the limit is refused at ingress on every route, recording nothing;
 * one at the limit is recorded and every projection applies it (a body the log accepted but a
 * projection could not apply kept readiness at 503 for ever, and every CLI command failed).
 */
describe('deeply nested bodies', () => {
  let server: TestServer;
  let me: Awaited<ReturnType<TestServer['identity']>>;
  let catchPath: string;
  let triggerId: number;
  beforeAll(async () => {
    server = await startTestServer();
    me = await server.identity();
    const fixture = await automationFixture(server, me.organizationId, []);
    catchPath = fixture.path;
    triggerId = fixture.trigger.id;
  });
  afterAll(() => server.close({ remove: true }));

  const head = async () => server.services.store.headPosition();
  const ready = async () => {
    await server.settle();
    const response = await server.fetch('/readyz');
    return { status: response.status, body: (await response.json()) as unknown };
  };
  const send = (path: string, body: string, contentType = 'application/json', method = 'POST') =>
    server.fetch(path, { method, headers: { 'content-type': contentType }, body });

  it.each([
    ['the audit’s 1,500 levels', 1500, 'application/json'],
    ['5,000 levels (JSON.stringify overflowed)', 5000, 'application/json'],
    ['200,000 levels', 200_000, 'application/json'],
    ['one level past the limit', MAX_JSON_DEPTH + 1, 'application/json'],
    ['one level past the limit as application/*+json', MAX_JSON_DEPTH + 1, 'application/vnd.sender+json'],
  ])('a real catch URL refuses %s with 400 and records nothing', async (_name, depth, contentType) => {
    const before = await head();
    for (const method of ['POST', 'PUT', 'PATCH']) {
      const response = await send(catchPath, deepBody(depth), contentType, method);
      expect(response.status).toBe(400);
      expect(await response.json()).toEqual(TOO_DEEP);
    }
    expect(await head()).toBe(before);
    expect((await ready()).status).toBe(200);
  });

  it('a catch body at the limit is recorded, applied by every projection, and shown as a sample', async () => {
    const response = await send(catchPath, deepBody(MAX_JSON_DEPTH));
    expect(response.status).toBe(200);
    expect((await ready()).status).toBe(200);
    const test = await server.fetch(`/api/automation/triggers/${triggerId}/test`, { token: me.token });
    const samples = ((await test.json()) as { samples: Array<{ payload: unknown }> }).samples;
    expect(JSON.stringify(samples[0]!.payload)).toBe(deepBody(MAX_JSON_DEPTH));
  });

  it('a JSON array at the limit is wrapped as {_body} and still applied', async () => {
    const array = '['.repeat(MAX_JSON_DEPTH) + ']'.repeat(MAX_JSON_DEPTH);
    expect((await send(catchPath, array)).status).toBe(200);
    expect((await ready()).status).toBe(200);
  });

  it('brackets inside strings do not count', async () => {
    const response = await send(catchPath, JSON.stringify({ note: `${'['.repeat(5000)}"${'{'.repeat(5000)}\\` }));
    expect(response.status).toBe(200);
    expect((await ready()).status).toBe(200);
  });

  it('a form body cannot nest: bracketed names stay flat keys', async () => {
    const response = await send(catchPath, `${'a' + '[b]'.repeat(2000)}=1`, 'application/x-www-form-urlencoded');
    expect(response.status).toBe(200);
    expect((await ready()).status).toBe(200);
  });

  it('JSON routes refuse a body past the limit before validating it, and take one at it', async () => {
    const metadata = (depth: number) => `{"offer":"nope","metadata":${'{"a":'.repeat(depth - 1)}1${'}'.repeat(depth - 1)}}`;
    const before = await head();
    const deep = await send('/api/checkout/sessions', metadata(MAX_JSON_DEPTH + 1));
    expect(deep.status).toBe(400);
    expect(await deep.json()).toEqual(TOO_DEEP);
    const huge = await send('/api/checkout/sessions', metadata(100_000));
    expect(huge.status).toBe(400);
    expect(await head()).toBe(before);
    // At the limit the body is parsed and reaches validation and the handler (an unknown offer).
    const atLimit = await send('/api/checkout/sessions', metadata(MAX_JSON_DEPTH));
    expect(atLimit.status).not.toBe(400);
    expect(atLimit.status).toBeLessThan(500);
  });
});
