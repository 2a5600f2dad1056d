import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeOffer } from '../checkout/checkoutFixtures.ts';
import { signedInPerson } from '../helpers/manageClient.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { answer, verified, WEBHOOK_ENV } from './webhookFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('webhook endpoints through the management routes (session cookie)', () => {
  let server: TestServer;
  // The service's clock: the real time, plus what the test jumps over (a retry's wait) instead of waiting it out.
  let skipped = 0;
  const clock = () => Date.now() + skipped;
  beforeAll(async () => {
    server = await startTestServer({ env: WEBHOOK_ENV, clock });
  });
  afterAll(() => server.close({ remove: true }));

  it('an owner creates (secret once), lists, changes, rotates with overlap, sees attempts, resends and deletes; a member is refused; another organization sees none', { timeout: 90_000 }, async () => {
    const owner = await signedInPerson(server);
    const member = await signedInPerson(server, { organizationId: owner.organizationId, role: 'member' });
    const stranger = await signedInPerson(server);
    // Fails once, then succeeds: the failed attempt is listed, the resend succeeds.
    const r = await startReceiver((_call, res, index) => (index === 0 ? answer(503, 'busy')(res) : answer(200, 'ok')(res)));
    try {
      const created = await owner.client.json('POST', '/manage/api/webhook-endpoints', { url: `${r.url}/in`, event_types: ['offer.published'] });
      expect(created.status).toBe(201);
      const endpoint = created.body as Body;
      expect(endpoint.secret).toMatch(/^whsec_/);
      const listed = await owner.client.json('GET', '/manage/api/webhook-endpoints');
      expect((listed.body as Body).data).toEqual([expect.objectContaining({ id: endpoint.id, url: `${r.url}/in`, enabled: true })]);
      expect(JSON.stringify(listed.body)).not.toContain('whsec_');

      // Owners only, as for API keys: a member gets 403; another organization's id is unknown.
      expect((await member.client.json('GET', '/manage/api/webhook-endpoints')).status).toBe(403);
      expect((await member.client.json('POST', '/manage/api/webhook-endpoints', { url: r.url, event_types: ['offer.published'] })).status).toBe(403);
      const foreign = await stranger.client.json('GET', `/manage/api/webhook-endpoints/${endpoint.id}`);
      const unknown = await stranger.client.json('GET', '/manage/api/webhook-endpoints/we_doesnotexist');
      expect(foreign.status).toBe(404);
      expect(foreign.body).toEqual(unknown.body);
      expect((await stranger.client.json('GET', '/manage/api/webhook-endpoints')).body).toEqual({ data: [] });
      // Without the CSRF token a write is refused.
      const noCsrf = await fetch(`${server.url}/manage/api/webhook-endpoints`, {
        method: 'POST',
        headers: { cookie: `commerce_session=${owner.client.cookie}`, 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
        body: JSON.stringify({ url: r.url, event_types: ['offer.published'] }),
      });
      expect(noCsrf.status).toBe(403);

      const bad = await owner.client.json('POST', '/manage/api/webhook-endpoints', { url: 'ftp://example.com', event_types: ['nope'] });
      expect(bad.status).toBe(422);

      await makeOffer(server, owner.organizationId);
      await expect.poll(() => r.calls.length, { timeout: 20_000 }).toBe(1);
      verified(endpoint.secret, r.calls[0]!);
      // The retry (Svix's schedule: 5 s later) succeeds; both attempts are listed.
      skipped += 5_000;
      let delivery: Body = {};
      await expect
        .poll(async () => {
          const listed = await owner.client.json('GET', `/manage/api/webhook-endpoints/${endpoint.id}/deliveries`);
          delivery = (listed.body as Body).data[0] ?? {};
          return delivery.status;
        }, { timeout: 30_000 })
        .toBe('succeeded');
      expect(delivery).toMatchObject({
        event_type: 'offer.published',
        attempts: 2,
        attempt_log: [
          { attempt: 1, success: false, status_code: 503, response_excerpt: 'busy' },
          { attempt: 2, success: true, status_code: 200 },
        ],
      });

      const resent = await owner.client.json('POST', `/manage/api/webhook-deliveries/${delivery.id}/resend`);
      expect(resent.status).toBe(202);
      await expect.poll(() => r.calls.length, { timeout: 20_000 }).toBe(3);
      expect(r.calls[2]!.headers['webhook-id']).toBe(r.calls[0]!.headers['webhook-id']);
      await expect
        .poll(async () => ((await owner.client.json('GET', `/manage/api/webhook-endpoints/${endpoint.id}/deliveries`)).body as Body).data[0].attempt_log.length, { timeout: 20_000 })
        .toBe(3);
      expect((await stranger.client.json('POST', `/manage/api/webhook-deliveries/${delivery.id}/resend`)).status).toBe(404);

      const rotated = await owner.client.json('POST', `/manage/api/webhook-endpoints/${endpoint.id}/rotate-secret`, { overlap_seconds: 3600 });
      expect(rotated.status).toBe(200);
      const newSecret = (rotated.body as Body).secret as string;
      expect(newSecret).not.toBe(endpoint.secret);
      expect((rotated.body as Body).previous_secret_expires_at).toBeTypeOf('number');
      // During the overlap each request carries both signatures: either secret verifies.
      await makeOffer(server, owner.organizationId);
      await expect.poll(() => r.calls.length, { timeout: 20_000 }).toBe(4);
      verified(newSecret, r.calls[3]!);
      verified(endpoint.secret, r.calls[3]!);

      const changed = await owner.client.json('PATCH', `/manage/api/webhook-endpoints/${endpoint.id}`, { enabled: false });
      expect(changed.status).toBe(200);
      expect(changed.body).toMatchObject({ enabled: false, disabled_reason: 'manual' });
      const deleted = await owner.client.request('DELETE', `/manage/api/webhook-endpoints/${endpoint.id}`);
      expect(deleted.status).toBe(204);
      expect((await owner.client.json('GET', `/manage/api/webhook-endpoints/${endpoint.id}`)).status).toBe(404);
    } finally {
      await r.close();
    }
  });

  it('the routes are in the OpenAPI document under the manage tag', async () => {
    const doc = (await (await server.fetch('/api/openapi.json')).json()) as Body;
    for (const [path, method] of [
      ['/manage/api/webhook-endpoints', 'get'],
      ['/manage/api/webhook-endpoints', 'post'],
      ['/manage/api/webhook-endpoints/{id}', 'patch'],
      ['/manage/api/webhook-endpoints/{id}/rotate-secret', 'post'],
      ['/manage/api/webhook-endpoints/{id}/deliveries', 'get'],
      ['/manage/api/webhook-deliveries/{id}/resend', 'post'],
      ['/manage/api/webhook-endpoints/{id}', 'delete'],
    ] as const) {
      expect(doc.paths[path]?.[method]?.tags, `${method} ${path}`).toEqual(['manage']);
    }
  });
});
