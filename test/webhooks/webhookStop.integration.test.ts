import { afterAll, describe, expect, it } from 'vitest';
import { makeOffer } from '../checkout/checkoutFixtures.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { startTestServer } from '../helpers/testServer.ts';
import { answer, attemptsOf, deliveriesOf, subscribe, WEBHOOK_ENV } from './webhookFixtures.ts';

describe('event webhooks at shutdown', () => {
  let hang = true;
  const calls: string[] = [];
  let receiverClose: (() => Promise<void>) | null = null;
  afterAll(async () => {
    await receiverClose?.();
  });

  it('a stop ends a call under way at once, records nothing of it, and the next run sends it again with the same webhook-id', { timeout: 60_000 }, async () => {
    const slow = await startReceiver((call, res) => {
      calls.push(String(call.headers['webhook-id']));
      if (!hang) answer(200, 'ok')(res);
    });
    receiverClose = slow.close;
    // A time-out far beyond the test's own: the stop must not wait for it.
    const env = { ...WEBHOOK_ENV, WEBHOOK_TIMEOUT_MS: '600000' };
    const first = await startTestServer({ env });
    const org = await first.identity();
    const endpoint = await subscribe(first, org.organizationId, slow.url, ['offer.published']);
    await first.settle();
    await makeOffer(first, org.organizationId);
    await expect.poll(() => calls.length, { timeout: 20_000 }).toBe(1);
    await first.close();

    hang = false;
    const again = await startTestServer({ dataDir: first.dataDir, env });
    try {
      await expect.poll(async () => (await deliveriesOf(again, endpoint.id))[0]?.status, { timeout: 20_000 }).toBe('succeeded');
      const [delivery] = await deliveriesOf(again, endpoint.id);
      // One attempt: the call the stop ended was not recorded.
      expect((await attemptsOf(again, delivery!.id)).map((a) => a.success)).toEqual([true]);
      expect(calls).toEqual([calls[0], calls[0]]);
    } finally {
      await again.close({ remove: true });
    }
  });
});
