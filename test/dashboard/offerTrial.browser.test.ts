import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../app/import/importFile.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { launchChromium } from '../sdk/sdkFixtures.ts';
import { invitedPerson, seriousAxeViolations, watchCsp } from './dashboardFixtures.ts';

/*
 * Issue 32 in the dashboard: the offer editor edits a recurring plan's free trial, and the
 * catalog editor keeps a plan's own invoice_interval (a yearly term billed monthly), which
 * subscriptions bill. Real Chromium, real server.
 */
describe('trials and invoice intervals in the dashboard', { timeout: 120_000 }, () => {
  let server: TestServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let origin: string;
  let csp: string[];

  const h1 = (name: string) => page.getByRole('heading', { name, level: 1 }).waitFor();
  const manage = (path: string) => page.evaluate((p) => fetch(p).then((r) => r.json()), path) as Promise<Record<string, unknown>>;

  beforeAll(async () => {
    server = await startTestServer();
    const person = await invitedPerson(server, { organizations: [{ name: 'Trial Goods' }] });
    const organizationId = person.organizationIds[0]!;
    const offer = (slug: string, plan: string, extra: Record<string, unknown> = {}) => ({
      slug,
      name: slug,
      product: 'club',
      plan,
      theme: { primary_color: '#335577' },
      pages: [{ id: 'pay', type: 'checkout', title: 'Club', blocks: [{ type: 'price' }] }],
      published: true,
      ...extra,
    });
    await runImport(
      { command: server.cliContext(organizationId), organizationId, catchUp: server.settle },
      {
        products: [
          {
            key: 'club',
            display_name: 'Club',
            plans: [
              { name: 'annual', display_name: 'Annual, billed monthly', renew_interval: 'P1Y', invoice_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 900 }] },
              { name: 'once', display_name: 'Once', type: 'one_time', currency_code: 'EUR', charges: [{ amount: 4900 }] },
            ],
          },
        ],
        offers: [offer('club-trial', 'annual', { trial_period_days: 14 }), offer('club-once', 'once')],
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
    await h1('Home');
  });
  afterAll(async () => {
    await chrome?.close();
    await server?.close({ remove: true });
  });

  it("edits an offer's trial, keeps it on a save that leaves it, and removes it when cleared", async () => {
    await page.goto(`${origin}/dashboard/offers/club-trial`);
    const trial = page.getByLabel('Free trial (days)');
    await trial.waitFor();
    expect(await trial.inputValue()).toBe('14');

    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Offer saved.').waitFor();
    expect(await manage('/manage/api/offers/club-trial')).toMatchObject({ trial_period_days: 14 });

    await trial.fill('30');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Offer saved.').waitFor();
    expect(await manage('/manage/api/offers/club-trial')).toMatchObject({ trial_period_days: 30 });

    await trial.fill('731');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('The trial_period_days field must not be greater than 730.').waitFor();
    expect(await manage('/manage/api/offers/club-trial')).toMatchObject({ trial_period_days: 30 });

    await trial.fill('');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Offer saved.').waitFor();
    expect(await manage('/manage/api/offers/club-trial')).toMatchObject({ trial_period_days: null });
    expect(await seriousAxeViolations(page)).toEqual([]);
    expect(csp).toEqual([]);
  });

  it('offers no trial field for a plan that does not recur', async () => {
    await page.goto(`${origin}/dashboard/offers/club-once`);
    await page.getByLabel('Allowed redirect origins').waitFor();
    expect(await page.getByLabel('Free trial (days)').count()).toBe(0);
  });

  it("keeps a plan's own invoice_interval when the product is saved", async () => {
    const products = (await manage('/manage/api/products')) as { data: Array<{ id: string }> };
    const product = products.data[0]!;
    await page.goto(`${origin}/dashboard/catalog/${product.id}`);
    await h1('Club');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Product saved.').waitFor();
    const saved = (await manage(`/manage/api/products/${product.id}`)) as { plans: Array<Record<string, unknown>> };
    expect(saved.plans.find((p) => p.name === 'annual')).toMatchObject({ renew_interval: 'P1Y', invoice_interval: 'P1M' });
  });
});
