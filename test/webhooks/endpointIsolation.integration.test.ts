import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeOffer } from '../checkout/checkoutFixtures.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';
import { answer, subscribe, verified, WEBHOOK_ENV } from './webhookFixtures.ts';

/** One endpoint's calls at once, and the job's in all (modules/webhooks/jobs/webhookJob.ts). */
const PER_ENDPOINT = 16;

describe('an endpoint that hangs', () => {
  let server: TestServer;
  const clock = manualClock();
  const receivers: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    // Calls that hang hold their slot this long: far longer than the test waits for the other organization's webhook.
    server = await startTestServer({ clock, env: { ...WEBHOOK_ENV, WEBHOOK_TIMEOUT_MS: '120000' } });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await server.close({ remove: true });
  });

  it(`holds at most ${PER_ENDPOINT} calls, and another organization's webhooks go on meanwhile`, { timeout: 90_000 }, async () => {
    const slow = await server.identity('Slow Shop');
    const other = await server.identity('Other Shop');
    const hanging = await startReceiver(() => undefined);
    const healthy = await startReceiver();
    receivers.push(hanging, healthy);
    await subscribe(server, slow.organizationId, hanging.url, ['offer.published']);
    const endpoint = await subscribe(server, other.organizationId, healthy.url, ['offer.published']);
    await server.settle();

    for (let i = 0; i < PER_ENDPOINT + 8; i++) await makeOffer(server, slow.organizationId);
    await expect.poll(() => hanging.calls.length, { timeout: 20_000 }).toBe(PER_ENDPOINT);
    await makeOffer(server, other.organizationId);
    await expect.poll(() => healthy.calls.length, { timeout: 20_000 }).toBe(1);
    expect(verified(endpoint.secret, healthy.calls[0]!)).toMatchObject({ type: 'offer.published', organization_id: other.organizationId });
    // None of the hanging endpoint's calls has ended, and it got no more than its share.
    expect(hanging.calls).toHaveLength(PER_ENDPOINT);
  });

  it('does not hold back a retry that falls due while a retry to it hangs', { timeout: 90_000 }, async () => {
    const slow = await server.identity('Slow Retries');
    const other = await server.identity('Other Retries');
    // The first call is refused (a retry 5 s later), the retry hangs.
    const hanging = await startReceiver((_call, res, index) => (index === 0 ? answer(503)(res) : undefined));
    const flaky = await startReceiver((_call, res, index) => answer(index === 0 ? 503 : 200)(res));
    receivers.push(hanging, flaky);
    await subscribe(server, slow.organizationId, hanging.url, ['offer.published']);
    await subscribe(server, other.organizationId, flaky.url, ['offer.published']);
    await server.settle();

    await makeOffer(server, slow.organizationId);
    await expect.poll(() => hanging.calls.length, { timeout: 20_000 }).toBe(1);
    clock.advance(5_000);
    // The dispatcher's retry to the slow shop is under way, and stays so.
    await expect.poll(() => hanging.calls.length, { timeout: 20_000 }).toBe(2);
    await makeOffer(server, other.organizationId);
    await expect.poll(() => flaky.calls.length, { timeout: 20_000 }).toBe(1);
    clock.advance(5_000);
    await expect.poll(() => flaky.calls.length, { timeout: 20_000 }).toBe(2);
    expect(flaky.calls[1]!.headers['webhook-id']).toBe(flaky.calls[0]!.headers['webhook-id']);
    expect(hanging.calls).toHaveLength(2);
  });
});
