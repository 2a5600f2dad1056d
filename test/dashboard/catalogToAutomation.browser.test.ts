import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { promisify } from 'node:util';
import type { BrowserContext, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../sdk/sdkFixtures.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { invitedPerson, seriousAxeViolations, watchCsp } from './dashboardFixtures.ts';

const run = promisify(execFile);

/**
 * The Catalog, Offers, Promos and Automation pages in a real Chromium against a real server: the
 * issue's path from a product to a paid checkout, and from a sequence to a workflow's step
 * results, with a real HTTP client hitting the catch URL and a loopback receiver taking the call.
 * DASHBOARD_SCREENSHOTS=<dir> also writes each page at 1280 and 390 px wide (docs/dashboard/).
 */
describe('dashboard pages: catalog, offers, promos, automation', () => {
  let server: TestServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let context: BrowserContext;
  let page: Page;
  let origin: string;
  let csp: string[];
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const shots = process.env.DASHBOARD_SCREENSHOTS;

  /** No serious or critical axe violation; and, when asked, the page at desktop and phone width. */
  const check = async (name: string, options: { screenshot?: boolean } = {}) => {
    await page.waitForLoadState('networkidle').catch(() => undefined);
    expect(await seriousAxeViolations(page), name).toEqual([]);
    const take = shots && options.screenshot !== false;
    if (take) {
      mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: `${shots}/${name}-desktop.png`, fullPage: true });
    }
    // On a 390 px phone the page fits its width (no sideways scrolling) and stays accessible.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth), { timeout: 10_000 }).toBeLessThanOrEqual(390);
    expect(await seriousAxeViolations(page), `${name} on a phone`).toEqual([]);
    if (take) await page.screenshot({ path: `${shots}/${name}-phone.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
  };

  beforeAll(async () => {
    server = await startTestServer({ env: { WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_MAX_ATTEMPTS: '1' } });
    // /flaky answers 500 the first time it is called, then 200 (a failed step to re-run).
    let flaky = 0;
    receiver = await startReceiver((call, res) => {
      const fail = call.url === '/flaky' && flaky++ === 0;
      res.writeHead(fail ? 500 : 200, { 'content-type': 'application/json' });
      res.end(fail ? '{"error":"down"}' : '{"ok":true}');
    });
    chrome = await launchChromium();
    context = chrome.context;
    page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    csp = watchCsp(page);
    origin = server.url.replace('127.0.0.1', 'localhost');
    const person = await invitedPerson(server);
    await page.goto(`${origin}/dashboard/invitation#token=${person.token}`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor({ timeout: 30_000 });
  }, 120_000);
  // A failed step leaves a picture of the page behind (test-results/), to see what the person saw.
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') await page.screenshot({ path: `test-results/catalog-to-automation-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}.png`, fullPage: true }).catch(() => undefined);
  });
  afterAll(async () => {
    await chrome?.close();
    await receiver?.close();
    await server?.close({ remove: true });
  }, 120_000);

  it('creates a product with a plan (a bad price is answered beside its field), publishes it', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Catalog' }).click();
    await page.getByText('No products yet').waitFor();
    await check('catalog-empty');
    await page.getByRole('link', { name: 'New product' }).first().click();
    await page.getByRole('heading', { name: 'New product', level: 1 }).waitFor();
    await page.getByLabel('Key', { exact: true }).fill('pro');
    await page.getByLabel('Name', { exact: true }).fill('Pro');
    await page.getByLabel('Description').fill('Everything in the box.');
    await page.getByLabel('Plan name').fill('monthly');
    await page.getByLabel('Display name').fill('Pro monthly');
    await page.getByLabel('Price', { exact: true }).fill('twelve');
    await page.getByRole('button', { name: 'Create product' }).click();
    // The server's 422 for plans.0.charges.0.amount shows beside the Price field.
    await expect.poll(() => page.getByLabel('Price', { exact: true }).getAttribute('aria-invalid'), { timeout: 15_000 }).toBe('true');
    expect(await page.locator('.field-invalid .field-error').count()).toBe(1);

    await page.getByLabel('Price', { exact: true }).fill('29.00');
    await page.getByRole('button', { name: 'Create product' }).click();
    await page.getByRole('heading', { name: 'Pro', level: 1 }).waitFor({ timeout: 15_000 });
    expect(new URL(page.url()).pathname).toMatch(/^\/dashboard\/catalog\/[A-Za-z0-9-]+$/);
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByText('Product published.').waitFor();
    expect(await page.locator('.page-description .badge').textContent()).toBe('Published');
    await page.getByRole('button', { name: 'Archive' }).click();
    await page.getByText('Product archived.').waitFor();
    expect(await page.locator('.page-description .badge').textContent()).toBe('Archived');
    await page.getByRole('button', { name: 'Restore' }).click();
    await page.getByText('Product restored.').waitFor();
    expect(await page.locator('.page-description .badge').textContent()).toBe('Published');
    await check('product');

    await page.getByRole('link', { name: '← Catalog' }).click();
    await page.getByRole('link', { name: 'Pro', exact: true }).waitFor();
    expect(await page.getByRole('cell', { name: /Pro monthly · €29\.00/ }).count()).toBe(1);
    await check('catalog');
  }, 120_000);

  it('makes an offer, sees its live preview follow the form, publishes it and pays on its checkout link', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Offers' }).click();
    await page.getByText('No offers yet').waitFor();
    await check('offers-empty');
    await page.getByRole('link', { name: 'New offer' }).first().click();
    await page.getByLabel('Name', { exact: true }).fill('Pro launch');
    await page.getByLabel('Slug').fill('pro-launch');
    await page.getByLabel('Heading').fill('Ship faster with Pro');
    // The preview is the hosted page itself, in preview mode, drawn from the form as it stands.
    const preview = page.frameLocator('iframe[title="Preview of the hosted checkout page"]');
    await preview.getByRole('heading', { name: 'Ship faster with Pro' }).waitFor({ timeout: 20_000 });
    expect(await preview.locator('#co-pay').isDisabled()).toBe(true);
    await page.getByLabel('Theme colour', { exact: true }).fill('#0f766e');
    await page.getByLabel('Heading').fill('Ship faster with Pro, today');
    await preview.getByRole('heading', { name: 'Ship faster with Pro, today' }).waitFor({ timeout: 20_000 });
    expect(await preview.locator('.co-badge').first().textContent()).toBe('Preview');

    await page.getByRole('button', { name: 'Create offer' }).click();
    await page.getByRole('heading', { name: 'Pro launch', level: 1 }).waitFor({ timeout: 15_000 });
    // The preview made no checkout session.
    const sessions = (await page.evaluate(async () => (await fetch('/manage/api/checkout/sessions')).json())) as { meta: { total: number } };
    expect(sessions.meta.total).toBe(0);
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.getByText('Offer published').waitFor();
    const link = page.locator('a.copy-value');
    expect(await link.textContent()).toBe(`${origin}/checkout/pro-launch`);
    expect(await page.locator('pre.copy-value').textContent()).toContain('data-service-present="pro-launch"');
    await check('offer');

    // The checkout link in a second page: pay with the test card.
    const buyer = await context.newPage();
    await buyer.goto(`${origin}/checkout/pro-launch`);
    await expect.poll(() => buyer.locator('#co-pay').isDisabled(), { timeout: 30_000 }).toBe(false);
    await buyer.fill('#co-email', 'buyer@example.com');
    await buyer.fill('#co-number', '4242424242424242');
    await buyer.fill('#co-exp', '12 / 30');
    await buyer.fill('#co-cvc', '123');
    await buyer.click('#co-pay');
    await buyer.locator('#page-thank_you').waitFor({ state: 'visible', timeout: 30_000 });
    await buyer.close();
    await expect
      .poll(async () => ((await page.evaluate(async () => (await fetch('/manage/api/checkout/sessions?status=completed')).json())) as { meta: { total: number } }).meta.total, { timeout: 15_000 })
      .toBe(1);

    await page.getByRole('link', { name: '← Offers' }).click();
    await page.getByRole('link', { name: 'Pro launch' }).waitFor();
    await check('offers');
  }, 120_000);

  it('creates a sequence and trigger, watches the waiting screen turn when curl hits the catch URL, chooses the sample, test-runs it', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Automation' }).click();
    await page.getByText('No sequences yet').waitFor();
    await check('automation-empty');
    await page.getByRole('link', { name: 'New sequence' }).first().click();
    await page.getByLabel('Name', { exact: true }).fill('Lead to CRM');
    await page.getByLabel('Key', { exact: true }).fill('lead-to-crm');
    await page.getByLabel('URL', { exact: true }).fill(`${receiver.url}/crm`);
    await page.getByLabel('Payload template (JSON)').fill('{"email":"{{webhook_payload.email}}","source":"dashboard"}');
    await page.getByRole('button', { name: 'Add header' }).click();
    await page.getByLabel('Header 1 name').fill('x team');
    await page.getByLabel('Header 1 value').fill('growth');
    // A secret not in the Standard Webhooks form is refused beside its field; the editor makes one.
    await page.getByLabel('Signing secret (optional)').fill('my-own-secret-0123456789');
    await page.getByRole('button', { name: 'Create sequence' }).click();
    await expect.poll(() => page.getByLabel('Signing secret (optional)').getAttribute('aria-invalid'), { timeout: 15_000 }).toBe('true');
    await page.getByRole('button', { name: 'Generate secret for step 1' }).click();
    const secret = await page.getByLabel('Signing secret (optional)').inputValue();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    // The server refuses the header name (a space); its message shows beside that header.
    await expect.poll(() => page.getByLabel('Header 1 value').getAttribute('aria-invalid'), { timeout: 15_000 }).toBe('true');
    await page.getByLabel('Header 1 name').fill('x-team');
    await page.getByRole('button', { name: 'Create sequence' }).click();
    await page.getByRole('heading', { name: 'Lead to CRM', level: 1 }).waitFor({ timeout: 15_000 });
    // The secret is write-only: the editor never gets it back.
    expect(await page.getByLabel('Signing secret (optional)').inputValue()).toBe('');
    expect(await page.getByText('This step signs its calls.').count()).toBe(1);
    await check('sequence', { screenshot: false });

    await page.getByRole('link', { name: 'Wait for a webhook' }).click();
    await page.getByRole('heading', { name: 'Waiting for the first webhook…' }).waitFor({ timeout: 15_000 });
    await check('trigger-waiting');
    const catchUrl = (await page.locator('code.copy-value').textContent())!;
    expect(catchUrl).toMatch(/^http:\/\/localhost:\d+\/hooks\/catch\//);

    // A real HTTP client, outside the browser, hits the catch URL.
    await run('curl', ['-sS', '-X', 'POST', catchUrl.replace('localhost', '127.0.0.1'), '-H', 'content-type: application/json', '-d', '{"email":"ada@example.com","ref":"A-1","plan":{"tier":"gold"}}']);
    await page.getByRole('heading', { name: 'Received requests' }).waitFor({ timeout: 20_000 });
    expect(await page.getByLabel('Payload of the request').textContent()).toContain('ada@example.com');
    await page.getByRole('button', { name: 'Use as sample' }).click();
    await page.getByText('Chosen as the sample').waitFor({ timeout: 15_000 });
    await check('trigger');

    const before = receiver.calls.length;
    await page.getByRole('button', { name: 'Test-run the sequence' }).click();
    await page.getByRole('heading', { name: /^Workflow #\d+ \(test run\)$/, level: 1 }).waitFor({ timeout: 15_000 });
    await page.locator('.page-description .badge', { hasText: 'Completed' }).waitFor({ timeout: 30_000 });
    expect(await page.locator('.step-succeeded').count()).toBe(1);
    expect(await page.getByLabel('Result of step 1').textContent()).toContain('200');
    await expect.poll(() => receiver.calls.length, { timeout: 10_000 }).toBeGreaterThan(before);
    const call = receiver.calls.at(-1)!;
    expect(JSON.parse(call.body)).toEqual({ email: 'ada@example.com', source: 'dashboard' });
    expect(call.headers['x-team']).toBe('growth');
    // A receiver verifies the call with the standardwebhooks package and the secret it was shown.
    const verify = (c: typeof call) => new Webhook(secret).verify(c.body, Object.fromEntries(Object.entries(c.headers).map(([k, v]) => [k, String(v)])));
    expect(verify(call)).toEqual({ email: 'ada@example.com', source: 'dashboard' });
    await check('workflow');

    // The sample's fields are offered as insertions in the action editor.
    await page.getByRole('link', { name: 'Lead to CRM' }).click();
    await page.getByRole('button', { name: 'webhook_payload.plan.tier' }).click();
    // Inserted by the click's state change, rendered after the event.
    await expect.poll(() => page.getByLabel('Payload template (JSON)').inputValue()).toContain('{{webhook_payload.plan.tier}}');
    await check('sequence');
    // Saved without typing the secret again: the step goes on signing with the same secret.
    await page.getByLabel('Payload template (JSON)').fill('{"email":"{{webhook_payload.email}}","source":"dashboard","tier":"{{webhook_payload.plan.tier}}"}');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Sequence saved.').waitFor({ timeout: 15_000 });
    await page.getByText('This step signs its calls.').waitFor();
    await page.getByRole('link', { name: 'Samples and test run' }).click();
    const calls = receiver.calls.length;
    await page.getByRole('button', { name: 'Test-run the sequence' }).click();
    await expect.poll(() => receiver.calls.length, { timeout: 30_000 }).toBeGreaterThan(calls);
    expect(verify(receiver.calls.at(-1)!)).toEqual({ email: 'ada@example.com', source: 'dashboard', tier: 'gold' });
    await page.getByRole('heading', { name: /^Workflow #\d+ \(test run\)$/, level: 1 }).waitFor({ timeout: 15_000 });
    await page.getByRole('link', { name: 'Lead to CRM' }).click();
    await page.getByText('This step signs its calls.').waitFor();

    await page.getByRole('link', { name: '← Automation' }).click();
    await page.getByRole('link', { name: /^#\d+ \(test\)$/ }).first().waitFor({ timeout: 15_000 });
    await check('automation');
  }, 120_000);

  it('re-runs a failed workflow from its failed step; rotates and disables a trigger', async () => {
    await page.getByRole('link', { name: 'New sequence' }).first().click();
    await page.getByLabel('Name', { exact: true }).fill('Flaky sync');
    await page.getByLabel('URL', { exact: true }).fill(`${receiver.url}/flaky`);
    // A new sequence with a key that is taken would update that sequence: refused beside the Key field.
    await page.getByLabel('Key', { exact: true }).fill('lead-to-crm');
    await page.getByRole('button', { name: 'Create sequence' }).click();
    await expect.poll(() => page.getByLabel('Key', { exact: true }).getAttribute('aria-invalid'), { timeout: 15_000 }).toBe('true');
    await page.getByLabel('Key', { exact: true }).fill('flaky-sync');
    await page.getByRole('button', { name: 'Create sequence' }).click();
    await page.getByRole('heading', { name: 'Flaky sync', level: 1 }).waitFor({ timeout: 15_000 });
    const catchUrl = (await page.locator('code.catch-url').textContent())!.replace('localhost', '127.0.0.1');
    await run('curl', ['-sS', '-X', 'POST', catchUrl, '-H', 'content-type: application/json', '-d', '{"email":"bo@example.com"}']);

    await page.getByRole('link', { name: '← Automation' }).click();
    await page.getByLabel('Status', { exact: true }).selectOption('failed');
    await page.getByRole('link', { name: /^#\d+$/ }).first().click({ timeout: 30_000 }).catch(async () => {
      // The list was read before the workflow failed: read it again.
      await page.reload();
      await page.getByRole('link', { name: /^#\d+$/ }).first().click({ timeout: 30_000 });
    });
    await page.locator('.page-description .badge', { hasText: 'Failed' }).waitFor({ timeout: 30_000 });
    expect(await page.getByLabel('Result of step 1').textContent()).toContain('500');
    await check('workflow-failed', { screenshot: false });
    await page.getByRole('button', { name: 'Re-run from the failed step' }).click();
    await page.locator('.page-description .badge', { hasText: 'Completed' }).waitFor({ timeout: 30_000 });
    expect(await page.locator('.step-succeeded').count()).toBe(1);

    // Rotate: a new catch URL, and the old one stops working at once; disable.
    await page.getByRole('link', { name: 'Flaky sync' }).click();
    await page.getByRole('link', { name: 'Wait for a webhook' }).click();
    await page.getByRole('heading', { name: 'Received requests' }).waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: 'Rotate URL' }).click();
    await page.getByText('New catch URL').waitFor();
    await expect.poll(async () => (await page.locator('code.copy-value').textContent())!.replace('localhost', '127.0.0.1'), { timeout: 15_000 }).not.toBe(catchUrl);
    const { stdout } = await run('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code}', '-X', 'POST', catchUrl, '-d', '{}']);
    expect(stdout).toBe('404');
    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByText('Trigger disabled').waitFor();
    await page.locator('.page-description .badge', { hasText: 'Disabled' }).waitFor({ timeout: 15_000 });
  }, 120_000);

  it('creates a promo with a tier and a countdown; its participants list says how people join', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Promos' }).click();
    await page.getByText('No promos yet').waitFor();
    await check('promos-empty');
    await page.getByRole('link', { name: 'New promo' }).first().click();
    await page.getByLabel('Name', { exact: true }).fill('Launch week');
    await page.getByLabel('Slug').fill('launch-week');
    const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
    await page.getByLabel('Starts on').fill(day(-1));
    await page.getByLabel('Ends on').fill(day(1));
    await page.getByLabel('Tier name').fill('Early bird');
    await page.getByLabel('Percent off').fill('150');
    await page.getByRole('button', { name: 'Create promo' }).click();
    await expect.poll(() => page.getByLabel('Percent off').getAttribute('aria-invalid'), { timeout: 15_000 }).toBe('true');
    await page.getByLabel('Percent off').fill('20');
    await page.getByRole('button', { name: 'Create promo' }).click();
    await page.getByRole('heading', { name: 'Launch week', level: 1 }).waitFor({ timeout: 15_000 });
    await page.getByText('Ends in').waitFor();
    expect(await page.getByRole('timer').textContent()).toMatch(/^(1d )?\d\d:\d\d:\d\d$/);
    await page.getByText('Nobody has joined yet').waitFor();
    await check('promo');
    await page.getByRole('link', { name: '← Promos' }).click();
    await page.getByRole('link', { name: 'Launch week' }).waitFor();
    await check('promos');
    expect(csp).toEqual([]);
  }, 120_000);
});
