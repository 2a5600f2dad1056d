import { readFileSync } from 'node:fs';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeOffer } from '../checkout/checkoutFixtures.ts';
import { importProducts, product, plan } from '../catalog/catalogFixtures.ts';
import { launchChromium } from '../sdk/sdkFixtures.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { invitedPerson, paidSession, seriousAxeViolations } from './dashboardFixtures.ts';

/**
 * What a new seller met in the dashboard and sent back: the CSV exports on Sales, tables on a
 * 390 px phone, a new offer's heading and preview. A real Chromium against a real server.
 */
describe('dashboard polish: exports, phone tables, the offer editor', () => {
  let server: TestServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let context: BrowserContext;
  let page: Page;
  let origin: string;
  let organizationId: string;

  beforeAll(async () => {
    server = await startTestServer();
    chrome = await launchChromium();
    context = chrome.context;
    page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    origin = server.url.replace('127.0.0.1', 'localhost');
    const person = await invitedPerson(server);
    organizationId = person.organizationIds[0]!;
    await importProducts(server, organizationId, {
      // Long words that do not wrap: the tables come out wider than a phone.
      products: [
        product('professional_photography_toolkit', {
          family: undefined,
          plans: [plan('lifetime_licence_for_studios', { type: 'one_time', renew_interval: undefined, charges: [{ amount: 2900 }] })],
        }),
      ],
    });
    await makeOffer(server, organizationId, { slug: 'studio-offer-for-photographers', content: { name: 'Studiophotographycompletebundle' } });
    await paidSession(server, 'studio-offer-for-photographers', { email: 'first@example.com', name: '=SUM(A1)' });
    await paidSession(server, 'studio-offer-for-photographers', { email: 'second@example.com' });
    await server.settle();
    await page.goto(`${origin}/dashboard/invitation#token=${person.token}`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor({ timeout: 30_000 });
  }, 120_000);
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') await page.screenshot({ path: `test-results/polish-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}.png`, fullPage: true }).catch(() => undefined);
  });
  afterAll(async () => {
    await chrome?.close();
    await server?.close({ remove: true });
  }, 120_000);

  it('downloads the sales and invoices of the filtered dates from Sales, the customers from Customers, as CSV', async () => {
    const today = new Date().toISOString().slice(0, 10);
    await page.goto(`${origin}/dashboard/sales?from=${today}&to=${today}`);
    await page.getByRole('heading', { name: 'Sales', level: 1 }).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export sales of these dates (CSV)' }).click()]);
    expect(download.suggestedFilename()).toBe(`sales-${today}-${today}.csv`);
    const csv = readFileSync((await download.path())!, 'utf8');
    const lines = csv.trimEnd().split('\r\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]!.startsWith('session_id,completed_at,')).toBe(true);
    expect(csv).toContain(",first@example.com,'=SUM(A1),");
    const [invoices] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export invoices of these dates (CSV)' }).click()]);
    expect(readFileSync((await invoices.path())!, 'utf8').trimEnd().split('\r\n')).toHaveLength(3);
    expect(await seriousAxeViolations(page)).toEqual([]);
    // And the customers, from theirs.
    await page.goto(`${origin}/dashboard/customers`);
    await page.getByRole('heading', { name: 'Customers', level: 1 }).waitFor();
    const [customers] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export customers (CSV)' }).click()]);
    expect(customers.suggestedFilename()).toBe('customers-start-now.csv');
    const people = readFileSync((await customers.path())!, 'utf8').trimEnd().split('\r\n');
    // Both bought within the same second: their order in the file is by creation time only.
    expect(people[0]!.split(',')[1]).toBe('email');
    expect(people.slice(1).map((l) => l.split(',')[1]).sort()).toEqual(['first@example.com', 'second@example.com']);
  });

  it('on a 390 px phone, a table wider than the screen scrolls sideways with a cue at the edge that has more', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      for (const [where, lastHeader] of [['catalog', 'Status'], ['offers', 'Status']] as const) {
        await page.goto(`${origin}/dashboard/${where}`);
        const wrap = page.locator('.table-wrap');
        await wrap.waitFor();
        const scroller = wrap.locator('.table-scroller');
        // The page itself does not scroll sideways: the table does, inside its frame.
        expect(await page.evaluate(() => document.documentElement.scrollWidth), where).toBeLessThanOrEqual(390);
        expect(await scroller.evaluate((el) => el.scrollWidth > el.clientWidth), where).toBe(true);
        const right = wrap.locator('.table-cue-right');
        await expect.poll(() => right.isVisible(), { timeout: 5000 }).toBe(true);
        const [cue, box] = [await right.boundingBox(), await wrap.boundingBox()];
        expect(Math.abs(cue!.x + cue!.width - (box!.x + box!.width)), `${where}: the cue sits on the right edge`).toBeLessThanOrEqual(2);
        expect(await wrap.locator('.table-cue-left').count()).toBe(0);
        // Scrolled to the end: every column readable, the cue now on the left.
        await scroller.evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
        await expect.poll(() => wrap.locator('.table-cue-left').isVisible()).toBe(true);
        expect(await right.count()).toBe(0);
        const header = await wrap.getByRole('columnheader', { name: lastHeader }).boundingBox();
        expect(header!.x + header!.width, `${where}: the last column shows whole`).toBeLessThanOrEqual(box!.x + box!.width + 1);
        // Keyboard users reach it too: the scroller takes focus and names itself.
        expect(await scroller.getAttribute('tabindex')).toBe('0');
        expect(await scroller.getAttribute('aria-label')).toMatch(/scrolls sideways/);
        expect(await seriousAxeViolations(page), where).toEqual([]);
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it("a new offer's heading says the name typed; its preview shows the price and the whole thank-you mark", async () => {
    await page.goto(`${origin}/dashboard/offers/new`);
    await page.getByRole('heading', { name: 'New offer', level: 1 }).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Darkroom course');
    await expect.poll(() => page.getByLabel('Heading').inputValue()).toBe('Darkroom course');
    const preview = page.frameLocator('iframe[title="Preview of the hosted checkout page"]');
    await preview.getByRole('heading', { name: 'Darkroom course' }).first().waitFor({ timeout: 20_000 });
    // The seller's own heading is theirs: typing the name on leaves it.
    await page.getByLabel('Heading').fill('Learn to print');
    await page.getByLabel('Name', { exact: true }).fill('Darkroom course, 2nd run');
    expect(await page.getByLabel('Heading').inputValue()).toBe('Learn to print');
    // The plan's price (one_time, €29.00), not a placeholder, in the summary and the price block.
    await expect.poll(() => preview.locator('.co-summary').textContent(), { timeout: 20_000 }).toBe('Total due today€29.00');
    expect(await preview.locator('.co-price-block').textContent()).toBe('€29.00');
    // The frame is as tall as its page: the thank-you mark at its end shows whole, with no scrolling inside.
    const iframe = page.locator('iframe[title="Preview of the hosted checkout page"]');
    await expect
      .poll(() => iframe.evaluate((el: HTMLIFrameElement) => el.getBoundingClientRect().height >= el.contentDocument!.documentElement.scrollHeight), { timeout: 10_000 })
      .toBe(true);
    const [frameBox, markBox] = [await iframe.boundingBox(), await preview.locator('#page-thank_you .co-done-mark').boundingBox()];
    expect(markBox!.height).toBeGreaterThan(40);
    expect(markBox!.y + markBox!.height).toBeLessThanOrEqual(frameBox!.y + frameBox!.height);
    expect(await seriousAxeViolations(page)).toEqual([]);
  });
});
