import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { refundInvoice } from '../../modules/payments/index.ts';
import { launchChromium } from '../sdk/sdkFixtures.ts';
import { makeOffer } from '../checkout/checkoutFixtures.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { invitedPerson, paidSession, seriousAxeViolations, watchCsp } from '../dashboard/dashboardFixtures.ts';

/**
 * The Customers list and a customer's page in a real Chromium against a real server, over sales
 * made through the public checkout routes. DASHBOARD_SCREENSHOTS=<dir> also writes both pages at
 * 1280 and 390 px wide.
 */
describe('dashboard: customers', () => {
  let server: TestServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let origin: string;
  let csp: string[];
  const shots = process.env.DASHBOARD_SCREENSHOTS;

  const h1 = (name: string) => page.getByRole('heading', { name, level: 1 }).waitFor({ timeout: 30_000 });

  /** No serious axe violation and no sideways scroll, at 1280 and 390 px; screenshots when asked. */
  const check = async (name: string) => {
    await page.waitForLoadState('networkidle').catch(() => undefined);
    expect(await seriousAxeViolations(page), name).toEqual([]);
    if (shots) {
      mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: `${shots}/${name}-desktop.png`, fullPage: true });
    }
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth), { timeout: 10_000 }).toBeLessThanOrEqual(390);
    expect(await seriousAxeViolations(page), `${name} on a phone`).toEqual([]);
    if (shots) await page.screenshot({ path: `${shots}/${name}-phone.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
  };

  beforeAll(async () => {
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000' } });
    chrome = await launchChromium();
    page = await chrome.context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    csp = watchCsp(page);
    origin = server.url.replace('127.0.0.1', 'localhost');
    const person = await invitedPerson(server);
    const org = person.organizationIds[0]!;
    await makeOffer(server, org, { slug: 'pro-plan', content: { name: 'Pro plan' } });
    await paidSession(server, 'pro-plan', { email: 'ada@example.com', name: 'Ada Lovelace' }, { declineFirst: true });
    await paidSession(server, 'pro-plan', { email: 'grace@example.com', name: 'Grace Hopper' });
    const second = await paidSession(server, 'pro-plan', { email: 'Ada@Example.com' });
    const events = await server.services.store.readStream(`checkout_session-${second}`);
    const invoiceId = (events.find((e) => e.type === 'CheckoutSessionCompleted')!.data as { invoice_id: string }).invoice_id;
    await refundInvoice(server.cliContext(org), server.services, org, invoiceId, 500);
    await server.settle();

    await page.goto(`${origin}/dashboard/invitation#token=${person.token}`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await h1('Home');
  }, 120_000);
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') await page.screenshot({ path: `test-results/customers-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}.png`, fullPage: true }).catch(() => undefined);
  });
  afterAll(async () => {
    await chrome?.close();
    await server?.close({ remove: true });
  }, 120_000);

  it('lists one customer per person with their totals, and finds one by email whatever its case', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Customers', exact: true }).click();
    await h1('Customers');
    const rows = page.locator('tbody tr');
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(2);
    const ada = rows.filter({ hasText: 'ada@example.com' });
    expect(await ada.textContent()).toContain('€48.00');
    expect(await ada.textContent()).toContain('€5.00');
    await check('customers');

    await page.getByLabel('Email').fill('GRACE@example.com');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(1);
    expect(await rows.first().textContent()).toContain('grace@example.com');
    expect(new URL(page.url()).searchParams.get('email')).toBe('GRACE@example.com');
    await page.getByRole('button', { name: 'Clear' }).click();
    await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(2);
  });

  it("shows a customer's figures, invoices, refunds and timeline, and erases them on an owner's request", async () => {
    await page.goto(`${origin}/dashboard/customers?email=ada@example.com`);
    await page.locator('tbody tr a').first().click();
    await h1('Ada Lovelace');
    const summary = page.getByTestId('customer-summary');
    await expect.poll(() => summary.textContent(), { timeout: 15_000 }).toContain('€48.00');
    expect(await summary.textContent()).toContain('€5.00');
    const invoices = page.getByRole('table', { name: 'Invoices made out to this customer' }).locator('tbody tr');
    await expect.poll(() => invoices.count(), { timeout: 15_000 }).toBe(2);
    await expect.poll(() => page.getByTestId('customer-refunds').textContent(), { timeout: 15_000 }).toMatch(/^Invoice #\d+: €5\.00 refunded of €24\.00/);
    const timeline = page.getByTestId('customer-timeline').locator('li');
    await expect.poll(() => timeline.count(), { timeout: 15_000 }).toBeGreaterThan(10);
    expect(await page.getByTestId('customer-timeline').textContent()).toContain('Session payment declined');
    await check('customer');

    await page.getByRole('button', { name: 'Erase ada@example.com' }).click();
    await page.getByRole('button', { name: 'Yes, erase for good: ada@example.com' }).click();
    await h1('Erased customer');
    await expect.poll(() => summary.textContent(), { timeout: 15_000 }).toContain('redacted+');
    expect(await summary.textContent()).not.toContain('Ada');
    expect(await summary.textContent()).toContain('€48.00');
    expect(csp).toEqual([]);
  });
});
