import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resendWebhookDelivery, rotateWebhookSecret, updateWebhookEndpoint } from '../../modules/webhooks/webhookEndpointCommands.ts';
import { secretBox } from '../../platform/lib/secretBox.ts';
import { GOOD_CARD, json, makeOffer } from '../checkout/checkoutFixtures.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';
import { answer, attemptsOf, deliveriesOf, fannedOut, subscribe, verified, WEBHOOK_ENV } from './webhookFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('event webhooks', () => {
  let server: TestServer;
  const clock = manualClock();
  const receivers: Array<{ close(): Promise<void> }> = [];
  const receiver = async (...args: Parameters<typeof startReceiver>) => {
    const r = await startReceiver(...args);
    receivers.push(r);
    return r;
  };

  beforeAll(async () => {
    server = await startTestServer({ clock, env: WEBHOOK_ENV });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await server.close({ remove: true });
  });

  it('a purchase through the HTTP routes reaches the subscribed endpoint, signed; not an unsubscribed one nor another organization', { timeout: 60_000 }, async () => {
    const org = await server.identity();
    const other = await server.identity('Other Org');
    const subscribed = await receiver();
    const unsubscribed = await receiver();
    const foreign = await receiver();
    const endpoint = await subscribe(server, org.organizationId, `${subscribed.url}/hooks`, ['checkout.session.completed', 'invoice.paid']);
    const notSubscribed = await subscribe(server, org.organizationId, unsubscribed.url, ['product.published', 'checkout.session.expired']);
    const otherOrgs = await subscribe(server, other.organizationId, foreign.url, ['checkout.session.completed', 'invoice.paid']);
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    await server.settle();

    const offer = await makeOffer(server, org.organizationId);
    const created = (await (await server.fetch('/api/checkout/sessions', json({ offer: offer.slug }))).json()) as Body;
    const sessionId = created.session.id as string;
    const paid = await server.fetch(`/api/checkout/sessions/${sessionId}/pay`, json({ email: 'buyer@example.com', name: 'Ada Buyer', card: GOOD_CARD }));
    expect(paid.status).toBe(200);
    const invoice = ((await paid.json()) as Body).invoice as Body;

    await expect.poll(() => subscribed.calls.length, { timeout: 20_000 }).toBe(2);
    const bodies = subscribed.calls.map((call) => verified(endpoint.secret, call));
    const byType = Object.fromEntries(bodies.map((b) => [b.type, b]));
    expect(Object.keys(byType).sort()).toEqual(['checkout.session.completed', 'invoice.paid']);
    for (const call of subscribed.calls) {
      expect(call.method).toBe('POST');
      expect(call.url).toBe('/hooks');
      expect(call.headers['content-type']).toBe('application/json');
      expect(call.headers['webhook-id']).toBe(JSON.parse(call.body).id);
    }
    const session = byType['checkout.session.completed']!;
    expect(session.organization_id).toBe(org.organizationId);
    expect(session.created).toBeTypeOf('number');
    expect(session.data.object).toMatchObject({
      id: sessionId,
      status: 'completed',
      customer_email: 'buyer@example.com',
      customer_name: 'Ada Buyer',
      invoice_number: invoice.number,
      invoice: { id: invoice.id, number: invoice.number, status: 'paid' },
      offer: { slug: offer.slug },
    });
    expect(byType['invoice.paid']!.data.object).toMatchObject({
      id: invoice.id,
      number: invoice.number,
      status: 'paid',
      session_id: sessionId,
      customer: { email: 'buyer@example.com' },
      payment: { brand: 'visa', last4: '4242' },
    });

    // Nothing was fanned out to the others: every event up to the head has been handled.
    await fannedOut(server);
    expect(await deliveriesOf(server, notSubscribed.id)).toEqual([]);
    expect(await deliveriesOf(server, otherOrgs.id)).toEqual([]);
    expect(unsubscribed.calls).toHaveLength(0);
    expect(foreign.calls).toHaveLength(0);

    // Every attempt is recorded (once the call has returned: the receiver may see it first); the
    // session list now carries the buyer and the invoice number.
    await expect.poll(async () => (await deliveriesOf(server, endpoint.id)).map((d) => d.status), { timeout: 20_000 }).toEqual(['succeeded', 'succeeded']);
    const deliveries = await deliveriesOf(server, endpoint.id);
    const [attempt] = await attemptsOf(server, deliveries[0]!.id);
    expect(attempt).toMatchObject({ attempt: 1, success: true, status_code: 200, response_excerpt: '{"ok":true}', error: null });
    const list = (await (await server.fetch('/api/checkout/sessions', { token: org.token })).json()) as Body;
    expect(list.data[0]).toMatchObject({ id: sessionId, customer_email: 'buyer@example.com', invoice_number: invoice.number });

    // Resent by hand (recorded with its batch, it gets a stream of its own now): the same webhook-id and body, once more.
    expect((await server.fetch(`/api/webhook-deliveries/${deliveries[0]!.id}/resend`, { method: 'POST', token: other.token })).status).toBe(404);
    const resend = await server.fetch(`/api/webhook-deliveries/${deliveries[0]!.id}/resend`, { method: 'POST', token: org.token });
    expect(resend.status).toBe(202);
    await expect.poll(() => subscribed.calls.length, { timeout: 20_000 }).toBe(3);
    const resent = subscribed.calls[2]!;
    const first = subscribed.calls.find((c) => c.headers['webhook-id'] === resent.headers['webhook-id'])!;
    expect(resent.body).toBe(first.body);
    verified(endpoint.secret, resent);
    await expect.poll(async () => (await attemptsOf(server, deliveries[0]!.id)).map((a) => [a.attempt, a.manual]), { timeout: 10_000 }).toEqual([
      [1, false],
      [2, true],
    ]);
    // Another organization cannot resend it (before, above, nor now it has a stream of its own).
    await expect(resendWebhookDelivery(server.cliContext(other.organizationId), other.organizationId, deliveries[0]!.id)).rejects.toThrow('not found');
  });

  it('retries a 5xx on the schedule (5 s after the first failure) with the same webhook-id, then succeeds', { timeout: 60_000 }, async () => {
    const org = await server.identity();
    const flaky = await receiver((_call, res, index) => (index === 0 ? answer(503, 'try later')(res) : answer(204)(res)));
    const endpoint = await subscribe(server, org.organizationId, flaky.url, ['offer.published']);
    await server.settle();
    const offer = await makeOffer(server, org.organizationId);

    await expect.poll(async () => (await deliveriesOf(server, endpoint.id))[0]?.attempts ?? 0, { timeout: 20_000 }).toBe(1);
    const [delivery] = await deliveriesOf(server, endpoint.id);
    const [failed] = await attemptsOf(server, delivery!.id);
    expect(failed).toMatchObject({ success: false, status_code: 503, response_excerpt: 'try later' });
    expect(failed!.next_attempt_at).toBe(failed!.attempted_at + 5);
    expect(delivery!.status).toBe('pending');
    expect(flaky.calls).toHaveLength(1);

    clock.advance(5_000);
    await expect.poll(() => flaky.calls.length, { timeout: 20_000 }).toBe(2);
    expect(flaky.calls[1]!.headers['webhook-id']).toBe(flaky.calls[0]!.headers['webhook-id']);
    expect(flaky.calls[1]!.body).toBe(flaky.calls[0]!.body);
    const body = verified(endpoint.secret, flaky.calls[1]!);
    expect(body).toMatchObject({ type: 'offer.published', data: { object: { slug: offer.slug, status: 'published' } } });
    await expect.poll(async () => (await deliveriesOf(server, endpoint.id))[0]?.status, { timeout: 10_000 }).toBe('succeeded');
  });

  it('records a receiver that hangs as a timeout, to be retried', { timeout: 60_000 }, async () => {
    const org = await server.identity();
    const hanging = await receiver(() => undefined);
    const endpoint = await subscribe(server, org.organizationId, hanging.url, ['offer.published']);
    await server.settle();
    await makeOffer(server, org.organizationId);
    await expect.poll(async () => (await deliveriesOf(server, endpoint.id))[0]?.attempts ?? 0, { timeout: 20_000 }).toBe(1);
    const [delivery] = await deliveriesOf(server, endpoint.id);
    const [attempt] = await attemptsOf(server, delivery!.id);
    expect(attempt).toMatchObject({ success: false, status_code: 0, error: 'timeout' });
    expect(attempt!.next_attempt_at).toBe(attempt!.attempted_at + 5);
    expect(delivery!.status).toBe('pending');
    // Deleted meanwhile: the pending retry is abandoned, not sent.
    await updateWebhookEndpoint(server.cliContext(org.organizationId), org.organizationId, endpoint.id, { enabled: false });
    clock.advance(5_000);
    await expect.poll(async () => (await deliveriesOf(server, endpoint.id))[0]?.status, { timeout: 20_000 }).toBe('failed');
    expect(hanging.calls).toHaveLength(1);
  });

  it('records a receiver that sends its headers and then stalls its body as a timeout', { timeout: 60_000 }, async () => {
    const org = await server.identity();
    const stalling = await receiver((_call, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('half an answer');
    });
    const endpoint = await subscribe(server, org.organizationId, stalling.url, ['offer.published']);
    await server.settle();
    await makeOffer(server, org.organizationId);
    await expect.poll(async () => (await deliveriesOf(server, endpoint.id))[0]?.attempts ?? 0, { timeout: 20_000 }).toBe(1);
    const [delivery] = await deliveriesOf(server, endpoint.id);
    expect(delivery!.status).toBe('pending');
    expect((await attemptsOf(server, delivery!.id))[0]).toMatchObject({ success: false, status_code: 0, error: 'timeout' });
  });

  it('sends nothing to a disabled endpoint', { timeout: 60_000 }, async () => {
    const org = await server.identity();
    const witness = await receiver();
    const disabled = await receiver();
    await subscribe(server, org.organizationId, witness.url, ['offer.published']);
    const off = await subscribe(server, org.organizationId, disabled.url, ['offer.published'], false);
    await server.settle();
    await makeOffer(server, org.organizationId);
    await expect.poll(() => witness.calls.length, { timeout: 20_000 }).toBe(1);
    await fannedOut(server);
    expect(await deliveriesOf(server, off.id)).toEqual([]);
    expect(disabled.calls).toHaveLength(0);
  });

  it('reads a response body that never ends only up to its cap: the call counts as answered, its first KB kept', { timeout: 60_000 }, async () => {
    const org = await server.identity();
    const endless = await receiver((_call, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const chunk = 'x'.repeat(8192);
      const timer = setInterval(() => res.write(chunk), 5);
      res.on('close', () => clearInterval(timer));
    });
    const endpoint = await subscribe(server, org.organizationId, endless.url, ['offer.published']);
    await server.settle();
    await makeOffer(server, org.organizationId);
    // Read to its end, the body would outlast the call's time-out (WEBHOOK_TIMEOUT_MS) and the attempt fail.
    await expect.poll(async () => (await deliveriesOf(server, endpoint.id))[0]?.status, { timeout: 20_000 }).toBe('succeeded');
    const [attempt] = await attemptsOf(server, (await deliveriesOf(server, endpoint.id))[0]!.id);
    expect(attempt).toMatchObject({ success: true, status_code: 200, error: null, response_excerpt: 'x'.repeat(1024) });
  });

  it('signs with both secrets during a rotation overlap', { timeout: 60_000 }, async () => {
    const org = await server.identity();
    const r = await receiver();
    const endpoint = await subscribe(server, org.organizationId, r.url, ['offer.published']);
    const rotated = await rotateWebhookSecret(server.cliContext(org.organizationId), secretBox(server.services.secrets.jwt), org.organizationId, endpoint.id, 3600);
    expect(rotated.secret).not.toBe(endpoint.secret);
    await server.settle();
    await makeOffer(server, org.organizationId);
    await expect.poll(() => r.calls.length, { timeout: 20_000 }).toBe(1);
    const signatures = String(r.calls[0]!.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    expect(signatures.every((s) => s.startsWith('v1,'))).toBe(true);
    verified(endpoint.secret, r.calls[0]!);
    verified(rotated.secret, r.calls[0]!);
    expect(() => verified('whsec_' + Buffer.alloc(32, 7).toString('base64'), r.calls[0]!)).toThrow('No matching signature');
  });
});

describe('event webhooks to a private address', () => {
  it('are refused by the SSRF guard when the address is not allowed, and not retried', { timeout: 60_000 }, async () => {
    const server = await startTestServer({ env: { ...WEBHOOK_ENV, WEBHOOK_ALLOW_HOSTS: '' } });
    const r = await startReceiver();
    try {
      const org = await server.identity();
      const endpoint = await subscribe(server, org.organizationId, r.url, ['offer.published']);
      await server.settle();
      await makeOffer(server, org.organizationId);
      await expect.poll(async () => (await deliveriesOf(server, endpoint.id))[0]?.status, { timeout: 20_000 }).toBe('failed');
      const [delivery] = await deliveriesOf(server, endpoint.id);
      const attempts = await attemptsOf(server, delivery!.id);
      expect(attempts).toHaveLength(1);
      expect(attempts[0]).toMatchObject({ success: false, error: 'blocked_address', next_attempt_at: null });
      expect(r.calls).toHaveLength(0);
    } finally {
      await r.close();
      await server.close({ remove: true });
    }
  });
});
