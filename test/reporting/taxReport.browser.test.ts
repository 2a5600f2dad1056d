import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { invitedPerson, seriousAxeViolations } from '../dashboard/dashboardFixtures.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { appendPricedSale, appendRefund, business, consumer, launch20, REVERSE_CHARGE, type PricedSale } from '../receipts/pricedSale.ts';
import { launchChromium } from '../sdk/sdkFixtures.ts';

/** The Tax report page and a priced sale's invoice, as a seller reads them in a real Chromium. */
describe('dashboard: the tax report and a sale’s discount and VAT', { timeout: 120_000 }, () => {
  let server: TestServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let origin: string;
  let discounted: PricedSale;

  beforeAll(async () => {
    server = await startTestServer();
    const person = await invitedPerson(server, { organizations: [{ name: 'Tax Shop' }] });
    const organizationId = person.organizationIds[0]!;
    const now = Math.floor(Date.now() / 1000);
    discounted = await appendPricedSale(server.services.store, {
      organizationId,
      lines: [
        { name: 'Pro plan', amount: 10_000 },
        { name: 'Add-on', amount: 2_500 },
      ],
      discount: launch20(),
      customer: consumer('DE'),
      at: now - 120,
    });
    await appendPricedSale(server.services.store, { organizationId, lines: [{ name: 'Team', amount: 50_000 }], tax: REVERSE_CHARGE, customer: business('FR', 'FR12345678901', 'Atelier Dupont SARL'), at: now - 60 });
    await appendRefund(server.services.store, discounted, { organizationId, amount: 5_000, amountRefunded: 5_000, at: now });
    await vi.waitFor(async () => {
      await server.settle();
      expect(await server.services.readStore.find('tax_report_entries', { filter: { organization_id: organizationId } })).toHaveLength(3);
    }, { timeout: 30_000, interval: 100 });

    chrome = await launchChromium();
    page = await chrome.context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    origin = server.url.replace('127.0.0.1', 'localhost');
    await page.goto(`${origin}/dashboard/invitation#token=${person.token}`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor({ timeout: 30_000 });
  }, 120_000);
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') await page.screenshot({ path: `test-results/tax-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}.png`, fullPage: true }).catch(() => undefined);
  });
  afterAll(async () => {
    await chrome?.close();
    await server?.close({ remove: true });
  });

  it('reaches the Tax report from Sales, shows tax per country and rate less the credit note, and downloads the same CSV', async () => {
    await page.goto(`${origin}/dashboard/sales`);
    await page.getByRole('link', { name: 'Tax report' }).click();
    await page.getByRole('heading', { name: 'Tax report', level: 1 }).waitFor();
    const table = page.getByRole('table', { name: 'Tax per period, country and rate' });
    await table.waitFor();
    const rows = await table.locator('tbody tr').allInnerTexts();
    const month = new Date().toISOString().slice(0, 7);
    expect(rows.map((r) => r.replace(/\s+/g, ' ').trim())).toEqual([
      `${month} Germany (DE) 19% Standard rate €57.98 €11.02 1 1 credit note`,
      `${month} France (FR) 0% Reverse charge €500.00 €0.00 1`,
    ]);
    expect(await page.locator('#tax-totals').innerText()).toContain('Net €557.98 · Tax €11.02');
    expect(await seriousAxeViolations(page)).toEqual([]);

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download CSV' }).click()]);
    const path = await download.path();
    const { readFileSync } = await import('node:fs');
    const csv = readFileSync(path, 'utf8');
    expect(csv).toContain(`${month},`);
    expect(csv).toContain(',DE,19,standard_rated,EUR,57.98,11.02,1,1\r\n');
    expect(csv).toContain(',FR,0,reverse_charge,EUR,500.00,0.00,1,0\r\n');

    // A narrower period from the form: a quarter per row, in the URL.
    await page.getByLabel('Group by').selectOption('quarter');
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => page.url()).toContain('interval=quarter');
    await expect.poll(async () => (await table.locator('tbody tr').first().innerText()).split(/\s+/)[0]).toMatch(/^\d{4}-Q[1-4]$/);
  });

  it("shows a sale's subtotal, discount with its code, VAT and the buyer's tax details", async () => {
    await page.goto(`${origin}/dashboard/sales/${discounted.sessionId}`);
    await page.getByRole('heading', { name: 'Checkout session', level: 1 }).waitFor();
    await page.locator('#invoice-subtotal').waitFor();
    expect(await page.locator('#invoice-subtotal').innerText()).toBe('€125.00');
    expect(await page.locator('#invoice-discount').innerText()).toBe('−€25.00');
    expect(await page.getByText('Discount (LAUNCH20)').count()).toBe(1);
    expect(await page.locator('#invoice-tax').innerText()).toBe('€19.00');
    expect(await page.getByText('VAT 19%').count()).toBe(1);
    expect(await page.locator('#invoice-tax-details').innerText()).toBe('DE');
  });
});
