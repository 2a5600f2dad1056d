import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../modules/identity/identityCommands.ts';
import { makeOffer } from '../checkout/checkoutFixtures.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { launchChromium } from '../sdk/sdkFixtures.ts';
import { invitedPerson, paidSession, seriousAxeViolations } from './dashboardFixtures.ts';

/**
 * Refunds as a seller reads them in the dashboard, in a real Chromium: Home's gross, refunds and
 * net, the Sales list's badges and refund filter, and a sale's page with its credit note.
 * DASHBOARD_SCREENSHOTS=<dir> writes each page at 1280 and 390 px wide.
 */
describe('dashboard: refunds in every figure and badge', { timeout: 90_000 }, () => {
  let server: TestServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let origin: string;
  const sessions: Record<string, string> = {};
  const sums = { gross: 0, refunds: 0 };
  const euros = (minor: number) => `€${(minor / 100).toFixed(2)}`;
  const shots = process.env.DASHBOARD_SCREENSHOTS;

  const h1 = (name: string) => page.getByRole('heading', { name, level: 1 }).waitFor({ timeout: 30_000 });
  const check = async (name: string) => {
    await page.waitForLoadState('networkidle').catch(() => undefined);
    expect(await seriousAxeViolations(page), name).toEqual([]);
    if (shots) {
      mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: `${shots}/${name}-desktop.png`, fullPage: true });
    }
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth), { timeout: 10_000 }).toBeLessThanOrEqual(390);
    if (shots) await page.screenshot({ path: `${shots}/${name}-phone.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
  };

  beforeAll(async () => {
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000' } });
    const person = await invitedPerson(server, { organizations: [{ name: 'Refund Shop' }] });
    const org = person.organizationIds[0]!;
    const priced = (slug: string, amount: number) =>
      makeOffer(server, org, { slug, content: { name: slug, plan: { product_id: `p-${slug}`, plan_id: slug, plan_name: slug, charges: [{ id: 'c1', name: slug, amount }] } } });
    await priced('five', 500);
    await priced('nineteen', 1900);
    await priced('nine', 900);
    sessions.five = await paidSession(server, 'five', { email: 'five@example.com' });
    sessions.nineteen = await paidSession(server, 'nineteen', { email: 'nineteen@example.com' });
    sessions.nine = await paidSession(server, 'nine', { email: 'nine@example.com' });
    const key = (await createApiKey(server.cliContext(org), { userId: person.userId, organizationId: org })).token;
    await server.settle();
    const invoiceOf = async (id: string) => ((await (await server.fetch(`/api/checkout/sessions/${id}`)).json()) as { session: { invoice: { id: string } } }).session.invoice.id;
    const refund = async (id: string, body: unknown) => {
      const response = await server.fetch(`/api/invoices/${await invoiceOf(id)}/refunds`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), token: key });
      expect(response.status).toBe(200);
    };
    await refund(sessions.five!, {});
    await refund(sessions.nineteen!, { amount: 100 });
    await server.settle();
    // What Home must show: the sums of the invoices as the API lists them.
    const listed = ((await (await server.fetch('/api/invoices', { token: key })).json()) as { data: { amount_paid: number; amount_refunded: number }[] }).data;
    sums.gross = listed.reduce((sum, i) => sum + i.amount_paid, 0);
    sums.refunds = listed.reduce((sum, i) => sum + i.amount_refunded, 0);

    chrome = await launchChromium();
    page = await chrome.context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    origin = server.url.replace('127.0.0.1', 'localhost');
    await page.goto(`${origin}/dashboard/invitation#token=${person.token}`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await h1('Home');
  }, 120_000);
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') await page.screenshot({ path: `test-results/refunds-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}.png`, fullPage: true }).catch(() => undefined);
  });
  afterAll(async () => {
    await chrome?.close();
    await server?.close({ remove: true });
  }, 60_000);

  it('Home shows gross, refunds and net, and the latest sales say which were refunded', async () => {
    expect(sums).toEqual({ gross: 3300, refunds: 600 });
    await expect.poll(() => page.getByTestId('net-30').textContent(), { timeout: 15_000 }).toBe(euros(sums.gross - sums.refunds));
    expect(await page.getByTestId('gross-30').textContent()).toBe(euros(sums.gross));
    expect(await page.getByTestId('refunds-30').textContent()).toBe(euros(sums.refunds));
    const latest = page.getByRole('region', { name: 'Latest sales' });
    await expect.poll(() => latest.getByText('partially refunded').count()).toBe(1);
    expect(await latest.locator('.badge', { hasText: /^refunded$/ }).count()).toBe(1);
    await check('refunds-home');
  });

  it('the Sales list badges refunds, shows the amount refunded and filters by refund status', async () => {
    await page.goto(`${origin}/dashboard/sales`);
    await h1('Sales');
    const row = (email: string) => page.getByRole('row').filter({ hasText: email });
    await expect.poll(() => row('five@example.com').locator('.badge').textContent(), { timeout: 15_000 }).toBe('refunded');
    expect(await row('nineteen@example.com').locator('.badge').textContent()).toBe('partially refunded');
    expect(await row('nineteen@example.com').textContent()).toContain('−€1.00 refunded');
    expect(await row('nine@example.com').locator('.badge').textContent()).toBe('completed');
    await check('refunds-sales');
    await page.getByLabel('Status').selectOption('refunded');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await expect.poll(() => page.getByRole('row').filter({ hasText: '@example.com' }).count(), { timeout: 15_000 }).toBe(1);
    expect(await row('five@example.com').count()).toBe(1);
  });

  it("a sale's page names the refund and links its credit note", async () => {
    await page.goto(`${origin}/dashboard/sales/${sessions.nineteen}`);
    const invoice = page.getByRole('region', { name: 'Invoice' });
    await invoice.waitFor({ timeout: 30_000 });
    await expect.poll(() => invoice.locator('.badge').first().textContent(), { timeout: 15_000 }).toBe('partially refunded');
    const link = invoice.getByRole('link', { name: 'CN-0002' });
    await link.waitFor({ timeout: 15_000 });
    const pdf = await page.request.get(`${origin}${await link.getAttribute('href')}`);
    expect(pdf.status()).toBe(200);
    expect(pdf.headers()['content-type']).toBe('application/pdf');
    // The history says which event refunded it.
    const history = page.getByRole('region', { name: 'History' });
    expect(await history.locator('.badge').last().textContent()).toBe('partially refunded');
    await check('refunds-sale');
  });
});
