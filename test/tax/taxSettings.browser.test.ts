import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { organizationDecider, organizationStream } from '../../modules/identity/index.ts';
import { loadTax } from '../../modules/tax/index.ts';
import { handleCommand } from '../../platform/es/index.ts';
import { runImport } from '../../app/import/importFile.ts';
import { CATALOG_PLANS, type PlanDoc } from '../../modules/catalog/catalogProjection.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { launchChromium } from '../sdk/sdkFixtures.ts';
import { invitedPerson, seriousAxeViolations, watchCsp } from '../dashboard/dashboardFixtures.ts';

/** Settings → Tax in a real Chromium: an owner turns collection on, loads the starter table, adds and archives rates. */
describe('the Tax settings page', { timeout: 120_000 }, () => {
  let server: TestServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let origin: string;
  let organizationId: string;
  let csp: string[];
  let productKey: string;
  const shots = process.env.DASHBOARD_SCREENSHOTS;
  const shot = async (name: string) => {
    if (!shots) return;
    mkdirSync(shots, { recursive: true });
    await page.screenshot({ path: `${shots}/${name}.png`, fullPage: true });
  };
  const tax = () => loadTax(server.services.store, organizationId);

  beforeAll(async () => {
    server = await startTestServer();
    const person = await invitedPerson(server, { organizations: [{ name: 'Taxed Goods' }] });
    organizationId = person.organizationIds[0]!;
    await handleCommand(server.cliContext(organizationId), organizationStream(organizationId), organizationDecider, {
      type: 'UpdateOrganization',
      name: 'Taxed Goods',
      timezone: 'UTC',
      address: { line1: 'Hauptstraße 1', line2: null, postal_code: '10115', city: 'Berlin', region: null, country: 'DE' },
      vat_number: 'DE123456789',
      now: 1,
    });
    const imported = await runImport(
      { command: server.cliContext(organizationId), organizationId, catchUp: server.settle },
      { products: [{ key: 'ebook', display_name: 'E-book', plans: [{ name: 'once', display_name: 'E-book', type: 'one_time', currency_code: 'EUR', charges: [{ amount: 1200 }] }] }] },
    );
    productKey = (imported.sections.products as Array<{ id: string }>)[0]!.id;
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

  it('turns collection on, loads the EU rates once, adds a postal-code rate, refuses a twin, archives a rate', async () => {
    await page.goto(`${origin}/dashboard/settings`);
    await page.getByRole('link', { name: 'Tax', exact: true }).click();
    const settings = page.getByRole('region', { name: 'Tax', exact: true });
    await settings.getByText('DE123456789').waitFor();
    await settings.getByText('Not collecting').waitFor();
    await page.getByText('No rates yet').waitFor();
    await shot('tax-empty');

    await page.getByLabel('Collect tax').selectOption('on');
    await settings.getByText('Collecting', { exact: true }).waitFor();
    await page.getByLabel('Prices without a tax behaviour').selectOption('inclusive');
    await expect.poll(async () => (await tax()).settings).toEqual({ enabled: true, default_tax_behavior: 'inclusive' });

    await page.getByText(/standard rates are a starting point as of 2025-08-01/).waitFor();
    await page.getByRole('button', { name: 'Load EU standard rates' }).click();
    await page.getByText('27 rates added.').waitFor();
    const rates = page.getByRole('table', { name: 'Tax rates' });
    await rates.getByRole('row', { name: /^HU VAT 27%/ }).waitFor();
    await page.getByRole('button', { name: 'Load EU standard rates' }).click();
    await page.getByText('Every EU country already has a rate: nothing added.').waitFor();
    expect((await tax()).rates).toHaveLength(27);

    const form = page.getByRole('form', { name: 'Add a tax rate' });
    await form.getByLabel('Country').fill('FR');
    await form.getByLabel('Rate (%)').fill('13.12345');
    await form.getByRole('button', { name: 'Add rate' }).click();
    await form.getByText('The percentage may have at most four decimals.').waitFor();
    expect(await form.getByLabel('Rate (%)').getAttribute('aria-invalid')).toBe('true');
    await form.getByLabel('Rate (%)').fill('13');
    await form.getByLabel('Postal codes starting with (optional)').fill('20');
    await form.getByLabel('Description (optional)').fill('Corsica');
    await form.getByRole('button', { name: 'Add rate' }).click();
    await form.getByText('VAT 13% for FR · postal codes 20… added.').waitFor();
    await rates.getByRole('row', { name: /FR · postal codes 20… VAT 13%/ }).waitFor();

    await form.getByLabel('Country').fill('de');
    await form.getByLabel('Rate (%)').fill('7');
    await form.getByRole('button', { name: 'Add rate' }).click();
    await form.getByText(/already applies to DE; archive it first/).waitFor();
    await shot('tax-rates');

    const germany = rates.getByRole('row', { name: /^DE VAT 19%/ });
    await germany.getByRole('button', { name: /^Archive/ }).click();
    await germany.getByRole('button', { name: /^Yes, archive/ }).click();
    await rates.getByRole('row', { name: /^DE VAT 19% .*Archived/ }).waitFor();
    expect((await tax()).rates.filter((r) => r.country === 'DE').map((r) => r.active)).toEqual([false]);

    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(csp).toEqual([]);
  });


  it("sets a plan's tax behaviour in the product form", async () => {
    const plan = async () => {
      await server.settle();
      return (await server.services.readStore.find<PlanDoc>(CATALOG_PLANS, { filter: { product_route_key: productKey } }))[0]!;
    };
    expect((await plan()).tax_behavior).toBeUndefined();
    await page.goto(`${origin}/dashboard/catalog/${productKey}`);
    const select = page.getByLabel('Tax', { exact: true });
    expect(await select.inputValue()).toBe('unspecified');
    await select.selectOption('inclusive');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(async () => (await plan()).tax_behavior).toBe('inclusive');
    await page.reload();
    expect(await page.getByLabel('Tax', { exact: true }).inputValue()).toBe('inclusive');
    await shot('product-tax');
  });
});
