import type { FrameLocator, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { flowResult, launchChromium, openPage, startFlow } from '../sdk/sdkFixtures.ts';
import { digitalProduct, FILE_DESCRIPTION } from './deliveryFixtures.ts';

/*
 * The thank-you page after a payment, in a real Chromium against a real server with every
 * subscriber running: it waits for the grants, then shows the license key (with a Copy button
 * that copies it) and a download link whose bytes have the file's checksum; on the full page
 * and in the SDK's overlay. Under the page's strict CSP: any violation fails the test.
 */
let server: TestServer;
let chrome: Awaited<ReturnType<typeof launchChromium>>;
let seller: { organizationId: string; token: string };
let goods: Awaited<ReturnType<typeof digitalProduct>>;
const errors: string[] = [];

beforeAll(async () => {
  chrome = await launchChromium();
  server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000' } });
  seller = await server.identity('Darkroom Press');
  goods = await digitalProduct(server, seller, 'zine-browser');
  await chrome.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.url });
}, 60_000);

afterAll(async () => {
  await chrome?.close();
  await server?.close({ remove: true });
});

/** Collects script errors and CSP refusals (reported on the console) of a page and its frames. */
function watch(page: Page): void {
  page.on('console', (m) => {
    if (m.type() === 'error' && /Content Security Policy|Refused to/i.test(m.text())) errors.push(m.text());
  });
}

async function payIn(scope: Page | FrameLocator): Promise<void> {
  await scope.locator('#co-pay:not([disabled])').waitFor();
  await scope.locator('#co-email').fill('ada@example.com');
  await scope.locator('#co-number').fill('4242424242424242');
  await scope.locator('#co-exp').fill('12 / 30');
  await scope.locator('#co-cvc').fill('123');
  await scope.locator('#co-pay').click();
}

/** The delivery on the thank-you page: the key shown, and the link's bytes as the browser downloads them (SHA-256 in the page). */
async function checkDelivery(scope: Page | FrameLocator, page: Page): Promise<{ key: string; link: Locator }> {
  const benefits = scope.locator('#co-benefits');
  await benefits.waitFor({ state: 'visible', timeout: 30_000 });
  const key = scope.locator('.co-key');
  await key.waitFor({ state: 'visible', timeout: 30_000 });
  const text = (await key.textContent())!;
  expect(text).toMatch(/^DARK(-[0-9A-Z]{4})+$/);
  // The seller's words as text: no element made of them.
  expect(await scope.locator('.co-benefit-title', { hasText: FILE_DESCRIPTION }).count()).toBe(1);
  expect(await scope.locator('.co-benefits b').count()).toBe(0);
  const link = scope.locator('a.co-download');
  expect(await link.textContent()).toBe(goods.file.filename);
  expect(await link.getAttribute('download')).toBe(goods.file.filename);
  const href = (await link.getAttribute('href'))!;
  expect(href).toMatch(/^\/downloads\/file_/);
  const digest = await page.evaluate(async (url) => {
    const answer = await fetch(url);
    const bytes = await answer.arrayBuffer();
    return [...new Uint8Array(await crypto.subtle.digest('SHA-256', bytes))].map((b) => b.toString(16).padStart(2, '0')).join('');
  }, new URL(href, server.url).toString());
  expect(digest).toBe(goods.file.sha256);
  return { key: text, link };
}

describe('the thank-you page delivers what was bought', { timeout: 120_000 }, () => {
  it('on the full page: the key with a Copy button that copies it, and a working download link', async () => {
    const page = await openPage(chrome.context, `${server.url}/checkout/zine-browser`, { errors, ready: () => !(document.getElementById('co-pay') as HTMLButtonElement | null)?.disabled });
    watch(page);
    try {
      await payIn(page);
      const { key } = await checkDelivery(page, page);
      await page.waitForFunction(() => document.body.dataset.benefits === 'ready');
      await page.locator('.co-copy').click();
      await expect.poll(() => page.locator('.co-copy').textContent()).toBe('Copied');
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);
      await page.screenshot({ path: 'test-results/thank-you-delivery.png', fullPage: true });
      // A reload shows the purchase and its delivery again.
      await page.reload();
      expect((await checkDelivery(page, page)).key).toBe(key);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it("in the SDK's overlay: the same delivery inside the frame", async () => {
    const page = await openPage(chrome.context, `${server.url}/examples/sdk?offer=zine-browser`, { errors, ready: () => (window as unknown as { examples?: { readyAt?: number } }).examples?.readyAt });
    watch(page);
    try {
      await startFlow(page, 'f', `sdk.present('zine-browser', { mode: 'test' })`);
      const frame = page.locator('.csdk-root iframe').contentFrame();
      await payIn(frame);
      expect((await flowResult(page, 'f')).status).toBe('complete');
      await checkDelivery(frame, page);
      await page.screenshot({ path: 'test-results/thank-you-delivery-overlay.png' });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
