import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../modules/identity/identityCommands.ts';
import { automationFixture, TEST_ENV, webhookAction } from '../automation/fixtures.ts';
import { eventually, startReceiver } from '../helpers/receiver.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';

/** The value of one sample line of the exposition text, or undefined when absent. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const labelPart = /\{(.*)\}/.exec(line)?.[1] ?? '';
    const found = Object.fromEntries([...labelPart.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([k, v]) => found[k] === v)) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return undefined;
}

describe('observability', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close({ remove: true }));

  it('GET /healthz answers 200 {status:"ok"}', async () => {
    const response = await server.fetch('/healthz');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('GET /readyz answers 200 when the stores answer and projections are caught up', async () => {
    await server.identity();
    const response = await server.fetch('/readyz');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: 'ready',
      reasons: [],
      projections: expect.arrayContaining([{ projection: 'identity', lag_events: 0 }]),
    });
  });

  it('GET /metrics counts requests by route pattern and status, events appended and projection lag', async () => {
    const me = await server.identity();
    for (let i = 0; i < 3; i++) expect((await server.fetch('/api/users/me', { token: me.token })).status).toBe(200);
    expect((await server.fetch('/api/users/me')).status).toBe(401);
    const stray = `/no-such-route-${randomUUID()}`;
    expect((await server.fetch(stray)).status).toBe(404);
    server.services.metrics.webhookResult(true);
    server.services.metrics.webhookResult(false);
    server.services.metrics.webhookResult(false);

    const response = await server.fetch('/metrics');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    expect(sample(text, 'http_requests_total', { method: 'GET', route: '/api/users/me', status_code: '200' })).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'http_requests_total', { method: 'GET', route: '/api/users/me', status_code: '401' })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'http_request_duration_seconds_count', { route: '/api/users/me', status_code: '200' })).toBeGreaterThanOrEqual(3);
    expect(sample(text, 'http_request_duration_seconds_bucket', { route: '/api/users/me', status_code: '200', le: '+Inf' })).toBeGreaterThanOrEqual(3);
    // Unknown URLs share one series: a client cannot blow up the number of series.
    expect(sample(text, 'http_requests_total', { route: 'unmatched', status_code: '404' })).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain(stray);
    expect(sample(text, 'events_appended_total', { type: 'OrganizationCreated' })).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'events_appended_total', { type: 'ApiKeyCreated' })).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'projection_lag_events', { projection: 'identity' })).toBe(0);
    expect(sample(text, 'outbound_webhooks_total', { result: 'success' })).toBe(1);
    expect(sample(text, 'outbound_webhooks_total', { result: 'failure' })).toBe(2);
    expect(sample(text, 'process_resident_memory_bytes')).toBeGreaterThan(0);

    // Counts keep adding up from scrape to scrape, each append counted once.
    const organizations = sample(text, 'events_appended_total', { type: 'OrganizationCreated' })!;
    await server.identity();
    const again = await (await server.fetch('/metrics')).text();
    expect(sample(again, 'events_appended_total', { type: 'OrganizationCreated' })).toBe(organizations + 1);
  });
});

describe('readiness when projections fall behind or a store is gone', () => {
  it('answers 503 with the reasons: lag in seconds, lag in events, then an unreachable read store', async () => {
    const clock = manualClock();
    const server = await startTestServer({ clock });
    try {
      expect((await server.fetch('/readyz')).status).toBe(200);
      // Projections stopped (a stuck worker): one event waits, and time passes.
      await server.services.projections!.stop();
      await createOrganization(server.cliContext(), { name: 'Late', timezone: 'UTC' });
      let response = await server.fetch('/readyz');
      expect(response.status).toBe(200);
      clock.advance(10_000);
      response = await server.fetch('/readyz');
      expect(response.status).toBe(503);
      let body = (await response.json()) as { status: string; reasons: string[] };
      expect(body.status).toBe('not_ready');
      expect(body.reasons).toContainEqual(expect.stringMatching(/^projection identity is \d+ s behind \(max 5 s\)$/));
      for (const reason of body.reasons) expect(reason).toMatch(/^projection \w+ is \d+ s behind/);

      clock.advance(-10_000);
      await server.services.store.append(
        `load-${randomUUID()}`,
        Array.from({ length: 1001 }, () => ({
          id: randomUUID(),
          type: 'LoadTested',
          data: {},
          metadata: server.cliContext().metadata,
        })),
        'no_stream',
      );
      response = await server.fetch('/readyz');
      expect(response.status).toBe(503);
      body = (await response.json()) as { status: string; reasons: string[] };
      expect(body.reasons).toContainEqual('projection identity is more than 1000 events behind');

      const metrics = await (await server.fetch('/metrics')).text();
      expect(sample(metrics, 'projection_lag_events', { projection: 'identity' })).toBeGreaterThan(1000);

      await server.services.readStore.close();
      response = await server.fetch('/readyz');
      expect(response.status).toBe(503);
      body = (await response.json()) as { status: string; reasons: string[] };
      expect(body.reasons).toEqual([expect.stringMatching(/^read store unreachable/)]);
      // Liveness is about the process, not its dependencies.
      expect((await server.fetch('/healthz')).status).toBe(200);
    } finally {
      await server.close({ remove: true });
    }
  });
});

describe('outbound webhook metrics', () => {
  it('counts each Send Webhook result by success, as the automation worker records it', async () => {
    const receiver = await startReceiver((call, res) => {
      res.writeHead(call.url.startsWith('/fail') ? 500 : 200, { 'content-type': 'application/json' });
      res.end('{}');
    });
    const server = await startTestServer({ env: TEST_ENV });
    try {
      const { organizationId } = await server.identity();
      const ok = await automationFixture(server, organizationId, [webhookAction(`${receiver.url}/ok`)]);
      const failing = await automationFixture(server, organizationId, [webhookAction(`${receiver.url}/fail`)]);
      for (const path of [ok.path, ok.path, failing.path]) {
        const r = await server.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":"a@example.com"}' });
        expect(r.status).toBe(200);
      }
      const text = await eventually(async () => {
        const t = await (await server.fetch('/metrics')).text();
        return sample(t, 'outbound_webhooks_total', { result: 'success' }) === 2 && sample(t, 'outbound_webhooks_total', { result: 'failure' }) === 1 ? t : null;
      });
      expect(sample(text, 'outbound_webhooks_total', { result: 'failure' })).toBe(1);
    } finally {
      await server.close({ remove: true });
      await receiver.close();
    }
  });
});
