import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { replaceTrigger, setSequenceStatus, setTriggerEnabled } from '../../modules/automation/automationCommands.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { automationFixture, TEST_ENV } from './fixtures.ts';
import { automationProjection, SAMPLES, SAMPLES_KEPT } from '../../modules/automation/automationProjection.ts';
import { rebuildProjection } from '../../platform/es/projectionRunner.ts';
import { AUTOMATION_CHECKPOINT } from '../../modules/automation/jobs/workflowRunner.ts';
import { eventually } from '../helpers/receiver.ts';
import { webhookReceptionStream } from '../../modules/automation/domain/webhookReception.ts';

const STARTED = { success: true, message: 'Workflow started' };
const SKIPPED = { success: true, message: 'Webhook received but trigger was skipped', workflow_id: null };

describe('catch URL /hooks/catch/{sequence}/{trigger}', () => {
  let server: TestServer;
  let me: Awaited<ReturnType<TestServer['identity']>>;
  beforeAll(async () => {
    server = await startTestServer({ env: { ...TEST_ENV, CATCH_RATE_LIMIT_MAX: '40', CATCH_RATE_LIMIT_WINDOW_MS: '60000' } });
    me = await server.identity();
  });
  afterAll(() => server.close({ remove: true }));

  const eventCount = async () => (await server.services.store.headPosition()) ?? 0;

  it('starts a workflow for a JSON POST and answers an integer workflow_id', async () => {
    const { path } = await automationFixture(server, me.organizationId, []);
    const response = await server.fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'a@example.com', ref: 'R1', source: 'crm', extra: { nested: 1 } }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { workflow_id: number };
    expect(body).toMatchObject(STARTED);
    expect(Number.isInteger(body.workflow_id)).toBe(true);
  });

  it.each([
    ['GET with no body', 'GET', undefined, undefined, {}],
    ['DELETE with no body', 'DELETE', undefined, undefined, {}],
    ['PUT with a form body', 'PUT', 'application/x-www-form-urlencoded', 'email=b%40example.com&tag=1&tag=2', { email: 'b@example.com', tag: ['1', '2'] }],
    // Names an object inherits: read as fields of their own, not as what Object.prototype holds there.
    [
      'POST with form fields named like Object.prototype members',
      'POST',
      'application/x-www-form-urlencoded',
      'constructor=c&toString=t&toString=u&hasOwnProperty=h&email=e%40example.com',
      { constructor: 'c', toString: ['t', 'u'], hasOwnProperty: 'h', email: 'e@example.com' },
    ],
    ['POST with a JSON array', 'POST', 'application/json', '[1,2]', { _body: [1, 2] }],
    ['POST with a JSON string', 'POST', 'application/json', '"hello"', { _body: 'hello' }],
    ['POST with empty JSON', 'POST', 'application/json', '', {}],
    ['PATCH with plain text', 'PATCH', 'text/plain', 'just text', { _body: 'just text' }],
    ['POST with XML', 'POST', 'application/xml', '<a>1</a>', { _body: '<a>1</a>' }],
  ])('accepts %s and records the payload and method', async (_name, method, contentType, body, payload) => {
    const { path, trigger } = await automationFixture(server, me.organizationId, []);
    const headers: Record<string, string> = contentType ? { 'content-type': contentType } : {};
    const response = await server.fetch(`${path}?utm=x&id=1&id=2`, { method, headers, ...(body !== undefined ? { body } : {}) });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject(STARTED);
    await server.settle();
    const test = await server.fetch(`/api/automation/triggers/${trigger.id}/test`, { token: me.token });
    const sample = ((await test.json()) as { samples: Array<Record<string, unknown>> }).samples[0]!;
    expect(sample).toMatchObject({ method, payload, query: { utm: 'x', id: ['1', '2'] } });
  });

  it('records the listed headers with authorization and x-api-key masked', async () => {
    const { path, trigger } = await automationFixture(server, me.organizationId, []);
    await server.fetch(path, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'sender/1.0',
        'x-forwarded-for': '203.0.113.9',
        authorization: 'Bearer sk_live_secret_value',
        'x-api-key': 'key_very_secret',
        'x-signature': 'sha256=abc',
        'webhook-signature': 't=1,v1=ff',
        cookie: 'session=private',
      },
      body: '{}',
    });
    await server.settle();
    const body = (await (await server.fetch(`/api/automation/triggers/${trigger.id}/test`, { token: me.token })).json()) as {
      samples: Array<{ headers: Record<string, string> }>;
    };
    const headers = body.samples[0]!.headers;
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'sender/1.0',
      'x-forwarded-for': '203.0.113.9',
      authorization: 'Bearer ********',
      'x-api-key': '********',
      'x-signature': 'sha256=abc',
      'webhook-signature': 't=1,v1=ff',
    });
    expect(headers.cookie).toBeUndefined();
    const everything = JSON.stringify(await server.services.store.readAll({ after: null, limit: 100_000 }));
    expect(everything).not.toContain('sk_live_secret_value');
    expect(everything).not.toContain('key_very_secret');
  });

  it('records exactly the listed, dedupe and signature-like headers, and no other', async () => {
    const { path, trigger } = await automationFixture(server, me.organizationId, []);
    const sent = {
      'content-type': 'application/json',
      'user-agent': 'sender/2.0',
      'idempotency-key': 'delivery-77',
      'webhook-id': 'msg_77',
      'webhook-timestamp': '1700000000',
      'x-hub-signature-256': 'sha256=77',
      'x-webhook-event': 'order.paid',
      'x-request-id': 'req-77-abcdefgh',
    };
    const response = await server.fetch(path, { method: 'POST', headers: { ...sent, 'x-custom': 'dropped', 'accept-language': 'fr' }, body: '{}' });
    expect(response.status).toBe(200);
    await server.settle();
    const body = (await (await server.fetch(`/api/automation/triggers/${trigger.id}/test`, { token: me.token })).json()) as {
      samples: Array<{ headers: Record<string, string> }>;
    };
    expect(body.samples[0]!.headers).toEqual({ ...sent, 'content-length': '2' });
  });

  it.each(['idempotency-key', 'webhook-id'])('answers 422 naming %s when it is over 255 characters or empty, and records nothing', async (header) => {
    const f = await automationFixture(server, me.organizationId, []);
    const before = await eventCount();
    for (const [value, message] of [
      ['k'.repeat(256), `The ${header} field must not be greater than 255 characters.`],
      ['', `The ${header} field is required.`],
    ] as const) {
      const response = await server.fetch(f.path, { method: 'POST', headers: { 'content-type': 'application/json', [header]: value }, body: '{}' });
      expect(response.status).toBe(422);
      expect(await response.json()).toEqual({ message, code: 'validation_failed', errors: { [header]: [message] } });
    }
    expect(await eventCount()).toBe(before);
    const longest = await server.fetch(f.path, { method: 'POST', headers: { [header]: 'k'.repeat(255) } });
    expect(longest.status).toBe(200);
  });

  it('records and starts a workflow whatever type or size email, ref and source have (CRMs send nulls and numbers)', async () => {
    const f = await automationFixture(server, me.organizationId, []);
    const bodies = [
      { email: null, ref: 123 },
      { email: 42, ref: 'r'.repeat(5000), source: ['a', 'b'], extra: { a: 1 } },
      { email: { address: 'x@example.com' }, ref: false, source: null },
    ];
    const before = await eventCount();
    for (const body of bodies) {
      const response = await server.fetch(f.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject(STARTED);
    }
    const form = await server.fetch(f.path, { method: 'PUT', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'source=a&source=b' });
    expect(await form.json()).toMatchObject(STARTED);
    const recorded = await server.services.store.readAll({ after: before, limit: 100 });
    expect(recorded.filter((e) => e.type === 'WebhookReceived').map((e) => (e.data as { webhook_payload: unknown }).webhook_payload)).toEqual([
      ...bodies,
      { source: ['a', 'b'] },
    ]);
    // One event per webhook, carrying the workflow it started.
    expect(recorded.filter((e) => e.stream.startsWith('automation_webhook-')).map((e) => e.type)).toEqual(Array(4).fill('WebhookReceived'));
    const outcomes = recorded.filter((e) => e.type === 'WebhookReceived').map((e) => (e.data as { outcome: { status: string } }).outcome.status);
    expect(outcomes).toEqual(Array(4).fill('started'));
  });

  it('skips when the trigger is disabled or the sequence paused, and starts again once re-enabled', async () => {
    const f = await automationFixture(server, me.organizationId, [], { enabled: false });
    const post = () => server.fetch(f.path, { method: 'POST' });
    expect(await (await post()).json()).toEqual(SKIPPED);
    await setTriggerEnabled(server.cliContext(), f.trigger.id, true);
    expect(await (await post()).json()).toMatchObject(STARTED);
    await setSequenceStatus(server.cliContext(), f.sequence.id, 'paused');
    expect(await (await post()).json()).toEqual(SKIPPED);
    await setSequenceStatus(server.cliContext(), f.sequence.id, 'active');
    expect(await (await post()).json()).toMatchObject(STARTED);
  });

  it('writes each answer as its declared JSON, byte for byte, errors included', async () => {
    const on = await automationFixture(server, me.organizationId, []);
    const off = await automationFixture(server, me.organizationId, [], { enabled: false });
    const started = await server.fetch(on.path, { method: 'POST' });
    expect(started.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await started.text()).toMatch(/^\{"success":true,"message":"Workflow started","workflow_id":\d+\}$/);
    const skipped = await server.fetch(off.path, { method: 'POST' });
    expect(await skipped.text()).toBe('{"success":true,"message":"Webhook received but trigger was skipped","workflow_id":null}');
    const unknown = await server.fetch(`/hooks/catch/${on.sequence.route_key}/BBBBBBBBBBBBBBBBBBBBBBBB`, { method: 'POST' });
    expect(unknown.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await unknown.text()).toBe('{"message":"Webhook not found.","code":"not_found"}');
  });

  it('answers 404 and records nothing for unknown or mismatched keys', async () => {
    const f = await automationFixture(server, me.organizationId, []);
    const other = await automationFixture(server, me.organizationId, []);
    const before = await eventCount();
    for (const path of [
      '/hooks/catch/AAAAAAAAAAAAAAAAAAAAAAAA/BBBBBBBBBBBBBBBBBBBBBBBB',
      `/hooks/catch/${f.sequence.route_key}/BBBBBBBBBBBBBBBBBBBBBBBB`,
      `/hooks/catch/${other.sequence.route_key}/${f.trigger.route_key}`,
      `/hooks/catch/${f.sequence.route_key}/${f.trigger.route_key}..`,
    ]) {
      const response = await server.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(response.status).toBe(404);
      expect(((await response.json()) as { message: string }).message).toMatch(/not found/);
    }
    expect(await eventCount()).toBe(before);
  });

  it('rotates the URL when the trigger is replaced: the old URL answers 404 at once', async () => {
    const f = await automationFixture(server, me.organizationId, []);
    expect((await server.fetch(f.path, { method: 'POST' })).status).toBe(200);
    const replaced = await replaceTrigger(server.cliContext(), f.trigger.id);
    expect(replaced.route_key).not.toBe(f.trigger.route_key);
    expect((await server.fetch(f.path, { method: 'POST' })).status).toBe(404);
    expect((await server.fetch(`/hooks/catch/${f.sequence.route_key}/${replaced.route_key}`, { method: 'POST' })).status).toBe(200);
    await server.settle();
    const test = (await (await server.fetch(`/api/automation/triggers/${f.trigger.id}/test`, { token: me.token })).json()) as { data: { catch_url: string } };
    expect(test.data.catch_url).toBe(`${server.url}/hooks/catch/${f.sequence.route_key}/${replaced.route_key}`);
  });

  it('uses route keys of at least 126 bits', async () => {
    const f = await automationFixture(server, me.organizationId, []);
    for (const key of [f.sequence.route_key, f.trigger.route_key]) {
      expect(key).toMatch(/^[A-Za-z0-9_-]{22,}$/);
      expect(key.length * 6).toBeGreaterThanOrEqual(126);
    }
  });

  it.each(['idempotency-key', 'webhook-id'])('replays the first answer to a repeated %s, also under concurrency', async (header) => {
    const f = await automationFixture(server, me.organizationId, []);
    const send = (key: string) =>
      server.fetch(f.path, { method: 'POST', headers: { 'content-type': 'application/json', [header]: key }, body: '{"email":"x@example.com"}' });
    const first = (await (await send('delivery-1')).json()) as { workflow_id: number };
    const again = (await (await send('delivery-1')).json()) as { workflow_id: number };
    expect(again).toEqual(first);
    const concurrent = await Promise.all(Array.from({ length: 12 }, () => send('delivery-2').then((r) => r.json() as Promise<{ workflow_id: number }>)));
    const ids = new Set(concurrent.map((c) => c.workflow_id));
    expect(ids.size).toBe(1);
    expect([...ids][0]).not.toBe(first.workflow_id);
    // Every request is recorded: two started workflows, the other 12 as repeats of their answer.
    const log = (await server.services.store.readAll({ after: null, limit: 100_000 })).filter((e) => (e.data as { trigger_id?: number }).trigger_id === f.trigger.id);
    const startedIds = log
      .filter((e) => e.type === 'WebhookReceived')
      .map((e) => (e.data as { outcome: { status: string; workflow_id?: number } }).outcome.workflow_id);
    expect(startedIds).toEqual([first.workflow_id, [...ids][0]]);
    const repeats = log.filter((e) => e.type === 'WebhookRepeated').map((e) => e.data as { dedupe_key: string; answered_workflow_id: number });
    expect(repeats).toHaveLength(12);
    expect(repeats.filter((r) => r.dedupe_key === 'delivery-1').map((r) => r.answered_workflow_id)).toEqual([first.workflow_id]);
    expect(repeats.filter((r) => r.dedupe_key === 'delivery-2').every((r) => r.answered_workflow_id === [...ids][0])).toBe(true);
  });

  it('records a repeat with its own payload, query, headers, method and time, starts nothing, and shows it as a repeated sample', async () => {
    const f = await automationFixture(server, me.organizationId, [], { enabled: false });
    const headers = { 'content-type': 'application/json', 'idempotency-key': 'crm-retry-1' };
    const first = await server.fetch(f.path, { method: 'POST', headers, body: '{"email":"first@example.com"}' });
    expect(await first.json()).toEqual(SKIPPED);
    const before = await eventCount();
    const retry = await server.fetch(`${f.path}?attempt=2`, { method: 'PUT', headers: { ...headers, 'user-agent': 'crm/2' }, body: '{"email":"second@example.com","n":null}' });
    // The first answer stands, though the trigger has since been enabled.
    await setTriggerEnabled(server.cliContext(), f.trigger.id, true);
    const third = await server.fetch(f.path, { method: 'POST', headers, body: '{}' });
    expect(await retry.json()).toEqual(SKIPPED);
    expect(await third.json()).toEqual(SKIPPED);
    const log = (await server.services.store.readAll({ after: before, limit: 100 })).filter((e) => e.stream.startsWith('automation_webhook-'));
    expect(log.map((e) => e.type)).toEqual(['WebhookRepeated', 'WebhookRepeated']);
    expect(new Set(log.map((e) => e.stream)).size).toBe(2);
    expect(log[0]!.data).toEqual({
      trigger_id: f.trigger.id,
      sequence_id: f.sequence.id,
      organization_id: me.organizationId,
      method: 'PUT',
      webhook_payload: { email: 'second@example.com', n: null },
      webhook_query: { attempt: '2' },
      headers: expect.objectContaining({ 'idempotency-key': 'crm-retry-1', 'user-agent': 'crm/2' }),
      received_at: expect.any(Number),
      dedupe_key: 'crm-retry-1',
      answered_workflow_id: null,
    });

    await server.settle();
    const samples = async () =>
      ((await (await server.fetch(`/api/automation/triggers/${f.trigger.id}/test`, { token: me.token })).json()) as { samples: Array<Record<string, unknown>> }).samples;
    const shown = await samples();
    expect(shown.map((x) => [x.method, x.payload, x.repeated])).toEqual([
      ['POST', {}, true],
      ['PUT', { email: 'second@example.com', n: null }, true],
      ['POST', { email: 'first@example.com' }, false],
    ]);
    // A rebuild from the log gives the same read model, and the runner went past the repeats.
    await rebuildProjection(server.services.store, server.services.readStore, automationProjection);
    expect(await samples()).toEqual(shown);
    await eventually(async () => ((await server.services.readStore.readCheckpoint(AUTOMATION_CHECKPOINT)) ?? 0) >= log[1]!.position);
  });

  it('files a dedupe key under the stream name earlier releases used (t<trigger>-<sha256 hex, 40>)', async () => {
    const f = await automationFixture(server, me.organizationId, []);
    const key = 'lieferung-ü-1';
    const response = await server.fetch(f.path, { method: 'POST', headers: { 'idempotency-key': key } });
    expect(response.status).toBe(200);
    const digest = createHash('sha256').update(key).digest('hex').slice(0, 40);
    expect(await server.services.store.readStream(webhookReceptionStream(`t${f.trigger.id}-${digest}`))).not.toHaveLength(0);
  });

  it('answers 413 to a body over 1 MiB and records nothing', async () => {
    const f = await automationFixture(server, me.organizationId, []);
    const before = await eventCount();
    const response = await server.fetch(f.path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ blob: 'x'.repeat(1024 * 1024) }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: 'payload_too_large' });
    expect(await eventCount()).toBe(before);
  });

  it.each([
    ['malformed JSON', { 'content-type': 'application/json' }, '{"email":', 400],
    ['an over-long idempotency key', { 'content-type': 'application/json', 'idempotency-key': 'k'.repeat(300) }, '{}', 422],
  ])('answers %s with a 4xx JSON error, never 500', async (_name, headers, body, status) => {
    const f = await automationFixture(server, me.organizationId, []);
    const response = await server.fetch(f.path, { method: 'POST', headers, body });
    expect(response.status).toBe(status);
    expect(await response.json()).toHaveProperty('message');
  });

  it('rate limits per trigger with 429 Too Many Attempts.', async () => {
    const a = await automationFixture(server, me.organizationId, []);
    const b = await automationFixture(server, me.organizationId, []);
    const statuses: number[] = [];
    for (let i = 0; i < 41; i++) statuses.push((await server.fetch(a.path, { method: 'POST' })).status);
    expect(statuses.slice(0, 40).every((s) => s === 200)).toBe(true);
    const limited = await server.fetch(a.path, { method: 'POST' });
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ message: 'Too Many Attempts.' });
    expect((await server.fetch(b.path, { method: 'POST' })).status).toBe(200);
  });
});

describe('trigger test route', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: TEST_ENV });
  });
  afterAll(() => server.close({ remove: true }));

  it('waits for the first webhook, then offers received requests as samples; other organizations get 404', async () => {
    const me = await server.identity('A');
    const stranger = await server.identity('B');
    const f = await automationFixture(server, me.organizationId, []);
    const path = `/api/automation/triggers/${f.trigger.id}/test`;
    const waiting = await server.fetch(path, { token: me.token });
    expect(waiting.status).toBe(200);
    expect(await waiting.json()).toEqual({
      success: false,
      message: expect.any(String),
      samples: [],
      data: { trigger_id: f.trigger.id, trigger_name: 'Test trigger', waiting_for_webhook: true, catch_url: `${server.url}${f.path}` },
    });

    await server.fetch(f.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":"s@example.com"}' });
    await server.settle();
    const ready = (await (await server.fetch(path, { token: me.token })).json()) as Record<string, unknown>;
    expect(ready).toMatchObject({
      success: true,
      data: { trigger_id: f.trigger.id, waiting_for_webhook: false },
      samples: [{ method: 'POST', payload: { email: 's@example.com' }, headers: { 'content-type': 'application/json' }, received_at: expect.any(Number) }],
    });

    const foreign = await server.fetch(path, { token: stranger.token });
    const unknown = await server.fetch('/api/automation/triggers/999999/test', { token: stranger.token });
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual(await unknown.json());
    expect((await server.fetch(path)).status).toBe(401);
    expect((await server.fetch('/api/automation/triggers/abc/test', { token: me.token })).status).toBe(422);
  });

  it('offers the latest ten requests, newest first, and keeps no more than ten per trigger', async () => {
    const me = await server.identity('C');
    const f = await automationFixture(server, me.organizationId, []);
    for (let n = 1; n <= 13; n++) {
      const response = await server.fetch(f.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ n }) });
      expect(response.status).toBe(200);
    }
    await server.settle();
    const body = (await (await server.fetch(`/api/automation/triggers/${f.trigger.id}/test`, { token: me.token })).json()) as {
      samples: Array<{ id: string; payload: { n: number } }>;
    };
    expect(body.samples.map((s) => s.payload.n)).toEqual([13, 12, 11, 10, 9, 8, 7, 6, 5, 4]);
    const ids = body.samples.map((s) => Number(s.id));
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(await server.services.readStore.count(SAMPLES, { trigger_id: f.trigger.id })).toBe(SAMPLES_KEPT);
  });
});
