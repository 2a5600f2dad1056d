import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPromo } from '../../modules/promos/promoCommands.ts';
import { sequenceStream } from '../../modules/automation/domain/sequence.ts';
import { eventually, startReceiver } from '../helpers/receiver.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { automationFixture, TEST_ENV, webhookAction } from './fixtures.ts';

type Workflow = {
  workflow_id: number;
  status: string;
  steps: Array<{ step: number; status: string; attempts: number; result: Record<string, unknown> }>;
};

async function post(server: TestServer, path: string, body: unknown = { email: 'buyer@example.com', ref: 'ORD-1' }) {
  const response = await server.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return ((await response.json()) as { workflow_id: number }).workflow_id;
}

async function finished(server: TestServer, token: string, id: number): Promise<Workflow> {
  return eventually(async () => {
    const r = await server.fetch(`/api/automation/workflows/${id}`, { token });
    if (r.status !== 200) return null;
    const w = (await r.json()) as Workflow;
    return w.status !== 'running' ? w : null;
  });
}

describe('automation subscriber: Send Webhook to real receivers', () => {
  let server: TestServer;
  let me: Awaited<ReturnType<TestServer['identity']>>;
  beforeAll(async () => {
    server = await startTestServer({ env: TEST_ENV });
    me = await server.identity();
  });
  afterAll(() => server.close({ remove: true }));

  it('sends the rendered payload with JSON content type, idempotency key and signature, and records the spec result', async () => {
    const receiver = await startReceiver((_c, res) => {
      res.writeHead(201, { 'content-type': 'text/plain', 'x-multi': ['a', 'b'] });
      res.end('created');
    });
    const f = await automationFixture(server, me.organizationId, [
      webhookAction(`${receiver.url}/hook?x=1`, {
        method: 'PUT',
        payload: '{"email":"{{webhook_payload.email}}","ref":"{{webhook_payload.ref}}","n":{{webhook_payload.n}}}',
        headers: { 'X-Custom': 'yes' },
        signing_secret: 'whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=',
      }),
    ]);
    const id = await post(server, f.path, { email: 'a"b@example.com', ref: 'R-1', n: 3 });
    const workflow = await finished(server, me.token, id);
    expect(workflow.status).toBe('completed');
    const payload = '{"email":"a\\"b@example.com","ref":"R-1","n":3}';
    expect(JSON.parse(payload)).toEqual({ email: 'a"b@example.com', ref: 'R-1', n: 3 });
    expect(workflow.steps[0]!.result).toEqual({
      success: true,
      status_code: 201,
      response_body: 'created',
      headers: expect.objectContaining({ 'content-type': ['text/plain'], 'x-multi': ['a', 'b'] }),
      url: `${receiver.url}/hook?x=1`,
      payload,
      method: 'put',
    });
    const call = receiver.calls[0]!;
    expect(call).toMatchObject({ method: 'PUT', url: '/hook?x=1', body: payload });
    expect(call.headers['content-type']).toBe('application/json');
    expect(call.headers['x-custom']).toBe('yes');
    expect(call.headers['idempotency-key']).toBe(`wf_${id}_step_0`);
    expect(call.headers['webhook-id']).toBe(`wf_${id}_step_0`);
    const headers = Object.fromEntries(Object.entries(call.headers).map(([k, v]) => [k, String(v)]));
    expect(new Webhook('whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=').verify(call.body, headers)).toEqual(JSON.parse(payload));
    await receiver.close();
  });

  it('runs the workflow of a delivery once though its sender repeats the key with another body, and goes on with later ones', async () => {
    const receiver = await startReceiver();
    const f = await automationFixture(server, me.organizationId, [webhookAction(`${receiver.url}/hook`)]);
    const send = (body: unknown, key?: string) =>
      server.fetch(f.path, { method: 'POST', headers: { 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) }, body: JSON.stringify(body) });
    const first = ((await (await send({ email: 'one@example.com' }, 'k-1')).json()) as { workflow_id: number }).workflow_id;
    const repeats = await Promise.all([send({ email: 'two@example.com' }, 'k-1'), send({ email: 'three@example.com' }, 'k-1')]);
    for (const r of repeats) expect(((await r.json()) as { workflow_id: number }).workflow_id).toBe(first);
    const later = await post(server, f.path, { email: 'later@example.com' });
    expect((await finished(server, me.token, first)).status).toBe('completed');
    expect((await finished(server, me.token, later)).status).toBe('completed');
    await server.settle();
    expect(receiver.calls.map((c) => (JSON.parse(c.body) as { email: string }).email).sort()).toEqual(['later@example.com', 'one@example.com']);
    await receiver.close();
  });

  it('sends null for a value missing outside a string, and does not send a payload that renders as something other than JSON', async () => {
    const receiver = await startReceiver();
    const f = await automationFixture(server, me.organizationId, [webhookAction(`${receiver.url}/hook`, { payload: '{"n":{{webhook_payload.n}},"e":"{{webhook_payload.email}}"}' })]);
    const missing = await finished(server, me.token, await post(server, f.path, { email: 'a@example.com' }));
    expect(missing.status).toBe('completed');
    expect(receiver.calls.map((c) => c.body)).toEqual(['{"n":null,"e":"a@example.com"}']);

    // A string outside quotes is inserted as its text: "abc" there is not JSON.
    const broken = await finished(server, me.token, await post(server, f.path, { n: 'abc' }));
    expect(broken).toMatchObject({ status: 'failed', steps: [{ status: 'failed', attempts: 1 }] });
    expect(broken.steps[0]!.result).toEqual({
      success: false,
      status_code: 0,
      response_body: '',
      headers: {},
      url: `${receiver.url}/hook`,
      payload: '{"n":abc,"e":""}',
      method: 'post',
      error: 'invalid_payload',
      message: expect.stringMatching(/^The payload rendered from the template is not JSON \(.+\); it was not sent\.$/),
    });
    expect(receiver.calls).toHaveLength(1);

    // A sequence saved before payload templates were checked (written to the log directly here).
    const legacy = webhookAction(`${receiver.url}/hook`, { payload: 'email={{webhook_payload.email}}' });
    await server.services.store.append(sequenceStream(f.sequence.id), [
      { id: randomUUID(), type: 'SequenceUpdated', data: { name: 'Test sequence', status: 'active', actions: [legacy], updated_at: 1 }, metadata: server.cliContext(me.organizationId).metadata },
    ], 'any');
    const old = await finished(server, me.token, await post(server, f.path, { email: 'a@example.com' }));
    expect(old.steps[0]!.result).toMatchObject({ success: false, error: 'invalid_payload', payload: 'email=a@example.com' });
    expect(receiver.calls).toHaveLength(1);
    await receiver.close();
  });

  it('does not send a header value with a line break, recorded before such values were refused, and does not retry it', async () => {
    const receiver = await startReceiver();
    const f = await automationFixture(server, me.organizationId, [webhookAction(`${receiver.url}/hook`)]);
    // Written to the log directly: the sequence commands refuse such a value now.
    const legacy = webhookAction(`${receiver.url}/hook`, { headers: { 'X-Token': 'abc\r\nX-Injected: 1' } });
    await server.services.store.append(sequenceStream(f.sequence.id), [
      { id: randomUUID(), type: 'SequenceUpdated', data: { name: 'Test sequence', status: 'active', actions: [legacy], updated_at: 1 }, metadata: server.cliContext(me.organizationId).metadata },
    ], 'any');
    const workflow = await finished(server, me.token, await post(server, f.path));
    expect(workflow).toMatchObject({ status: 'failed', steps: [{ status: 'failed', attempts: 1 }] });
    expect(workflow.steps[0]!.result).toMatchObject({ success: false, status_code: 0, error: 'invalid_headers', message: expect.stringContaining('x-token') });
    expect(receiver.calls).toHaveLength(0);
    await receiver.close();
  });

  it('sends GET without a body or content type', async () => {
    const receiver = await startReceiver();
    const f = await automationFixture(server, me.organizationId, [webhookAction(receiver.url, { method: 'GET', payload: '' })]);
    const workflow = await finished(server, me.token, await post(server, f.path));
    expect(workflow.steps[0]!.result).toMatchObject({ success: true, status_code: 200, payload: '', method: 'get' });
    expect(receiver.calls[0]!.body).toBe('');
    expect(receiver.calls[0]!.headers['content-type']).toBeUndefined();
    await receiver.close();
  });

  it('retries a receiver that fails with 503 then succeeds, with the same idempotency key', async () => {
    const receiver = await startReceiver((_c, res, i) => {
      res.writeHead(i < 2 ? 503 : 200);
      res.end(i < 2 ? 'busy' : 'ok');
    });
    const f = await automationFixture(server, me.organizationId, [webhookAction(receiver.url)]);
    const workflow = await finished(server, me.token, await post(server, f.path));
    expect(workflow.status).toBe('completed');
    expect(workflow.steps[0]).toMatchObject({ attempts: 3, result: { success: true, status_code: 200, response_body: 'ok' } });
    expect(new Set(receiver.calls.map((c) => c.headers['idempotency-key'])).size).toBe(1);
    await receiver.close();
  });

  it('gives up on a receiver that hangs: timeout, status 0, bounded attempts, workflow failed, later steps not run', async () => {
    // Its own server with a short timeout, so three timed-out attempts take seconds, not fifteen.
    const quick = await startTestServer({ env: { ...TEST_ENV, WEBHOOK_TIMEOUT_MS: '800' } });
    const owner = await quick.identity();
    const hanging = await startReceiver(() => undefined);
    const after = await startReceiver();
    const f = await automationFixture(quick, owner.organizationId, [webhookAction(hanging.url), webhookAction(after.url)]);
    const workflow = await finished(quick, owner.token, await post(quick, f.path));
    expect(workflow.status).toBe('failed');
    expect(workflow.steps).toHaveLength(1);
    expect(workflow.steps[0]).toMatchObject({ status: 'failed', attempts: 3 });
    expect(workflow.steps[0]!.result).toEqual({
      success: false,
      status_code: 0,
      response_body: '',
      headers: {},
      url: hanging.url,
      payload: '{"email":"buyer@example.com"}',
      method: 'post',
      error: 'timeout',
    });
    expect(hanging.calls).toHaveLength(3);
    expect(after.calls).toHaveLength(0);
    await quick.close({ remove: true });
    await hanging.close();
    await after.close();
  });

  it('does not follow a redirect (to a private address): the 3xx is the failed result', async () => {
    const receiver = await startReceiver((_c, res) => {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
      res.end();
    });
    const f = await automationFixture(server, me.organizationId, [webhookAction(receiver.url)]);
    const workflow = await finished(server, me.token, await post(server, f.path));
    expect(workflow.steps[0]!.result).toMatchObject({ success: false, status_code: 302, headers: { location: ['http://169.254.169.254/latest/meta-data/'] } });
    expect(workflow.steps[0]!.attempts).toBe(1);
    expect(receiver.calls).toHaveLength(1);
    await receiver.close();
  });

  it('records connection_refused when nothing listens', async () => {
    const receiver = await startReceiver();
    const url = receiver.url;
    await receiver.close();
    const f = await automationFixture(server, me.organizationId, [webhookAction(url)]);
    const workflow = await finished(server, me.token, await post(server, f.path));
    expect(workflow.steps[0]!.result).toMatchObject({ success: false, status_code: 0, error: 'connection_refused' });
  });

  it('enrols the webhook payload in a promo once per email', async () => {
    const now = Math.floor(Date.now() / 1000);
    await createPromo(server.cliContext(me.organizationId), {
      organizationId: me.organizationId,
      slug: 'wf-launch',
      name: 'Launch',
      startsAt: now - 60,
      endsAt: now + 3600,
      tiers: [{ name: 'Early', price: 900, discount_percent: null, until: null, max_participants: null }],
      offers: ['wf-offer'],
    });
    const f = await automationFixture(server, me.organizationId, [
      { type: 'enrol_in_promo', promo: 'wf-launch', email: '{{webhook_payload.email}}', reference: '{{webhook_payload.ref}}' },
    ]);
    const first = await finished(server, me.token, await post(server, f.path, { email: 'Fan@Example.com', ref: 'R9' }));
    expect(first.steps[0]!.result).toEqual({ success: true, promo: 'wf-launch', email: 'fan@example.com', reference: 'R9', enrolled: true });
    const second = await finished(server, me.token, await post(server, f.path, { email: 'fan@example.com' }));
    expect(second.steps[0]!.result).toMatchObject({ success: true, enrolled: false });
    const bad = await finished(server, me.token, await post(server, f.path, { ref: 'no email' }));
    expect(bad).toMatchObject({ status: 'failed', steps: [{ result: { success: false, error: 'missing_email', reference: 'no email' } }] });
    // The catch URL takes a CRM's nulls and numbers; the step says what was wrong with them.
    const nulls = await finished(server, me.token, await post(server, f.path, { email: null, ref: 123 }));
    expect(nulls).toMatchObject({ status: 'failed', steps: [{ status: 'failed', result: { success: false, promo: 'wf-launch', error: 'missing_email', email: '', reference: '123' } }] });
    expect(nulls.steps[0]!.result.message).toContain('{{webhook_payload.email}}');
    const malformed = await finished(server, me.token, await post(server, f.path, { email: 'not an email' }));
    expect(malformed).toMatchObject({ status: 'failed', steps: [{ result: { success: false, error: 'invalid_email', email: 'not an email' } }] });
    await server.settle();
    const promo = (await (await server.fetch('/api/promos/wf-launch')).json()) as { participants_count: number };
    expect(promo.participants_count).toBe(1);

    // Many workflows enrolling in one promo at once all succeed (contention is retried).
    const ids = await Promise.all(Array.from({ length: 24 }, (_v, i) => post(server, f.path, { email: `crowd${i}@example.com` })));
    const runs = await Promise.all(ids.map((id) => finished(server, me.token, id)));
    expect(runs.every((w) => w.status === 'completed')).toBe(true);
    await server.settle();
    const crowded = (await (await server.fetch('/api/promos/wf-launch')).json()) as { participants_count: number };
    expect(crowded.participants_count).toBe(25);
  });

  it('answers another organization’s workflow like an unknown one', async () => {
    const stranger = await server.identity('Other');
    const f = await automationFixture(server, me.organizationId, []);
    const id = await post(server, f.path);
    await finished(server, me.token, id);
    const foreign = await server.fetch(`/api/automation/workflows/${id}`, { token: stranger.token });
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual(await (await server.fetch('/api/automation/workflows/99999999', { token: stranger.token })).json());
  });
});

describe('SSRF guard without an allow list', () => {
  let server: TestServer;
  let me: Awaited<ReturnType<TestServer['identity']>>;
  beforeAll(async () => {
    server = await startTestServer({ env: { ...TEST_ENV, WEBHOOK_ALLOW_HOSTS: '' } });
    me = await server.identity();
  });
  afterAll(() => server.close({ remove: true }));

  it('refuses loopback, private, link-local and mapped addresses, by literal and by DNS, and never connects', async () => {
    const receiver = await startReceiver();
    const port = new URL(receiver.url).port;
    const urls = [
      `http://127.0.0.1:${port}/`,
      `http://localhost:${port}/`,
      `http://[::1]:${port}/`,
      `http://[::ffff:127.0.0.1]:${port}/`,
      `http://0x7f000001:${port}/`,
      `http://2130706433:${port}/`,
      'http://169.254.169.254/latest/meta-data/',
      'http://10.0.0.1/',
      'http://[fd00::1]/',
      'http://[64:ff9b::a9fe:a9fe]/',
    ];
    for (const url of urls) {
      const g = await automationFixture(server, me.organizationId, [webhookAction(url)]);
      const workflow = await finished(server, me.token, await post(server, g.path));
      expect(workflow.steps[0]!.result, url).toMatchObject({ success: false, status_code: 0, error: 'blocked_address' });
      expect(workflow.steps[0]!.attempts, url).toBe(1);
    }
    expect(receiver.calls).toHaveLength(0);
    await receiver.close();
  });

  it('says which setting would allow a refused address, for a literal address and for a name that resolves to one', async () => {
    for (const [url, words] of [
      ['http://127.0.0.1:9/', '127.0.0.1 is a loopback address'],
      ['http://localhost:9/', 'localhost (127.0.0.1) is a loopback address'],
      ['http://10.0.0.1/', '10.0.0.1 is a private address'],
    ] as const) {
      const g = await automationFixture(server, me.organizationId, [webhookAction(url)]);
      const workflow = await finished(server, me.token, await post(server, g.path));
      const result = workflow.steps[0]!.result as { error: string; message: string };
      expect(result.error, url).toBe('blocked_address');
      expect(result.message, url).toContain(words);
      expect(result.message, url).toContain(`WEBHOOK_ALLOW_HOSTS=${new URL(url).hostname}`);
    }
  });

  it('refuses a sequence whose webhook URL is not http or https', async () => {
    const { createSequence } = await import('../../modules/automation/automationCommands.ts');
    for (const url of ['ftp://example.com/', 'file:///etc/passwd', 'not a url', 'http://user:pw@example.com/']) {
      await expect(createSequence(server.cliContext(me.organizationId), { organizationId: me.organizationId, name: 'x', actions: [webhookAction(url)] })).rejects.toMatchObject({
        code: 'invalid_url',
      });
    }
  });
});

describe('restart in the middle of a workflow', () => {
  it('resumes after a restart on the same DATA_DIR without repeating the completed step', async () => {
    let server = await startTestServer({ env: TEST_ENV });
    const me = await server.identity();
    const first = await startReceiver();
    const second = await startReceiver((_c, res, i) => {
      if (i === 0) return; // hang on the first call: the server stops meanwhile
      res.writeHead(200);
      res.end('second ok');
    });
    const f = await automationFixture(server, me.organizationId, [webhookAction(first.url), webhookAction(second.url)]);
    const id = await post(server, f.path);
    await eventually(async () => second.calls.length === 1);
    await server.close();

    server = await startTestServer({ env: TEST_ENV, dataDir: server.dataDir });
    const workflow = await finished(server, me.token, id);
    expect(workflow.status).toBe('completed');
    expect(first.calls).toHaveLength(1);
    expect(second.calls).toHaveLength(2);
    expect(second.calls.map((c) => c.headers['idempotency-key'])).toEqual([`wf_${id}_step_1`, `wf_${id}_step_1`]);
    expect(workflow.steps.map((s) => [s.step, s.status])).toEqual([
      [0, 'succeeded'],
      [1, 'succeeded'],
    ]);
    await server.close({ remove: true });
    await first.close();
    await second.close();
  });
});
