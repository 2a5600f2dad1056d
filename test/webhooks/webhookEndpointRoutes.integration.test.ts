import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeOffer } from '../checkout/checkoutFixtures.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { runCli } from '../helpers/serverProcess.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { deliveryId, type SentDelivery } from '../../modules/webhooks/domain/webhookDelivery.ts';
import { verified, WEBHOOK_ENV } from './webhookFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const send = (method: string, body?: unknown): RequestInit => ({
  method,
  ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }),
});

describe('webhook endpoint routes (bearer API key)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: WEBHOOK_ENV });
  });
  afterAll(() => server.close({ remove: true }));

  it('create (secret shown once), list, change, deliveries, resend, rotate, delete; another organization sees none of it', { timeout: 60_000 }, async () => {
    const org = await server.identity();
    const other = await server.identity('Other');
    const r = await startReceiver();
    try {
      const created = await server.fetch('/api/webhook-endpoints', { ...send('POST', { url: r.url, event_types: ['offer.published'] }), token: org.token });
      expect(created.status).toBe(201);
      const endpoint = (await created.json()) as Body;
      expect(endpoint).toMatchObject({ url: r.url, event_types: ['offer.published'], enabled: true, disabled_reason: null });
      expect(endpoint.secret).toMatch(/^whsec_/);

      const list = (await (await server.fetch('/api/webhook-endpoints', { token: org.token })).json()) as Body;
      expect(list.data).toHaveLength(1);
      expect(JSON.stringify(list)).not.toContain('whsec_');
      expect((await (await server.fetch('/api/webhook-endpoints', { token: other.token })).json()) as Body).toEqual({ data: [] });
      const foreign = await server.fetch(`/api/webhook-endpoints/${endpoint.id}`, { token: other.token });
      const unknown = await server.fetch('/api/webhook-endpoints/we_doesnotexist', { token: other.token });
      expect(foreign.status).toBe(404);
      expect(await foreign.json()).toEqual(await unknown.json());
      expect((await server.fetch(`/api/webhook-endpoints/${endpoint.id}`, { ...send('PATCH', { enabled: false }), token: other.token })).status).toBe(404);

      const bad = await server.fetch('/api/webhook-endpoints', { ...send('POST', { url: 'ftp://example.com', event_types: ['nope'] }), token: org.token });
      expect(bad.status).toBe(422);
      expect(((await bad.json()) as Body).errors).toHaveProperty('event_types.0');
      const badUrl = await server.fetch('/api/webhook-endpoints', { ...send('POST', { url: 'ftp://example.com', event_types: ['offer.published'] }), token: org.token });
      expect(badUrl.status).toBe(422);
      expect(((await badUrl.json()) as Body).errors).toHaveProperty('url');

      await makeOffer(server, org.organizationId);
      await expect.poll(() => r.calls.length, { timeout: 20_000 }).toBe(1);
      verified(endpoint.secret, r.calls[0]!);
      let deliveries: Body = {};
      await expect
        .poll(async () => {
          deliveries = (await (await server.fetch(`/api/webhook-endpoints/${endpoint.id}/deliveries`, { token: org.token })).json()) as Body;
          return deliveries.data?.[0]?.status;
        }, { timeout: 10_000 })
        .toBe('succeeded');
      expect(deliveries.data[0]).toMatchObject({ event_type: 'offer.published', attempts: 1, attempt_log: [{ attempt: 1, success: true, status_code: 200 }] });
      expect(deliveries.data[0].event_id).toBe(r.calls[0]!.headers['webhook-id']);
      expect((await server.fetch(`/api/webhook-endpoints/${endpoint.id}/deliveries`, { token: other.token })).status).toBe(404);

      expect((await server.fetch(`/api/webhook-deliveries/${deliveries.data[0].id}/resend`, { method: 'POST', token: other.token })).status).toBe(404);
      // The CLI beside the running service.
      const cli = (...args: string[]) => runCli(args, { DATA_DIR: server.dataDir });
      const listed = await cli('webhook-endpoint', 'deliveries', endpoint.id, '--org', org.organizationId, '--json');
      expect(listed.code, listed.stderr).toBe(0);
      expect(JSON.parse(listed.stdout)).toMatchObject([{ id: deliveries.data[0].id, status: 'succeeded', attempts: 1, attempt_log: [{ attempt: 1, success: true }] }]);
      // Where it was recorded is internal: neither the CLI nor the API shows it.
      expect(JSON.parse(listed.stdout)[0]).not.toHaveProperty('sent_in');
      expect(deliveries.data[0]).not.toHaveProperty('sent_in');
      const resentByCli = await cli('webhook-endpoint', 'resend', deliveries.data[0].id, '--org', org.organizationId);
      expect(resentByCli.code, resentByCli.stderr).toBe(0);
      await expect.poll(() => r.calls.length, { timeout: 20_000 }).toBe(2);
      expect(r.calls[1]!.headers['webhook-id']).toBe(r.calls[0]!.headers['webhook-id']);
      expect(r.calls[1]!.body).toBe(r.calls[0]!.body);
      await expect
        .poll(async () => {
          const body = (await (await server.fetch(`/api/webhook-endpoints/${endpoint.id}/deliveries`, { token: org.token })).json()) as Body;
          return body.data[0].attempt_log.map((a: Body) => [a.attempt, a.manual, a.success]);
        }, { timeout: 10_000 })
        .toEqual([
          [1, false, true],
          [2, true, true],
        ]);
      const resend = await server.fetch(`/api/webhook-deliveries/${deliveries.data[0].id}/resend`, { method: 'POST', token: org.token });
      expect(resend.status).toBe(202);
      await expect.poll(() => r.calls.length, { timeout: 20_000 }).toBe(3);
      expect(r.calls[2]!.headers['webhook-id']).toBe(r.calls[0]!.headers['webhook-id']);
      // A page of deliveries, each with its own attempts (read for the whole page at once), in the API and the CLI.
      await makeOffer(server, org.organizationId);
      await expect.poll(() => r.calls.length, { timeout: 20_000 }).toBe(4);
      const attemptsOnPage = (page: Body[]) => page.map((d) => [d.event_id, d.attempt_log.map((a: Body) => a.attempt)]);
      const expected = [
        [r.calls[3]!.headers['webhook-id'], [1]],
        [r.calls[0]!.headers['webhook-id'], [1, 2, 3]],
      ];
      await expect
        .poll(async () => attemptsOnPage(((await (await server.fetch(`/api/webhook-endpoints/${endpoint.id}/deliveries`, { token: org.token })).json()) as Body).data), {
          timeout: 10_000,
        })
        .toEqual(expected);
      const page = await cli('webhook-endpoint', 'deliveries', endpoint.id, '--org', org.organizationId, '--json');
      expect(attemptsOnPage(JSON.parse(page.stdout))).toEqual(expected);

      const rotated = (await (await server.fetch(`/api/webhook-endpoints/${endpoint.id}/rotate-secret`, { ...send('POST', { overlap_seconds: 0 }), token: org.token })).json()) as Body;
      expect(rotated.secret).toMatch(/^whsec_/);
      expect(rotated.secret).not.toBe(endpoint.secret);

      const patched = await server.fetch(`/api/webhook-endpoints/${endpoint.id}`, { ...send('PATCH', { event_types: ['invoice.paid', 'offer.published'] }), token: org.token });
      expect(((await patched.json()) as Body).event_types).toEqual(['invoice.paid', 'offer.published']);
      expect((await server.fetch(`/api/webhook-endpoints/${endpoint.id}`, { method: 'DELETE', token: other.token })).status).toBe(404);
      expect((await server.fetch(`/api/webhook-endpoints/${endpoint.id}`, { method: 'DELETE', token: org.token })).status).toBe(204);
      expect((await server.fetch(`/api/webhook-endpoints/${endpoint.id}`, { token: org.token })).status).toBe(404);
      expect((await server.fetch('/api/webhook-endpoints')).status).toBe(401);
    } finally {
      await r.close();
    }
  });

  it('reads a log that holds deliveries recorded together (WebhookDeliveriesSent): lists them, and resends one', { timeout: 60_000 }, async () => {
    const org = await server.identity('Sent Together');
    const r = await startReceiver();
    try {
      const endpoint = (await (await server.fetch('/api/webhook-endpoints', { ...send('POST', { url: r.url, event_types: ['offer.published'] }), token: org.token })).json()) as Body;
      const eventId = crypto.randomUUID();
      const payload = JSON.stringify({ id: eventId, type: 'offer.published', created: 1000, organization_id: org.organizationId, data: { object: { id: 'offer-1' } } });
      const delivery: SentDelivery = {
        id: deliveryId(endpoint.id, eventId),
        event_id: eventId,
        event_type: 'offer.published',
        resource: 'offer-1',
        payload,
        created_at: 1000,
        status_code: 200,
        duration_ms: 3,
        response_excerpt: 'ok',
        attempted_at: 1001,
      };
      const metadata = { correlation_id: 'test', actor: { type: 'system' as const, name: 'webhooks' }, organization_id: org.organizationId, occurred_at: 1001 };
      await server.services.store.append(
        `webhook_sent-${delivery.id}`,
        [{ id: crypto.randomUUID(), type: 'WebhookDeliveriesSent', data: { endpoint_id: endpoint.id, organization_id: org.organizationId, deliveries: [delivery] }, metadata }],
        'no_stream',
      );
      await server.settle();
      const listed = async () => ((await (await server.fetch(`/api/webhook-endpoints/${endpoint.id}/deliveries`, { token: org.token })).json()) as Body).data;
      expect(await listed()).toMatchObject([{ id: delivery.id, status: 'succeeded', attempts: 1, attempt_log: [{ attempt: 1, success: true, status_code: 200 }] }]);

      expect((await server.fetch(`/api/webhook-deliveries/${delivery.id}/resend`, { method: 'POST', token: org.token })).status).toBe(202);
      await expect.poll(() => r.calls.length, { timeout: 20_000 }).toBe(1);
      expect(r.calls[0]!.headers['webhook-id']).toBe(eventId);
      expect(verified(endpoint.secret, r.calls[0]!)).toEqual(JSON.parse(payload));
      await expect
        .poll(async () => (await listed())[0].attempt_log.map((a: Body) => [a.attempt, a.manual, a.success]), { timeout: 10_000 })
        .toEqual([
          [1, false, true],
          [2, true, true],
        ]);
    } finally {
      await r.close();
    }
  });
});
