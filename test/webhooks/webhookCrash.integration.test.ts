import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { secretBox } from '../../platform/lib/secretBox.ts';
import { createWebhookEndpoint } from '../../modules/webhooks/webhookEndpointCommands.ts';
import { answerOkAfter, startReceiver } from '../helpers/receiver.ts';
import { seedIdentity, seedOfferAndCatchUrl, startServerProcess, tempDataDir, withServices, type ServerProcess } from '../helpers/serverProcess.ts';
import { GOOD_CARD } from '../checkout/checkoutFixtures.ts';
import { verified } from './webhookFixtures.ts';

const ENV = { LOG_LEVEL: 'warn', CHECKOUT_RATE_LIMIT: '1000000', WEBHOOK_ALLOW_HOSTS: '127.0.0.1', LEASE_TTL_MS: '2000' };

/**
 * Kill -9 while sales are being delivered, restart on the same files: every sale's two events
 * reach the receiver (none lost), and a repeat is only ever the same event under its webhook-id.
 */
describe('event webhooks survive a SIGKILL', () => {
  const dataDir = tempDataDir('commerce-hooks-crash-');
  let proc: ServerProcess | undefined;
  // A receiver that takes its time, so deliveries are in flight when the process dies.
  const receiverReady = startReceiver(answerOkAfter(30));

  afterAll(async () => {
    if (proc && proc.child.exitCode === null) proc.child.kill('SIGKILL');
    await proc?.exited;
    await (await receiverReady).close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivers every event at least once, duplicates only under the same webhook-id', { timeout: 180_000 }, async () => {
    const receiver = await receiverReady;
    const { organizationId } = await seedIdentity(dataDir, 'Hooks Crash Org');
    const { offerSlug } = await seedOfferAndCatchUrl(dataDir, organizationId, 'Hooks Crash');
    const secret = await withServices(dataDir, async (services, ctx) => {
      const endpoint = await createWebhookEndpoint(ctx(organizationId), secretBox(services.secrets.jwt), {
        organizationId,
        url: `${receiver.url}/hooks`,
        eventTypes: ['checkout.session.completed', 'invoice.paid'],
      });
      return endpoint.secret;
    });

    proc = await startServerProcess({ dataDir, env: ENV });
    const url = proc.url;
    const post = (path: string, body: unknown) =>
      fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    let stop = false;
    const sell = async () => {
      while (!stop) {
        try {
          const created = await post('/api/checkout/sessions', { offer: offerSlug });
          if (created.status !== 201) continue;
          const id = ((await created.json()) as { session: { id: string } }).session.id;
          await post(`/api/checkout/sessions/${id}/pay`, { email: `buyer-${id}@example.com`, card: GOOD_CARD });
        } catch {
          return; // the process is gone
        }
      }
    };
    const sellers = Array.from({ length: 4 }, sell);
    await expect.poll(() => receiver.calls.length, { timeout: 60_000, interval: 20 }).toBeGreaterThanOrEqual(20);
    proc.child.kill('SIGKILL');
    expect((await proc.exited).signal).toBe('SIGKILL');
    stop = true;
    await Promise.all(sellers);

    // What the log holds is what was sold (acknowledged or not): each of those events must arrive.
    const expected = await withServices(dataDir, async (services) =>
      (await services.store.readAll({ after: null, limit: 1_000_000, streamPrefixes: ['checkout_session-', 'invoice-'] }))
        .filter((e) => e.type === 'CheckoutSessionCompleted' || e.type === 'InvoicePaid')
        .map((e) => e.id),
    );
    expect(expected.length).toBeGreaterThanOrEqual(20);

    proc = await startServerProcess({ dataDir, env: ENV });
    const received = () => new Set(receiver.calls.map((c) => String(c.headers['webhook-id'])));
    await expect.poll(() => expected.filter((id) => !received().has(id)).length, { timeout: 90_000, interval: 200 }).toBe(0);

    await proc.stop();
    // The restarted service may have finished sales the kill interrupted (the checkout completion
    // job): their events are in the log now, and may have been delivered too.
    const logged = await withServices(dataDir, async (services) =>
      (await services.store.readAll({ after: null, limit: 1_000_000, streamPrefixes: ['checkout_session-', 'invoice-'] }))
        .filter((e) => e.type === 'CheckoutSessionCompleted' || e.type === 'InvoicePaid')
        .map((e) => e.id),
    );
    // Every call verifies, names a logged event by its webhook-id, and a repeat carries the same body.
    const bodyOf = new Map<string, string>();
    for (const call of receiver.calls) {
      const body = verified(secret, call);
      const id = String(call.headers['webhook-id']);
      expect(body.id).toBe(id);
      expect(logged).toContain(id);
      if (bodyOf.has(id)) expect(call.body).toBe(bodyOf.get(id));
      bodyOf.set(id, call.body);
    }
    expect(bodyOf.size).toBeGreaterThanOrEqual(expected.length);
  });
});
