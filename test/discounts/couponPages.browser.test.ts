import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../app/import/importFile.ts';
import { confirmRedemption, reserveRedemption, resolveDiscountCode } from '../../modules/discounts/index.ts';
import { launchChromium } from '../sdk/sdkFixtures.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { invitedPerson, seriousAxeViolations, watchCsp } from '../dashboard/dashboardFixtures.ts';

/**
 * The Coupons pages in a real Chromium against a real server: create a coupon, give it a code,
 * turn the code off and on, see a redemption counted. DASHBOARD_SCREENSHOTS=<dir> also writes
 * the pages at 1280 and 390 px wide.
 */
describe('dashboard: coupons', () => {
  let server: TestServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let origin: string;
  let csp: string[];
  let org: string;
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
    server = await startTestServer();
    chrome = await launchChromium();
    page = await chrome.context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    csp = watchCsp(page);
    origin = server.url.replace('127.0.0.1', 'localhost');
    const person = await invitedPerson(server);
    org = person.organizationIds[0]!;
    await runImport(
      { command: server.cliContext(org), organizationId: org, catchUp: server.settle },
      { products: [{ key: 'course', name: 'course', display_name: 'Video course', plans: [{ name: 'once', display_name: 'Once', type: 'one_time', renew_interval: null, currency_code: 'EUR', charges: [{ amount: 4900 }] }] }] },
    );
    await server.settle();
    await page.goto(`${origin}/dashboard/invitation#token=${person.token}`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await h1('Home');
  }, 120_000);
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') await page.screenshot({ path: `test-results/coupons-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}.png`, fullPage: true }).catch(() => undefined);
  });
  afterAll(async () => {
    await chrome?.close();
    await server?.close({ remove: true });
  }, 120_000);

  it('creates a coupon from the form, refusing a bad one beside its field', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Coupons', exact: true }).click();
    await h1('Coupons');
    await page.getByText('No coupons yet').waitFor();
    await page.getByRole('link', { name: 'New coupon' }).first().click();
    await h1('New coupon');
    // No discount given: the server's message shows beside the field.
    await page.getByRole('button', { name: 'Create coupon' }).click();
    await expect.poll(() => page.locator('.field-invalid').count(), { timeout: 15_000 }).toBeGreaterThan(0);
    expect(await page.getByLabel('Percent off').getAttribute('aria-invalid')).toBe('true');
    await page.getByText('Give a percentage off or an amount off, not both.').waitFor();

    await page.getByLabel('Name (shown to buyers)').fill('Launch week');
    await page.getByLabel('Id (optional)').fill('LAUNCH');
    await page.getByLabel('Percent off').fill('20');
    await page.getByLabel('Redemptions in all (optional)').fill('100');
    await page.getByRole('checkbox', { name: /Video course/ }).check();
    await page.getByRole('checkbox', { name: /First purchase only/ }).check();
    await check('coupon-new');
    await page.getByRole('button', { name: 'Create coupon' }).click();
    await h1('Launch week');
    const terms = page.getByTestId('coupon-terms');
    await expect.poll(() => terms.textContent()).toContain('20% off');
    expect(await terms.textContent()).toContain('0 / 100');
    expect(await terms.textContent()).toContain('First purchase only');
    await expect.poll(() => terms.textContent()).toContain('Video course');
  });

  it('gives the coupon codes, turns one off and on, and counts a redemption in the list', async () => {
    await page.getByLabel('Code', { exact: true }).fill('launch20');
    await page.getByRole('button', { name: 'Create code' }).click();
    await page.getByText('Code launch20 created.').waitFor();
    const rows = page.getByRole('table', { name: 'Promotion codes' }).locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(1);
    // The same code in another case is the same code: refused beside the field.
    await page.getByLabel('Code', { exact: true }).fill('LAUNCH20');
    await page.getByRole('button', { name: 'Create code' }).click();
    await page.getByText('The code LAUNCH20 is already in use.').waitFor();
    expect(await page.getByLabel('Code', { exact: true }).getAttribute('aria-invalid')).toBe('true');

    await page.getByRole('button', { name: 'Deactivate launch20' }).click();
    // Exact: a name is otherwise matched as a substring, and "Deactivate launch20" holds it.
    await page.getByRole('button', { name: 'Activate launch20', exact: true }).waitFor();
    expect(await rows.first().textContent()).toContain('Inactive');
    await check('coupon-page');
    await page.getByRole('button', { name: 'Activate launch20', exact: true }).click();
    await page.getByRole('button', { name: 'Deactivate launch20' }).waitFor();

    // A purchase that used it, as checkout records one.
    const ctx = server.cliContext(org);
    const now = ctx.metadata.occurred_at;
    const product = (await server.services.store.readAll({ after: null, limit: 1000, streamPrefixes: ['coupon-'] })).find((e) => e.type === 'CouponCreated')!;
    const productId = (product.data as { applies_to: { products: string[] } }).applies_to.products[0]!;
    const discount = await resolveDiscountCode(ctx, { organizationId: org, code: 'Launch20', currency: 'eur', lines: [{ product_id: productId, amount: 4900 }], customerId: null, customerEmail: 'new@example.com', now });
    await reserveRedemption(ctx, { organizationId: org, discount, key: 'cs_test', customerId: null, now });
    await confirmRedemption(ctx, { organizationId: org, discount, key: 'cs_test', invoiceId: 'in_test', customerId: null, amountDiscount: 980, currency: 'eur', now });
    await server.settle();

    await page.getByRole('link', { name: '← Coupons' }).click();
    await h1('Coupons');
    await expect.poll(() => page.getByTestId('times-redeemed').first().textContent(), { timeout: 15_000 }).toBe('1 / 100');
    await check('coupons');
    expect(csp).toEqual([]);
  });

  it('deletes a coupon in two steps', async () => {
    await page.getByRole('link', { name: /Launch week/ }).click();
    await h1('Launch week');
    await page.getByRole('button', { name: 'Delete coupon LAUNCH' }).click();
    await page.getByRole('button', { name: /Yes, delete/ }).click();
    await h1('Coupons');
    await page.getByText('No coupons yet').waitFor();
  });
});
