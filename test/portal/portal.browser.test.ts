import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateOrganization } from '../../modules/identity/accountCommands.ts';
import { seriousAxeViolations } from '../dashboard/dashboardFixtures.ts';
import { startSmtpReceiver } from '../helpers/smtpReceiver.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { launchChromium } from '../sdk/sdkFixtures.ts';
import { buy, portalOffers, signInLinkFrom } from './portalFixtures.ts';

/** Screenshots for people to look at (test-results/ is not in git). */
const SHOTS = join(process.cwd(), 'test-results', 'portal');

describe('the customer portal in Chromium on a phone-sized screen', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let server: TestServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let organizationId: string;
  let bought: Awaited<ReturnType<typeof buy>>;

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    smtp = await startSmtpReceiver();
    server = await startTestServer({ env: { RECEIPT_POLL_INTERVAL_MS: '100', SMTP_URL: smtp.url } });
    organizationId = (await server.identity('Acme Tools')).organizationId;
    // A 1×1 PNG as the seller's logo: the portal's header shows it under its own policy (img-src 'self').
    const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
    await updateOrganization(server.cliContext(organizationId), organizationId, {
      logo: { content_type: 'image/png', sha256: createHash('sha256').update(png).digest('hex'), data: png.toString('base64') },
    });
    const offers = await portalOffers(server, organizationId, 'phone');
    bought = await buy(server, offers.monthly, 'phone@example.com', 'Ada Phone');
    await buy(server, offers.ebook, 'phone@example.com', 'Ada Phone');
    await server.settle();
    chrome = await launchChromium();
  });
  afterAll(async () => {
    await chrome?.close();
    await server?.close({ remove: true });
    await smtp?.close();
  });

  it('signs in by an emailed link, cancels and keeps the subscription, and updates the card, with no serious axe violation', async () => {
    const page = await chrome.context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    const problems: string[] = [];
    page.on('console', (m) => {
      // A form answered with its 402 or 422 is the page working; anything else (a policy refusal) is not.
      if ((m.type() === 'error' || m.type() === 'warning') && !/^Failed to load resource: the server responded with a status of 4(02|22)/.test(m.text())) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    const fitsThePhone = async () => expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);

    await page.goto(`${server.url}/portal/${organizationId}`);
    expect(await page.locator('#seller').textContent()).toBe('Acme Tools');
    expect(await page.locator('#seller img').evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(1);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await fitsThePhone();
    await page.screenshot({ path: join(SHOTS, 'sign-in.png'), fullPage: true });
    await page.fill('#email', 'phone@example.com');
    await Promise.all([page.waitForNavigation(), page.click('#send')]);
    expect(await page.locator('#sent').textContent()).toContain('we have sent a sign-in link');

    // The link, read from the email the real SMTP server on loopback received.
    const link = await signInLinkFrom(smtp.accepted, 'phone@example.com');
    await page.goto(`${server.url}${link}`);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await Promise.all([page.waitForNavigation(), page.click('#continue')]);
    expect(await page.locator('#signed-in-as').textContent()).toBe('Signed in as phone@example.com');
    expect(await page.locator(`#subscription-${bought.subscriptionId} h3`).textContent()).toContain('SaaS monthly');
    expect(await page.locator('h2').allTextContents()).toEqual(['Subscriptions', 'Purchases']);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await fitsThePhone();
    const cancel = page.locator(`#cancel-${bought.subscriptionId}`);
    const box = await cancel.boundingBox();
    expect(box!.width).toBeGreaterThan(300);
    expect(box!.height).toBeGreaterThanOrEqual(44);
    await page.screenshot({ path: join(SHOTS, 'portal.png'), fullPage: true });

    await Promise.all([page.waitForNavigation(), cancel.click()]);
    expect(await page.locator('#notice').textContent()).toContain('canceled at the end of the period');
    expect(await page.locator(`#ends-${bought.subscriptionId}`).textContent()).toMatch(/^Canceled: it stays active until /);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'portal-canceled.png'), fullPage: true });
    await Promise.all([page.waitForNavigation(), page.click(`#keep-${bought.subscriptionId}`)]);
    expect(await page.locator('#notice').textContent()).toBe('Your subscription continues.');
    expect(await cancel.isVisible()).toBe(true);

    await Promise.all([page.waitForNavigation(), page.click(`#card-${bought.subscriptionId}`)]);
    expect(await page.locator('h1').textContent()).toBe('Update card');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await fitsThePhone();
    await page.fill('#number', '4000 0000 0000 0002');
    await page.fill('#exp', '12/40');
    await page.fill('#cvc', '123');
    await Promise.all([page.waitForNavigation(), page.click('#save-card')]);
    expect(await page.locator('#error').textContent()).toContain('declined');
    await page.screenshot({ path: join(SHOTS, 'card-declined.png'), fullPage: true });
    await page.fill('#number', '5555 5555 5555 4444');
    await page.fill('#exp', '11/41');
    await page.fill('#cvc', '123');
    await Promise.all([page.waitForNavigation(), page.click('#save-card')]);
    expect(await page.locator('#notice').textContent()).toContain('Your new card is saved.');
    expect(await page.locator(`#subscription-${bought.subscriptionId}`).textContent()).toContain('ending in 4444');
    await page.screenshot({ path: join(SHOTS, 'card-saved.png'), fullPage: true });

    await Promise.all([page.waitForNavigation(), page.click('#sign-out')]);
    expect(await page.locator('#send').isVisible()).toBe(true);
    // No policy violation, no script error: the pages work under their own strict policy.
    expect(problems).toEqual([]);
    await page.close();
  });
});
