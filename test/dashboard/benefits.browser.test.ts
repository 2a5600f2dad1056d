import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../app/import/importFile.ts';
import { downloadUrl } from '../../modules/files/index.ts';
import { offerContent } from '../checkout/checkoutFixtures.ts';
import { launchChromium } from '../sdk/sdkFixtures.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { invitedPerson, paidSession, seriousAxeViolations, watchCsp } from './dashboardFixtures.ts';

/**
 * Benefits in the dashboard, in a real Chromium against a real server: a product's file benefit
 * (files uploaded through POST /files) and license key benefit, edited and deleted; a sale
 * through the public checkout routes grants them; the License keys page lists the buyer's key,
 * disables and enables it and shows its activations; the customer page shows the grants, the
 * downloads, and a revocation with its cause. DASHBOARD_SCREENSHOTS=<dir> also writes the pages
 * at 1280 and 390 px wide.
 */
describe('dashboard: benefits, license keys, grants', () => {
  let server: TestServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let origin: string;
  let csp: string[];
  let org: string;
  let productId: string;
  let customerId: string;
  let plainKey: string;
  const shots = process.env.DASHBOARD_SCREENSHOTS;
  // Bigger than one upload progress event, so the bar has something to show.
  const zine = Buffer.alloc(3 * 1024 * 1024, 'zine page ');

  const h1 = (name: string) => page.getByRole('heading', { name, level: 1 }).waitFor({ timeout: 30_000 });
  const benefits = () => page.getByRole('list', { name: 'Benefits of this product', exact: true });
  const api = async <T>(path: string): Promise<T> => {
    const response = await page.request.get(`${origin}/manage/api${path}`);
    expect(response.status(), path).toBe(200);
    return (await response.json()) as T;
  };

  /** No serious axe violation and no sideways scroll (of the page or a table), at 1280 and 390 px; screenshots when asked. */
  const check = async (name: string) => {
    await page.waitForLoadState('networkidle').catch(() => undefined);
    expect(await seriousAxeViolations(page), name).toEqual([]);
    if (shots) {
      mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: `${shots}/${name}-desktop.png`, fullPage: true });
    }
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth), { timeout: 10_000 }).toBeLessThanOrEqual(390);
    // Nor does a table of these pages need scrolling sideways: its telling columns fit.
    await expect.poll(() => page.locator('.table-wrap.more-right, .table-wrap.more-left').count(), { timeout: 10_000 }).toBe(0);
    expect(await seriousAxeViolations(page), `${name} on a phone`).toEqual([]);
    if (shots) await page.screenshot({ path: `${shots}/${name}-phone.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
  };

  beforeAll(async () => {
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000' } });
    chrome = await launchChromium();
    page = await chrome.context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    csp = watchCsp(page);
    origin = server.url.replace('127.0.0.1', 'localhost');
    const person = await invitedPerson(server);
    org = person.organizationIds[0]!;
    const content = offerContent();
    await runImport(
      { command: server.cliContext(org), organizationId: org, catchUp: server.settle },
      {
        products: [{ key: 'zine', name: 'Zine', plans: [{ name: 'once', display_name: 'Once', type: 'one_time', renew_interval: null, currency_code: 'EUR', charges: [{ amount: 900 }] }] }],
        offers: [{ slug: 'zine', name: 'Zine', product: 'zine', plan: 'once', theme: content.theme, pages: content.pages, published: true }],
      },
    );
    await server.settle();
    await page.goto(`${origin}/dashboard/invitation#token=${person.token}`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Set password and sign in', exact: true }).click();
    await h1('Home');
  }, 120_000);
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') await page.screenshot({ path: `test-results/benefits-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}.png`, fullPage: true }).catch(() => undefined);
  });
  afterAll(async () => {
    await chrome?.close();
    await server?.close({ remove: true });
  }, 120_000);

  it('adds a file benefit by uploading files, with their progress', async () => {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Catalog', exact: true }).click();
    await h1('Catalog');
    await page.getByRole('link', { name: 'Zine', exact: true }).click();
    await h1('Zine');
    productId = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!);
    await page.getByText('No benefits yet: buyers get a receipt only.').waitFor();

    await page.getByRole('button', { name: 'Add files', exact: true }).click();
    const form = page.getByRole('form', { name: 'New file benefit', exact: true });
    await form.getByLabel('Description').fill('The zine, PDF and EPUB');
    // A file the service refuses: its message shows on its line, and it can be removed.
    await form.getByLabel('Upload files').setInputFiles([{ name: 'empty.txt', mimeType: 'text/plain', buffer: Buffer.alloc(0) }]);
    await form.getByText('The file is empty.').waitFor({ timeout: 15_000 });
    await form.getByRole('button', { name: 'Remove empty.txt', exact: true }).click();
    // A file uploaded and then removed before the benefit is saved is deleted: nothing delivers it.
    await form.getByLabel('Upload files').setInputFiles([{ name: 'draft.txt', mimeType: 'text/plain', buffer: Buffer.from('first draft') }]);
    await expect.poll(() => form.getByText('Uploaded', { exact: true }).count(), { timeout: 15_000 }).toBe(1);
    const draft = (await api<{ data: { id: string; filename: string }[] }>('/files')).data.find((f) => f.filename === 'draft.txt')!;
    await form.getByRole('button', { name: 'Remove draft.txt', exact: true }).click();
    await expect.poll(async () => (await page.request.get(`${origin}/manage/api/files/${draft.id}`)).status(), { timeout: 15_000 }).toBe(404);

    // Uploads slowed to 1 MB/s, so the bar is seen part way.
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 1024 * 1024 });
    await form.getByLabel('Upload files').setInputFiles([
      { name: 'zine.pdf', mimeType: 'application/pdf', buffer: zine },
      { name: 'zine.epub', mimeType: 'application/epub+zip', buffer: Buffer.from('epub bytes') },
    ]);
    const bar = form.getByRole('progressbar', { name: 'Uploading zine.pdf', exact: true });
    await expect
      .poll(async () => Number((await bar.getAttribute('value').catch(() => null)) ?? 0), { timeout: 15_000, interval: 50 })
      .toBeGreaterThan(0);
    expect(Number(await bar.getAttribute('value').catch(() => String(zine.length)))).toBeLessThanOrEqual(zine.length);
    // The benefit waits for its files.
    expect(await form.getByRole('button', { name: 'Add benefit', exact: true }).isDisabled()).toBe(true);
    // Seen part way: the rest at full speed.
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await cdp.detach();
    const uploaded = form.getByRole('list', { name: 'Files of this benefit', exact: true }).getByText('Uploaded', { exact: true });
    await expect.poll(() => uploaded.count(), { timeout: 30_000 }).toBe(2);
    await check('benefit-file-form');
    await form.getByRole('button', { name: 'Add benefit', exact: true }).click();
    await page.getByText('Benefit “The zine, PDF and EPUB” added.').waitFor();
    await expect.poll(() => benefits().textContent()).toContain('zine.pdf');
    expect(await benefits().textContent()).toContain('zine.epub');

    // What the service holds: the files as uploaded, in order, on the product's benefit.
    const listed = await api<{ data: { type: string; properties: { files: string[] } }[] }>(`/products/${encodeURIComponent(productId)}/benefits`);
    expect(listed.data).toHaveLength(1);
    const files = await Promise.all(listed.data[0]!.properties.files.map((id) => api<{ filename: string; size: number }>(`/files/${id}`)));
    expect(files.map((f) => [f.filename, f.size])).toEqual([
      ['zine.pdf', zine.length],
      ['zine.epub', 10],
    ]);

    // Edited: its files are listed as uploaded, one more is added.
    await page.getByRole('button', { name: 'Edit The zine, PDF and EPUB', exact: true }).click();
    const edit = page.getByRole('form', { name: 'Edit file benefit', exact: true });
    const editing = edit.getByRole('list', { name: 'Files of this benefit', exact: true });
    expect(await editing.textContent()).toContain('zine.pdf');
    await edit.getByLabel('Upload files').setInputFiles([{ name: 'bonus.txt', mimeType: 'text/plain', buffer: Buffer.from('bonus page') }]);
    await expect.poll(() => editing.getByText('Uploaded', { exact: true }).count(), { timeout: 30_000 }).toBe(3);
    await edit.getByRole('button', { name: 'Save benefit', exact: true }).click();
    await page.getByText('Benefit “The zine, PDF and EPUB” saved.').waitFor();
    await expect.poll(() => benefits().textContent()).toContain('bonus.txt');
    const edited = await api<{ data: { properties: { files: string[] } }[] }>(`/products/${encodeURIComponent(productId)}/benefits`);
    expect(edited.data[0]!.properties.files.slice(0, 2)).toEqual(listed.data[0]!.properties.files);
    expect(edited.data[0]!.properties.files).toHaveLength(3);
  });

  it('adds a license key benefit, refusing a bad limit beside its field, and edits it', async () => {
    await page.getByRole('button', { name: 'Add license key', exact: true }).click();
    const form = page.getByRole('form', { name: 'New license key benefit', exact: true });
    await form.getByLabel('Description').fill('Pro license');
    await form.getByLabel('Prefix (optional)').fill('ZINE');
    await form.getByLabel('Activation limit').fill('two');
    await form.getByRole('button', { name: 'Add benefit', exact: true }).click();
    await expect.poll(() => form.getByLabel('Activation limit').getAttribute('aria-invalid'), { timeout: 15_000 }).toBe('true');
    // Nothing was added: the form stays open with what was typed.
    expect(await benefits().textContent()).not.toContain('Pro license');

    await form.getByLabel('Activation limit').fill('2');
    await form.getByLabel('Expiry').selectOption('days');
    await form.getByLabel('Days after the purchase').fill('365');
    await form.getByLabel('Key lasts').selectOption('perpetual');
    await check('benefit-license-form');
    await form.getByRole('button', { name: 'Add benefit', exact: true }).click();
    await page.getByText('Benefit “Pro license” added.').waitFor();
    await expect.poll(() => benefits().textContent()).toContain('Prefix ZINE · 2 activations · Expires 365 days after the purchase · Perpetual');

    await page.getByRole('button', { name: 'Edit Pro license', exact: true }).click();
    const edit = page.getByRole('form', { name: 'Edit license key benefit', exact: true });
    expect(await edit.getByLabel('Activation limit').inputValue()).toBe('2');
    await edit.getByLabel('Activation limit').fill('3');
    await edit.getByLabel('Expiry').selectOption('never');
    await edit.getByRole('button', { name: 'Save benefit', exact: true }).click();
    await page.getByText('Benefit “Pro license” saved.').waitFor();
    await expect.poll(() => benefits().textContent()).toContain('Prefix ZINE · 3 activations · Never expires · Perpetual');
    await check('product-benefits');
  });

  it('lists the key a sale issued, masked; disables and enables it; shows its activations', async () => {
    await paidSession(server, 'zine', { email: 'reader@example.com', name: 'Ada Reader' });
    await server.settle();
    // From the benefit on the product page to its keys: the list filtered by it.
    await page.getByRole('link', { name: 'Keys issued for Pro license', exact: true }).click();
    await h1('License keys');
    await expect.poll(() => page.getByLabel('Benefit').locator('option:checked').textContent()).toBe('Pro license');
    const rows = page.getByRole('table', { name: 'License keys', exact: true }).locator('tbody tr');
    // The key is issued by subscribers after the sale: ask again until it is there.
    await expect
      .poll(
        async () => {
          await page.reload();
          await h1('License keys');
          return rows.count();
        },
        { timeout: 30_000 },
      )
      .toBe(1);
    const masked = (await rows.first().locator('code.license-key').textContent())!;
    expect(masked).toMatch(/^ZINE-…-[0-9A-Z]{4}$/);
    expect(await rows.first().textContent()).toContain('Pro license');
    expect(await rows.first().textContent()).toContain('0 / 3');

    await page.getByRole('button', { name: `Disable ${masked}`, exact: true }).click();
    await page.getByRole('button', { name: `Enable ${masked}`, exact: true }).waitFor();
    expect(await rows.first().textContent()).toContain('Disabled');
    // Filtered by status: the disabled key, and none active.
    await page.getByLabel('Status').selectOption('active');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await page.getByText('No key matches these filters').waitFor();
    await page.getByLabel('Status').selectOption('disabled');
    await page.getByRole('button', { name: 'Filter', exact: true }).click();
    await expect.poll(() => rows.count()).toBe(1);
    await check('license-keys');
    await page.getByRole('button', { name: `Enable ${masked}`, exact: true }).click();
    await page.getByRole('button', { name: 'Clear', exact: true }).click();
    await page.getByRole('button', { name: `Disable ${masked}`, exact: true }).waitFor();
    expect(new URL(page.url()).search).toBe('');

    await rows.first().getByRole('link').first().click();
    await h1(masked);
    await page.getByRole('button', { name: 'Show key', exact: true }).click();
    plainKey = (await page.getByTestId('license-key-value').textContent())!;
    expect(plainKey).toMatch(/^ZINE(-[0-9A-Z]{4}){7}$/);
    expect(plainKey.endsWith(masked.slice(-4))).toBe(true);

    // The buyer's app activates it through the public License API.
    const activated = await fetch(`${server.url}/api/licenses/activate`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ key: plainKey, instance_name: 'Ada laptop' }) });
    expect(activated.status).toBe(200);
    await server.settle();
    await page.reload();
    await h1(masked);
    const instances = page.getByRole('table', { name: 'Activations', exact: true });
    await instances.getByText('Ada laptop').waitFor();
    expect(await page.getByTestId('license-key-details').textContent()).toContain('1 / 3');
    // Masked again after a reload: the key shows only when asked.
    expect(await page.getByTestId('license-key-value').textContent()).toBe(masked);
    await check('license-key');
    const buyer = page.getByTestId('license-key-details').getByRole('link', { name: 'reader@example.com', exact: true });
    customerId = decodeURIComponent((await buyer.getAttribute('href'))!.split('/').pop()!);
    expect(customerId).toMatch(/^cus_/);
  });

  it("shows the customer's grants and downloads, and a revocation with its cause", async () => {
    const listed = await api<{ data: { type: string; properties: { files: string[] } }[] }>(`/products/${encodeURIComponent(productId)}/benefits`);
    const pdf = listed.data.find((b) => b.type === 'file')!.properties.files[0]!;
    // The buyer downloads the PDF twice through their signed link.
    const link = `${server.url}${downloadUrl(server.services, { organizationId: org, fileId: pdf, customerId })}`;
    for (let i = 0; i < 2; i++) expect((await fetch(link)).status).toBe(200);
    await server.settle();

    await page.goto(`${origin}/dashboard/customers/${customerId}`);
    await h1('Ada Reader');
    const grants = page.getByRole('table', { name: 'Benefits granted to this customer', exact: true });
    await expect.poll(() => grants.locator('tbody tr').count(), { timeout: 15_000 }).toBe(2);
    expect(await grants.textContent()).toContain('The zine, PDF and EPUB');
    expect(await grants.textContent()).toContain('Pro license');
    expect(await grants.textContent()).not.toContain('Revoked');
    const downloads = page.getByTestId('customer-downloads');
    await expect.poll(() => downloads.textContent(), { timeout: 15_000 }).toContain('zine.pdf: downloaded 2 times');
    expect(await downloads.textContent()).toContain('zine.epub: not downloaded yet');
    expect(await downloads.textContent()).toContain('bonus.txt: not downloaded yet');
    await check('customer-benefits');

    // Deleting the file benefit (after a confirmation) revokes its grant.
    await page.goto(`${origin}/dashboard/catalog/${productId}`);
    await h1('Zine');
    await page.getByRole('button', { name: 'Delete The zine, PDF and EPUB', exact: true }).click();
    await page.getByRole('button', { name: 'Yes, delete: The zine, PDF and EPUB', exact: true }).click();
    await page.getByText('Benefit “The zine, PDF and EPUB” deleted; the buyers who had it lose it.').waitFor();
    await expect.poll(() => benefits().textContent()).not.toContain('zine.pdf');

    await expect
      .poll(
        async () => {
          await page.goto(`${origin}/dashboard/customers/${customerId}`);
          await h1('Ada Reader');
          await grants.locator('tbody tr').first().waitFor();
          return grants.textContent();
        },
        { timeout: 30_000 },
      )
      .toContain('The benefit was deleted');
    expect(await grants.textContent()).toContain('Revoked');
    await check('customer-benefits-revoked');
    expect(csp).toEqual([]);
  });
});
