import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeOffer } from '../checkout/checkoutFixtures.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { subscribe, verified, WEBHOOK_ENV } from './webhookFixtures.ts';

/** One endpoint's calls at once, and the job's in all (webhooks/webhookJob.ts). */
const PER_ENDPOINT = 16;

describe('an endpoint that hangs', () => {
  let server: TestServer;
  const receivers: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    // Calls that hang hold their slot this long: far longer than the test waits for the other organization's webhook.
    server = await startTestServer({ env: { ...WEBHOOK_ENV, WEBHOOK_TIMEOUT_MS: '120000' } });
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
});
