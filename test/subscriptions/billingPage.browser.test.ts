import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { issueBillingLink } from '../../modules/subscriptions/billingLinks.ts';
import { subscriptionDecider, subscriptionStream } from '../../modules/subscriptions/domain/subscription.ts';
import { receiptStream } from '../../modules/receipts/domain/receipt.ts';
import { testPaymentProvider } from '../../modules/payments/testPaymentProvider.ts';
import { fold } from '../../platform/domain/decider.ts';
import { launchChromium } from '../sdk/sdkFixtures.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { renewal } from './dunningFixtures.ts';

/** Screenshots for people to look at (test-results/ is not in git). */
const SHOTS = join(process.cwd(), 'test-results', 'subscriptions');

const savesCards = await (async () => {
  const charge = testPaymentProvider.charge as unknown as (request: Record<string, unknown>) => Promise<{ paymentMethod?: unknown }>;
  const result = await charge({ amount: 0, currency: 'EUR', card: { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' }, idempotencyKey: 'probe', description: 'probe', now: Date.now(), save: true });
  return result.paymentMethod !== undefined;
})();

describe('the hosted card page and the receipt’s cancel, in Chromium on a phone-sized screen', () => {
  let server: TestServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let organizationId: string;
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    server = await startTestServer();
    organizationId = (await server.identity('Acme Tools')).organizationId;
    chrome = await launchChromium();
  });
  afterAll(async () => {
    await chrome?.close();
    await server?.close({ remove: true });
  });

  async function phonePage() {
    const page = await chrome.context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    const problems: string[] = [];
    page.on('console', (m) => {
      // A page answered with its 402 or 422 is the page working; anything else (a policy refusal) is not.
      if ((m.type() === 'error' || m.type() === 'warning') && !/^Failed to load resource: the server responded with a status of 4(02|22)/.test(m.text())) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));

    return { page, problems };
  }

  it('shows the failed payment, refuses a declined card with its reason, and (with saved cards) recovers', async () => {
    const sub = await renewal(server, organizationId, { email: 'phone@example.com' });
    const token = await issueBillingLink(server.services, { subscription_id: sub.id, invoice_id: sub.invoiceId, organization_id: organizationId }, 'test');
    const { page, problems } = await phonePage();
    await page.goto(`${server.url}/billing/${token}`);
    expect(await page.locator('h1').textContent()).toBe('Update your payment method');
    expect(await page.locator('#seller').textContent()).toBe('Acme Tools');
    expect(await page.locator('#amount-due').textContent()).toBe('€10.00');
    expect(await page.locator('#last-decline').textContent()).toContain('Your bank declined the payment.');
    // Mobile-first: nothing wider than the screen, and a full-width button a thumb reaches.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    const button = await page.locator('#submit').boundingBox();
    expect(button!.width).toBeGreaterThan(300);
    expect(button!.height).toBeGreaterThanOrEqual(44);
    await page.screenshot({ path: join(SHOTS, 'billing-page.png'), fullPage: true });

    await page.fill('#number', '4000 0000 0000 0002');
    await page.fill('#exp', '12/40');
    await page.fill('#cvc', '123');
    await Promise.all([page.waitForNavigation(), page.click('#submit')]);
    expect(await page.locator('#error').textContent()).toContain('Your bank declined the payment.');
    expect(await page.locator('#number').inputValue()).toBe('');
    await page.screenshot({ path: join(SHOTS, 'billing-page-declined.png'), fullPage: true });

    if (savesCards) {
      await page.fill('#number', '4242 4242 4242 4242');
      await page.fill('#exp', '12/40');
      await page.fill('#cvc', '123');
      await Promise.all([page.waitForNavigation(), page.click('#submit')]);
      expect(await page.locator('h1').textContent()).toBe('Thank you, your subscription is active');
      await page.screenshot({ path: join(SHOTS, 'billing-page-paid.png'), fullPage: true });
      expect(fold(subscriptionDecider, (await server.services.store.readStream(subscriptionStream(sub.id))) as never).status).toBe('active');
    }
    // No policy violation, no script error: the page works under its own strict policy.
    expect(problems).toEqual([]);
    await page.close();
  });

  it('cancels at period end from the receipt page and keeps the subscription again', async () => {
    const sub = await renewal(server, organizationId, { email: 'receipt-phone@example.com', pays: true });
    let token = '';
    await vi.waitFor(async () => {
      const queued = (await server.services.store.readStream(receiptStream(sub.invoiceId))).find((e) => e.type === 'ReceiptQueued');
      expect(queued).toBeDefined();
      token = (queued!.data as { token: string }).token;
    }, { timeout: 20_000, interval: 50 });
    await server.settle();
    const { page, problems } = await phonePage();
    await page.goto(`${server.url}/receipts/${token}`);
    expect(await page.locator('#period').textContent()).toMatch(/^For /);
    await page.screenshot({ path: join(SHOTS, 'receipt-subscription.png'), fullPage: true });
    await Promise.all([page.waitForNavigation(), page.click('#cancel')]);
    expect(await page.locator('#subscription').textContent()).toContain('Your subscription is canceled. It stays active until');
    await page.screenshot({ path: join(SHOTS, 'receipt-canceled.png'), fullPage: true });
    await Promise.all([page.waitForNavigation(), page.click('#keep')]);
    expect(await page.locator('#cancel').textContent()).toBe('Cancel subscription');
    expect(problems).toEqual([]);
    await page.close();
  });
});
