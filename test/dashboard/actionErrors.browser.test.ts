import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveOffer } from '../../modules/checkout/offerCommands.ts';
import { makeOffer } from '../checkout/checkoutFixtures.ts';
import { launchChromium } from '../sdk/sdkFixtures.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { invitedPerson } from './dashboardFixtures.ts';

/**
 * A header action that fails (here Publish of an offer archived meanwhile from another tab or the
 * CLI) says so beside its button, in view, not under the form far below. The picture of the page
 * is left in test-results/ to look at.
 */
describe("dashboard: an action's error beside its button", () => {
  let server: TestServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let page: Page;
  let origin: string;
  let organizationId: string;

  beforeAll(async () => {
    server = await startTestServer();
    chrome = await launchChromium();
    page = await chrome.context.newPage();
    await page.setViewportSize({ width: 1280, height: 800 });
    origin = server.url.replace('127.0.0.1', 'localhost');
    const person = await invitedPerson(server);
    organizationId = person.organizationIds[0]!;
    await page.goto(`${origin}/dashboard/invitation#token=${person.token}`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('heading', { name: 'Home', level: 1 }).waitFor({ timeout: 30_000 });
  }, 120_000);
  afterAll(async () => {
    await chrome?.close();
    await server?.close({ remove: true });
  }, 120_000);

  it("shows Publish's failure next to Publish, within the window, and not under the form", async () => {
    const offer = await makeOffer(server, organizationId, { slug: 'beside-the-button', publish: false });
    await page.goto(`${origin}/dashboard/offers/${offer.slug}`);
    const publish = page.getByRole('button', { name: 'Publish', exact: true });
    await publish.waitFor({ timeout: 15_000 });
    // Archived behind the page's back: Publish now answers 409.
    await archiveOffer(server.cliContext(organizationId), offer.uuid);
    await publish.click();

    const message = page.getByRole('alert').filter({ hasText: 'An archived offer cannot be published again.' });
    await message.waitFor({ timeout: 15_000 });
    expect(await message.count()).toBe(1);
    const [button, alert] = await Promise.all([publish.boundingBox(), message.boundingBox()]);
    expect(button && alert).toBeTruthy();
    // Beside the button: on its line or just under it, and inside the window without scrolling.
    expect(Math.abs(alert!.y - button!.y)).toBeLessThan(80);
    expect(alert!.y + alert!.height).toBeLessThanOrEqual(800);
    await page.screenshot({ path: 'test-results/action-error-beside-button.png' });

    // The form's own errors stay under the form: a failed save is not shown beside Publish.
    await page.getByLabel('Name', { exact: true }).fill('');
    await page.getByRole('button', { name: /Save/ }).click();
    await expect.poll(() => page.getByLabel('Name', { exact: true }).getAttribute('aria-invalid'), { timeout: 15_000 }).toBe('true');
    expect(await page.locator('.btn-error').count()).toBe(0);
  }, 120_000);

  it("keeps a write's log position and sends it back on the reads that follow", async () => {
    const offer = await makeOffer(server, organizationId, { slug: 'position-kept', publish: false });
    await page.goto(`${origin}/dashboard/offers/${offer.slug}`);
    const publish = page.getByRole('button', { name: 'Publish', exact: true });
    await publish.waitFor({ timeout: 15_000 });
    const answered = page.waitForResponse((r) => r.url().endsWith(`/offers/${offer.slug}/publish`));
    await publish.click();
    const position = (await answered).headers()['commerce-position'];
    expect(position).toMatch(/^\d+$/);
    const read = page.waitForRequest((r) => r.method() === 'GET' && new URL(r.url()).pathname === '/manage/api/offers');
    await page.getByRole('link', { name: '← Offers' }).click();
    expect((await read).headers()['commerce-position']).toBe(position);
  }, 120_000);
});
