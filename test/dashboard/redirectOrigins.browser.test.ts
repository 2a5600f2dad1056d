import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../app/import/importFile.ts';
import { json } from '../checkout/checkoutFixtures.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { launchChromium } from '../sdk/sdkFixtures.ts';
import { invitedPerson, seriousAxeViolations, watchCsp } from './dashboardFixtures.ts';

/*
 * Issue 31, item 5, in the dashboard: an owner allows the origins a shop's page may send a
 * session's success_url and cancel_url on, in Settings (for every offer) and in an offer's
 * editor, in a real Chromium; the public session route follows what they saved.
 */
describe('allowed redirect origins in the dashboard', { timeout: 120_000 }, () => {
  let server: TestServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let origin: string;
  let csp: string[];
  const shots = process.env.DASHBOARD_SCREENSHOTS;

  const h1 = (name: string) => page.getByRole('heading', { name, level: 1 }).waitFor();
  const createSession = async (offer: string, successUrl: string) =>
    (await server.fetch('/api/checkout/sessions', json({ offer, success_url: successUrl }))).status;

  beforeAll(async () => {
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000' } });
    const person = await invitedPerson(server, { organizations: [{ name: 'Origin Goods' }] });
    const organizationId = person.organizationIds[0]!;
    const offer = (slug: string, extra: Record<string, unknown> = {}) => ({
      slug,
      name: slug,
      product: 'kit',
      plan: 'once',
      theme: { primary_color: '#335577' },
      pages: [{ id: 'pay', type: 'checkout', title: 'Kit', blocks: [{ type: 'price' }] }],
      published: true,
      ...extra,
    });
    await runImport(
      { command: server.cliContext(organizationId), organizationId, catchUp: server.settle },
      {
        products: [{ key: 'kit', display_name: 'Kit', plans: [{ name: 'once', display_name: 'Kit', type: 'one_time', invoice_interval: 'P1Y', currency_code: 'EUR', charges: [{ amount: 900 }] }] }],
        offers: [offer('origin-plan', { success_url: 'https://kept.example/thanks' }), offer('other-origin-plan')],
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

  it("sets the organization's origins in Settings, with a bad line's error beside the field", async () => {
    expect(await createSession('origin-plan', 'https://shop.example/thanks')).toBe(422);
    await page.goto(`${origin}/dashboard/settings`);
    await h1('Settings');
    const field = page.getByLabel('Allowed redirect origins');
    await field.waitFor();
    expect(await field.inputValue()).toBe('');
    await field.fill('HTTPS://Shop.Example:443/\nshop.example/checkout');
    await page.getByRole('region', { name: 'Organization' }).getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText(/^Line 2: /).waitFor();
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    expect(await createSession('origin-plan', 'https://shop.example/thanks')).toBe(422);
    if (shots) {
      mkdirSync(shots, { recursive: true });
      await page.getByRole('region', { name: 'Organization' }).screenshot({ path: `${shots}/settings-origins-error.png` });
    }

    await field.fill('HTTPS://Shop.Example:443/\n\nhttp://localhost:3000');
    await page.getByRole('region', { name: 'Organization' }).getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Saved.').waitFor();
    // Shown as stored: as the browser writes an origin.
    expect(await field.inputValue()).toBe('https://shop.example\nhttp://localhost:3000');
    expect(await seriousAxeViolations(page)).toEqual([]);
    if (shots) await page.getByRole('region', { name: 'Organization' }).screenshot({ path: `${shots}/settings-origins.png` });
    expect(await createSession('origin-plan', 'https://shop.example/thanks')).toBe(201);
    expect(await createSession('other-origin-plan', 'https://shop.example/thanks')).toBe(201);
    expect(await createSession('origin-plan', 'https://evil.example/thanks')).toBe(422);
  });

  it("sets an offer's own origins in its editor, keeping the offer's success_url", async () => {
    expect(await createSession('origin-plan', 'https://offer-shop.example/thanks')).toBe(422);
    await page.goto(`${origin}/dashboard/offers/origin-plan`);
    const field = page.getByLabel('Allowed redirect origins');
    await field.waitFor();
    await field.fill('https://offer-shop.example');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Offer saved.').waitFor();
    expect(await seriousAxeViolations(page)).toEqual([]);
    const saved = (await page.evaluate(() => fetch('/manage/api/offers/origin-plan').then((r) => r.json()))) as Record<string, unknown>;
    expect(saved).toMatchObject({ allowed_redirect_origins: ['https://offer-shop.example'], success_url: 'https://kept.example/thanks' });
    expect(await createSession('origin-plan', 'https://offer-shop.example/thanks')).toBe(201);
    // The offer's list is its own.
    expect(await createSession('other-origin-plan', 'https://offer-shop.example/thanks')).toBe(422);
    expect(csp).toEqual([]);
  });
});
