import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app/httpApp.ts';
import { compose } from '../../app/compose.ts';
import { runImport } from '../../app/import/importFile.ts';
import { createBenefit } from '../../modules/benefits/index.ts';
import { loadProductByKey } from '../../modules/catalog/index.ts';
import { createApiKey, createOrganization, createUser } from '../../modules/identity/identityCommands.ts';
import { outlets } from '../../modules/receipts/jobs/outlets.ts';
import { queueReceipt, RECEIPT_BENEFITS_WAIT_SECONDS, sendReceipt } from '../../modules/receipts/jobs/receiptOutbox.ts';
import type { CommandContext } from '../../platform/es/index.ts';
import { loadConfig } from '../../platform/runtime/config.ts';
import { GOOD_CARD, offerContent } from '../checkout/checkoutFixtures.ts';
import { plainText, startSmtpReceiver } from '../helpers/smtpReceiver.ts';
import { manualClock } from '../helpers/testServer.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/*
 * The receipt of a sale whose grants are not made (no benefits subscriber runs here): the sender
 * holds it back while they may still come, then sends it saying the downloads and keys will be on
 * the receipt page. Real SMTP server on loopback; the sender called as its job calls it.
 */
describe('a receipt waiting for its grants', () => {
  const clock = manualClock(Date.parse('2026-11-27T12:00:00Z'));
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let services: Awaited<ReturnType<typeof compose>>;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let dataDir: string;
  const ctx = (organizationId: string | null = null): CommandContext => ({
    store: services.store,
    metadata: { correlation_id: 'test', actor: { type: 'cli' }, organization_id: organizationId, occurred_at: Math.floor(clock() / 1000) },
  });

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    dataDir = mkdtempSync(join(tmpdir(), 'commerce-receipt-wait-'));
    services = await compose(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', SMTP_URL: smtp.url }), { runProjections: true, watchProjections: false, clock, logger: { error: () => undefined, info: () => undefined } });
    app = await buildApp(services);
  });
  afterAll(async () => {
    await app?.close();
    await services?.close();
    await smtp?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is held back while grants may come, then sent saying where they will be', async () => {
    const org = await createOrganization(ctx(), { name: 'Darkroom Press', timezone: 'UTC' });
    const user = await createUser(ctx(org.id), { email: 'seller@example.com', organizationId: org.id });
    await createApiKey(ctx(org.id), { userId: user.id, organizationId: org.id });
    const content = offerContent();
    await runImport(
      { command: ctx(org.id), organizationId: org.id, catchUp: async () => undefined },
      {
        products: [{ key: 'app', name: 'app', plans: [{ name: 'once', display_name: 'Once', type: 'one_time', renew_interval: null, currency_code: 'EUR', charges: [{ amount: 2900 }] }] }],
        offers: [{ slug: 'app-wait', name: content.name, product: 'app', plan: 'once', theme: content.theme, pages: content.pages, published: true }],
      },
    );
    const product = (await loadProductByKey(ctx(), org.id, 'app'))!.routeKey;
    await createBenefit(ctx(org.id), { organizationId: org.id, product, type: 'license_key', description: 'App license', properties: { prefix: 'APP', activation_limit: 3, expires_after_days: null, bound_to: 'perpetual' } });
    clock.advance(1000);
    const created = await app.inject({ method: 'POST', url: '/api/checkout/sessions', payload: { offer: 'app-wait' } });
    const sessionId = (created.json() as Body).session.id as string;
    const paid = await app.inject({ method: 'POST', url: `/api/checkout/sessions/${sessionId}/pay`, payload: { email: 'ada@example.com', card: GOOD_CARD } });
    expect(paid.statusCode).toBe(200);
    const invoiceId = (paid.json() as Body).invoice.id as string;
    const paidEvent = (await services.store.readStream(`invoice-${invoiceId}`)).find((e) => e.type === 'InvoicePaid')!;
    expect(await queueReceipt(services, paidEvent)).toBe(true);
    const ways = outlets(services);
    try {
      const mailer = (organizationId: string) => ways.of(organizationId);
      // No grant yet: held back, nothing sent, still queued.
      expect(await sendReceipt(services, mailer, invoiceId)).toBe('skipped');
      clock.advance((RECEIPT_BENEFITS_WAIT_SECONDS - 5) * 1000);
      expect(await sendReceipt(services, mailer, invoiceId)).toBe('skipped');
      expect(smtp.accepted).toHaveLength(0);
      // The wait is over: it leaves, saying the keys will be on the receipt page.
      clock.advance(10_000);
      expect(await sendReceipt(services, mailer, invoiceId)).toBe('sent');
      expect(smtp.accepted).toHaveLength(1);
      const text = plainText(smtp.accepted[0]!.raw);
      expect(text).toMatch(/Your downloads and license keys are being prepared: they will be on your receipt page: \S+\/receipts\/[A-Za-z0-9_-]{32}/);
      expect(text).not.toContain('Your license key');
    } finally {
      ways.close();
    }
  });
});
