import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../app/import/importFile.ts';
import { CHECKOUT_SESSIONS } from '../../modules/checkout/checkoutProjection.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';
import { launchChromium, openPage } from './sdkFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/*
 * The hosted checkout page opened by its link, as a buyer: a subscription says what it costs today,
 * how often it bills and from when (after its trial, if the offer has one);
 * after paying the page gives the invoice number and the way back to the shop; a reload shows the
 * purchase, not a new empty checkout. Real Chromium, real server.
 */

let server: TestServer;
let chrome: Awaited<ReturnType<typeof launchChromium>>;
let organizationId: string;
const errors: string[] = [];
const SHOP = 'https://shop.example.com/account?welcome=1';

const importFile = (file: Record<string, unknown>) =>
  runImport({ command: server.cliContext(organizationId), organizationId, catchUp: () => server.settle() }, file);

const theme = { primary_color: '#0f766e' };
const pages = [{ id: 'pay', type: 'checkout', title: 'Checkout' }];

beforeAll(async () => {
  // A fixed instant, so the first renewal's date is known: a month on, or after the trial.
  server = await startTestServer({ clock: manualClock(Date.parse('2026-11-27T12:00:00Z')) });
  ({ organizationId } = await server.identity('Paid page shop'));
  await importFile({
    products: [
      {
        key: 'pro',
        published: true,
        plans: [
          { name: 'monthly', display_name: 'Pro monthly', renew_interval: 'P1M', currency_code: 'eur', charges: [{ amount: 2900 }] },
          { name: 'once', display_name: 'Lifetime', type: 'one_time', currency_code: 'EUR', charges: [{ amount: 9900 }] },
        ],
      },
    ],
    offers: [
      { slug: 'pro-monthly-paid', name: 'Pro', product: 'pro', plan: 'monthly', theme, pages, published: true, shop_url: SHOP },
      { slug: 'pro-lifetime-paid', name: 'Pro for life', product: 'pro', plan: 'once', theme, pages, published: true },
      { slug: 'pro-trial-paid', name: 'Pro trial', product: 'pro', plan: 'monthly', theme, pages, published: true, trial_period_days: 14 },
    ],
  });
  await server.settle();
  chrome = await launchChromium();
}, 60_000);

afterAll(async () => {
  await chrome?.close();
  await server?.close({ remove: true });
});

const ready = () => !(document.getElementById('co-pay') as HTMLButtonElement | null)?.disabled;
const sessionsOfOrg = async () => {
  await server.settle();
  return server.services.readStore.count(CHECKOUT_SESSIONS, { organization_id: organizationId });
};

async function pay(page: Page): Promise<void> {
  await page.fill('#co-email', 'buyer@example.com');
  await page.fill('#co-number', '4242424242424242');
  await page.fill('#co-exp', '12 / 30');
  await page.fill('#co-cvc', '123');
  await page.click('#co-pay');
  await page.locator('#page-thank_you').waitFor({ state: 'visible', timeout: 30_000 });
}

describe('hosted checkout page, opened by its link', { timeout: 120_000 }, () => {
  it('a monthly plan says today\'s charge, then per month from the first renewal; paid, it shows the invoice number and a link back to the shop; a reload shows it paid', async () => {
    const page = await openPage(chrome.context, `${server.url}/checkout/pro-monthly-paid`, { errors, ready });
    try {
      // In the buyer's locale (the browser's is en-US), once the session has given today's total.
      await expect.poll(() => page.textContent('#co-recurring')).toBe('€29.00 today, then €29.00 per month from December 27, 2026, until you cancel.');
      expect(await page.textContent('.co-summary')).toContain('Total due today');
      // A reload before paying keeps the same session rather than opening a second one.
      const sessionId = await page.evaluate(() => document.body.dataset.sessionId);
      expect(sessionId).toMatch(/^cs_/);
      await page.reload();
      await page.waitForFunction(ready);
      expect(await page.evaluate(() => document.body.dataset.sessionId)).toBe(sessionId);

      await pay(page);
      const session = (await (await server.fetch(`/api/checkout/sessions/${sessionId}`)).json()) as Body;
      expect(session.session.status).toBe('completed');
      const number = session.session.invoice.number as number;
      expect(await page.textContent('#co-invoice')).toBe(`Invoice number ${number}`);
      expect(await page.getAttribute('#co-shop', 'href')).toBe(SHOP);
      expect(await page.isVisible('#co-shop')).toBe(true);

      await page.reload();
      await page.locator('#page-thank_you').waitFor({ state: 'visible', timeout: 30_000 });
      expect(await page.isVisible('#co-form')).toBe(false);
      expect(await page.textContent('#co-invoice')).toBe(`Invoice number ${number}`);
      expect(await page.textContent('#co-receipt')).toContain('€29.00 paid');
      expect(await page.evaluate(() => document.body.dataset.sessionId)).toBe(sessionId);
      expect(await sessionsOfOrg()).toBe(1);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('an offer with a trial says it is free for its days, then per month from the trial\'s end', async () => {
    const page = await openPage(chrome.context, `${server.url}/checkout/pro-trial-paid`, { errors, ready });
    try {
      await expect.poll(() => page.textContent('#co-recurring')).toBe('Free for 14 days, then €29.00 per month from December 11, 2026, until you cancel.');
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('a one-time plan says nothing of renewing, and an offer without a shop links to none; another tab starts its own checkout', async () => {
    const page = await openPage(chrome.context, `${server.url}/checkout/pro-lifetime-paid`, { errors, ready });
    try {
      expect(await page.locator('#co-recurring').count()).toBe(0);
      expect(await page.locator('#co-shop').count()).toBe(0);
      await pay(page);
      expect(await page.textContent('#co-invoice')).toMatch(/^Invoice number \d+$/);
      // sessionStorage is the tab's: a new tab on the same link is a new checkout.
      const other = await openPage(chrome.context, `${server.url}/checkout/pro-lifetime-paid`, { errors, ready });
      expect(await other.isVisible('#co-form')).toBe(true);
      expect(await other.evaluate(() => document.body.dataset.sessionId)).not.toBe(await page.evaluate(() => document.body.dataset.sessionId));
      await other.close();
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('refuses a shop_url that is not an http or https link', async () => {
    for (const shop_url of ['javascript:alert(1)', 'ftp://shop.example.com/', 'https://user:pw@shop.example.com/', 'shop.example.com']) {
      await expect(
        importFile({ offers: [{ slug: 'bad-shop', name: 'Bad', product: 'pro', plan: 'once', theme, pages, shop_url }] }),
        shop_url,
      ).rejects.toMatchObject({ issues: expect.arrayContaining([expect.objectContaining({ path: 'offers[0].shop_url' })]) });
    }
  });
});
