import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { makeOffer } from '../checkout/checkoutFixtures.ts';
import { startSmtpReceiver } from '../helpers/smtpReceiver.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { PNG_BASE64 } from '../receipts/sellerFixtures.ts';
import { launchChromium } from '../sdk/sdkFixtures.ts';
import { invitedPerson, paidSession, seriousAxeViolations, watchCsp } from './dashboardFixtures.ts';

/*
 * Issue 33 in the dashboard, in a real Chromium: with no SMTP server a receipt waits and Home
 * says so; the owner sets the business details (address, VAT number, logo, brand colour) and
 * an SMTP server of their own in Settings, sends a test email, and the banner goes; the customer
 * portal takes the colour; the hosted checkout's header names the seller with their logo.
 */
describe('business details and email settings in the dashboard', { timeout: 120_000 }, () => {
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let origin: string;
  let csp: string[];
  let person: Awaited<ReturnType<typeof invitedPerson>>;
  const shots = process.env.DASHBOARD_SCREENSHOTS;
  const h1 = (name: string) => page.getByRole('heading', { name, level: 1 }).waitFor();

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000', RECEIPT_POLL_INTERVAL_MS: '200', SMTP_ALLOW_HOSTS: '127.0.0.1' } });
    person = await invitedPerson(server, { organizations: [{ name: 'Northwind Studio' }] });
    const organizationId = person.organizationIds[0]!;
    await makeOffer(server, organizationId, {
      slug: 'pro-plan',
      content: { theme: { primary_color: '#0f766e', background_color: '#ffffff', text_color: '#111111', font_family: 'system-ui', logo_url: '', button_text: 'Pay now' } },
    });
    await paidSession(server, 'pro-plan', { email: 'waiting@example.com', name: 'Wanda' });
    await server.settle();
    chrome = await launchChromium();
    page = await chrome.context.newPage();
    csp = watchCsp(page);
    origin = server.url.replace('127.0.0.1', 'localhost');
    await page.goto(`${origin}/dashboard/invitation#token=${person.token}`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await h1('Home');
    if (shots) mkdirSync(shots, { recursive: true });
  });
  afterAll(async () => {
    await chrome?.close();
    await server?.close({ remove: true });
    await smtp?.close();
  });

  it('Home counts the emails that wait with no way out and links the fix', async () => {
    const banner = page.getByTestId('outbox-banner');
    await banner.waitFor();
    expect(await banner.textContent()).toContain('1 email is waiting in the outbox');
    if (shots) await banner.screenshot({ path: `${shots}/home-outbox-banner.png` });
    await banner.getByRole('link', { name: 'Set up email in Settings' }).click();
    await h1('Settings');
  });

  it('sets the address, VAT number and logo; a bad VAT number is shown beside its field', async () => {
    const card = page.getByRole('region', { name: 'Business details' });
    await card.getByLabel('Address', { exact: true }).fill('Keizersgracht 1');
    await card.getByLabel('City').fill('Amsterdam');
    await card.getByLabel('Country (two letters)').fill('nl');
    await card.getByLabel('VAT number').fill('NL<1>');
    await card.getByRole('button', { name: 'Save business details' }).click();
    await card.locator('.field-error').first().waitFor();
    expect(await card.getByLabel('VAT number').getAttribute('aria-invalid')).toBe('true');

    await card.getByLabel('VAT number').fill('NL123456789B01');
    await card.getByLabel('Logo').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: Buffer.from(PNG_BASE64, 'base64') });
    await card.getByRole('button', { name: 'Save business details' }).click();
    await card.getByText('Saved.').waitFor();
    await card.getByRole('img', { name: 'Your logo' }).waitFor();
    const org = (await page.evaluate(() => fetch('/manage/api/organization').then((r) => r.json()))) as Record<string, unknown>;
    expect(org).toMatchObject({ vat_number: 'NL123456789B01', address: { line1: 'Keizersgracht 1', city: 'Amsterdam', country: 'NL' } });
    expect(org.logo_url).toMatch(/\/logos\/org_\w+\/[0-9a-f]{32}\.png$/);
    expect(await seriousAxeViolations(page)).toEqual([]);
    if (shots) await card.screenshot({ path: `${shots}/settings-business.png` });
  });

  it('sets the brand colour (a bad one is shown beside its field), and the customer portal takes it with dark text on it', async () => {
    const card = page.getByRole('region', { name: 'Business details' });
    const hex = card.getByLabel('Brand colour', { exact: true });
    expect(await hex.inputValue()).toBe('');
    await hex.fill('#12');
    await card.getByRole('button', { name: 'Save business details' }).click();
    await card.locator('.field-error').first().waitFor();
    expect(await hex.getAttribute('aria-invalid')).toBe('true');
    await hex.fill('#FFD500');
    // The picker follows the text.
    expect(await card.getByLabel('Pick the brand colour').inputValue()).toBe('#ffd500');
    await card.getByRole('button', { name: 'Save business details' }).click();
    await card.getByText('Saved.').waitFor();
    const org = (await page.evaluate(() => fetch('/manage/api/organization').then((r) => r.json()))) as Record<string, unknown>;
    expect(org.brand_color).toBe('#ffd500');
    expect(await hex.inputValue()).toBe('#ffd500');
    expect(await seriousAxeViolations(page)).toEqual([]);

    const portal = await chrome.context.newPage();
    await portal.goto(`${origin}/portal/${person.organizationIds[0]!}`);
    await portal.locator('#seller').waitFor();
    const colours = await portal.evaluate(() => {
      const root = getComputedStyle(document.documentElement);
      return { brand: root.getPropertyValue('--brand').trim(), onBrand: root.getPropertyValue('--on-brand').trim(), line: getComputedStyle(document.body).borderTopColor };
    });
    expect(colours).toEqual({ brand: '#ffd500', onBrand: '#111111', line: 'rgb(255, 213, 0)' });
    await portal.close();
  });

  it('sets an SMTP server, the waiting receipt leaves, and the test email reports the answer', async () => {
    const card = page.getByRole('region', { name: 'Email' });
    await card.getByLabel('SMTP host').fill('127.0.0.1');
    await card.getByLabel('Port').fill(new URL(smtp.url).port);
    await card.getByLabel('From').fill('Northwind <shop@northwind.test>');
    await card.getByRole('button', { name: 'Save email settings' }).click();
    await card.getByText('Saved. Emails waiting in the outbox go out now.').waitFor();
    await card.getByRole('button', { name: 'Send a test email' }).click();
    await card.getByText(`Sent to ${person.email}. The server answered: 250`).waitFor();
    expect(smtp.accepted.some((m) => m.to.includes(person.email))).toBe(true);
    expect(await seriousAxeViolations(page)).toEqual([]);
    if (shots) await card.screenshot({ path: `${shots}/settings-email.png` });

    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Home' }).click();
    await h1('Home');
    await vi.waitFor(() => expect(smtp.accepted.some((m) => m.to.includes('waiting@example.com'))).toBe(true), { timeout: 30_000, interval: 100 });
    await page.reload();
    await h1('Home');
    await page.getByTestId('sales-30').waitFor();
    expect(await page.getByTestId('outbox-banner').count()).toBe(0);
  });

  it("the hosted checkout's header names the seller with their logo; money reads as everywhere else; the thank-you page links the receipt", async () => {
    const checkout = await chrome.context.newPage();
    await checkout.goto(`${origin}/checkout/pro-plan`);
    const header = checkout.locator('header.co-head');
    await header.waitFor();
    expect(await header.locator('#co-seller').textContent()).toBe('Northwind Studio');
    expect(await header.locator('img.co-logo').evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(1);
    await checkout.locator('#co-total:not(.is-loading)').waitFor();
    expect(await checkout.locator('#co-total').textContent()).toBe('€24.00');
    if (shots) await checkout.screenshot({ path: `${shots}/checkout-header.png`, clip: { x: 0, y: 0, width: 1280, height: 360 } });

    // Paid: the thank-you page links the receipt page, which opens in a tab of its own.
    await checkout.fill('#co-email', 'thanks@example.com');
    await checkout.fill('#co-name', 'Tess');
    await checkout.fill('#co-number', '4242424242424242');
    await checkout.fill('#co-exp', '12 / 30');
    await checkout.fill('#co-cvc', '123');
    await checkout.click('#co-pay');
    await checkout.locator('#page-thank_you').waitFor({ state: 'visible', timeout: 30_000 });
    const link = checkout.getByRole('link', { name: 'View your receipt' });
    await link.waitFor();
    const [receipt] = await Promise.all([chrome.context.waitForEvent('page'), link.click()]);
    await receipt.waitForLoadState();
    expect(new URL(receipt.url()).pathname).toMatch(/^\/receipts\/[A-Za-z0-9_-]{32}$/);
    expect(await receipt.getByRole('heading', { level: 1 }).textContent()).toBe('Northwind Studio');
    expect(await receipt.locator('#seller-vat').textContent()).toBe('VAT NL123456789B01');
    expect(await receipt.locator('#seller-logo').evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBe(1);
    if (shots) await checkout.locator('#page-thank_you').screenshot({ path: `${shots}/checkout-thank-you.png` });
    await receipt.close();
    await checkout.close();
    expect(csp).toEqual([]);
  });
});

