import { afterAll, describe, expect, it } from 'vitest';
import { createUser } from '../../modules/identity/identityCommands.ts';
import { WEBHOOK_ENDPOINTS, type EndpointDoc } from '../../modules/webhooks/webhookProjection.ts';
import { NOTICES, type NoticeDoc } from '../../modules/receipts/receiptProjection.ts';
import { makeOffer } from '../checkout/checkoutFixtures.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { startSmtpReceiver } from '../helpers/smtpReceiver.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';
import { answer, subscribe, WEBHOOK_ENV } from './webhookFixtures.ts';

const ENV = { ...WEBHOOK_ENV, RECEIPT_POLL_INTERVAL_MS: '200' };

describe('an endpoint disabled for failing five days tells its owners', () => {
  const closing: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const close of closing.reverse()) await close();
  });

  it('queues an email to each owner (not a member), kept without SMTP, sent once SMTP_URL is set', { timeout: 120_000 }, async () => {
    const clock = manualClock();
    const first: TestServer = await startTestServer({ clock, env: ENV });
    const down = await startReceiver((_call, res) => answer(502, 'bad gateway')(res));
    closing.push(() => down.close());
    const org = await first.identity('Acme Shop');
    const second = await createUser(first.cliContext(org.organizationId), { email: 'second-owner@example.com', organizationId: org.organizationId, role: 'owner' });
    await createUser(first.cliContext(org.organizationId), { email: 'member@example.com', organizationId: org.organizationId, role: 'member' });
    const endpoint = await subscribe(first, org.organizationId, `${down.url}/hooks`, ['offer.published']);
    await first.settle();
    await makeOffer(first, org.organizationId);
    await expect.poll(() => down.calls.length, { timeout: 20_000 }).toBe(1);
    // The failure is recorded (failing_since set) before the clock moves five days on.
    await expect.poll(async () => (await first.services.readStore.get<EndpointDoc>(WEBHOOK_ENDPOINTS, endpoint.id))?.failing_since ?? null, { timeout: 20_000 }).not.toBeNull();

    clock.advance(5 * 24 * 3600 * 1000);
    await expect.poll(async () => (await first.services.store.readStream(`webhook_endpoint-${endpoint.id}`)).map((e) => e.type), { timeout: 30_000 }).toContain('WebhookEndpointDisabled');
    const notices = () => first.services.readStore.find<NoticeDoc>(NOTICES, { filter: { organization_id: org.organizationId } });
    await expect.poll(async () => (await notices()).map((n) => n.notice.to).sort(), { timeout: 30_000 }).toEqual([org.email, 'second-owner@example.com'].sort());
    const kept = await notices();
    expect(kept.every((n) => n.status === 'queued' && n.attempts === 0)).toBe(true);
    expect(kept.map((n) => n.notice.user_id).sort()).toEqual([org.userId, second.id].sort());
    expect(kept[0]!.notice.subject).toContain(`${down.url}/hooks`);
    expect(kept[0]!.notice.text).toContain(endpoint.id);
    expect(kept[0]!.notice.text).toContain('Acme Shop');
    await first.close();

    // The same data directory, now with an SMTP server: each owner gets one email.
    const smtp = await startSmtpReceiver();
    closing.push(() => smtp.close());
    const again = await startTestServer({ dataDir: first.dataDir, clock, env: { ...ENV, SMTP_URL: smtp.url } });
    closing.push(() => again.close({ remove: true }));
    await expect.poll(() => smtp.accepted.flatMap((m) => m.to).sort(), { timeout: 30_000 }).toEqual([org.email, 'second-owner@example.com'].sort());
    expect(smtp.accepted[0]!.raw).toContain('Subject: Webhook endpoint disabled');
    expect(smtp.accepted[0]!.raw).toContain(endpoint.id);
    await expect.poll(async () => (await again.services.readStore.find<NoticeDoc>(NOTICES, { filter: { organization_id: org.organizationId } })).map((n) => n.status), { timeout: 20_000 }).toEqual(['sent', 'sent']);
    expect(smtp.accepted).toHaveLength(2);
  });
});
