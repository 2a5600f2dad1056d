import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { loadPortalSettings } from '../../modules/portal/portalSettings.ts';
import { runImport } from '../../app/import/importFile.ts';
import { loadProductByKey } from '../../modules/catalog/index.ts';
import { invitedPerson, seriousAxeViolations, watchCsp } from '../dashboard/dashboardFixtures.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { launchChromium } from '../sdk/sdkFixtures.ts';

describe('dashboard: the customer portal card in Settings', () => {
  let server: TestServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let organizationId: string;
  let csp: string[];
  let team: string;

  beforeAll(async () => {
    server = await startTestServer();
    chrome = await launchChromium();
    page = await chrome.context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    csp = watchCsp(page);
    const person = await invitedPerson(server);
    organizationId = person.organizationIds[0]!;
    const plan = (name: string, amount: number) => ({ name, display_name: name, renew_interval: 'P1M', currency_code: 'EUR', charges: [{ amount }] });
    await runImport(
      { command: server.cliContext(organizationId), organizationId, catchUp: server.settle },
      { products: [{ key: 'starter', name: 'Starter', plans: [plan('starter', 900)] }, { key: 'team', name: 'Team', plans: [plan('team', 4900)] }] },
    );
    team = (await loadProductByKey(server.cliContext(organizationId), organizationId, 'team'))!.routeKey;
    const origin = server.url.replace('127.0.0.1', 'localhost');
    await page.goto(`${origin}/dashboard/invitation#token=${person.token}`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor({ timeout: 30_000 });
    await page.goto(`${origin}/dashboard/settings`);
  }, 120_000);
  afterAll(async () => {
    await chrome?.close();
    await server?.close({ remove: true });
  }, 120_000);

  it("lets an owner allow plan switches, and names the portal's address", async () => {
    const card = page.getByRole('region', { name: 'Customer portal' });
    await card.locator('legend', { hasText: 'Buyers may' }).waitFor({ timeout: 30_000 });
    expect(await card.textContent()).toContain(`/portal/${organizationId}`);
    const switching = card.getByLabel('Switch to another plan of the same product');
    expect(await switching.isChecked()).toBe(false);
    expect(await card.getByLabel('Cancel a subscription at the end of its period, and undo it').isChecked()).toBe(true);
    expect(await seriousAxeViolations(page)).toEqual([]);
    // The products a buyer may move to besides their own are offered once switches are on.
    expect(await card.getByText('Or to a plan of these products').count()).toBe(0);
    await switching.check();
    await card.getByLabel('Team', { exact: true }).check();
    expect(await card.getByLabel('Starter', { exact: true }).isChecked()).toBe(false);
    expect(await seriousAxeViolations(page)).toEqual([]);
    await card.getByRole('button', { name: 'Save' }).click();
    await card.getByText('Saved.').waitFor();
    expect(await loadPortalSettings(server.services.store, organizationId)).toEqual({
      magic_link: true,
      subscription_cancel: true,
      payment_method_update: true,
      subscription_update: true,
      subscription_update_products: [team],
    });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    expect(csp).toEqual([]);
  });
});
