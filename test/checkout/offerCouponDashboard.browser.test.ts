import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../app/import/importFile.ts';
import { createCoupon } from '../../modules/discounts/discountCommands.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { launchChromium } from '../sdk/sdkFixtures.ts';
import { invitedPerson, seriousAxeViolations, watchCsp } from '../dashboard/dashboardFixtures.ts';

/* The dashboard's offer form attaches a coupon to an offer. Real Chromium, real server. */
describe("an offer's coupon in the dashboard", { timeout: 120_000 }, () => {
  let server: TestServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let origin: string;
  let csp: string[];

  const manage = (path: string) => page.evaluate((p) => fetch(p).then((r) => r.json()), path) as Promise<Record<string, unknown>>;

  beforeAll(async () => {
    server = await startTestServer();
    const person = await invitedPerson(server, { organizations: [{ name: 'Coupon Goods' }] });
    const organizationId = person.organizationIds[0]!;
    await createCoupon(server.cliContext(organizationId), { organizationId, id: 'WELCOME', percent_off: 15, duration: 'once' });
    await runImport(
      { command: server.cliContext(organizationId), organizationId, catchUp: server.settle },
      {
        products: [{ key: 'guide', display_name: 'Guide', plans: [{ name: 'once', display_name: 'Once', type: 'one_time', currency_code: 'EUR', charges: [{ amount: 2000 }] }] }],
        offers: [{ slug: 'guide', name: 'Guide', product: 'guide', plan: 'once', theme: { primary_color: '#335577' }, pages: [{ id: 'pay', type: 'checkout', title: 'Guide' }], published: true }],
      },
    );
    await server.settle();
    chrome = await launchChromium();
    page = await chrome.context.newPage();
    csp = watchCsp(page);
    origin = server.url.replace('127.0.0.1', 'localhost');
    await page.goto(`${origin}/dashboard/invitation#token=${person.token}`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
  });
  afterAll(async () => {
    await chrome?.close();
    await server?.close({ remove: true });
  });

  it('attaches a coupon, says so when it is unknown, and removes it when cleared', async () => {
    await page.goto(`${origin}/dashboard/offers/guide`);
    const coupon = page.getByLabel('Coupon');
    await coupon.waitFor();
    expect(await coupon.inputValue()).toBe('');

    await coupon.fill('NOPE');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('No coupon NOPE in this organization.').waitFor();

    await coupon.fill('WELCOME');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Offer saved.').waitFor();
    expect(await manage('/manage/api/offers/guide')).toMatchObject({ coupon: 'WELCOME' });
    await page.reload();
    await page.getByLabel('Coupon').waitFor();
    expect(await page.getByLabel('Coupon').inputValue()).toBe('WELCOME');

    await page.getByLabel('Coupon').fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Offer saved.').waitFor();
    expect(await manage('/manage/api/offers/guide')).toMatchObject({ coupon: null });
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(csp).toEqual([]);
  });
});
