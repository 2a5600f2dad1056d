import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createCoupon, createPromotionCode } from '../../modules/discounts/discountCommands.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { flowResult, launchChromium, openPage, seedOffer, startFlow, type Loose } from './sdkFixtures.ts';

/* The SDK's discount_code option and data-service-discount attribute, in Chromium, against the real routes. */

type Win = Window & { sdk: Loose; examples: { readyAt?: number }; flows: Record<string, Loose> };

let server: TestServer;
let chrome: Awaited<ReturnType<typeof launchChromium>>;
const errors: string[] = [];

beforeAll(async () => {
  chrome = await launchChromium();
  server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000' } });
  const org = await server.identity();
  await seedOffer(server, org.organizationId, 'pro-plan');
  const ctx = server.cliContext(org.organizationId);
  const { id } = await createCoupon(ctx, { organizationId: org.organizationId, percent_off: 25, duration: 'once' });
  await createPromotionCode(ctx, { organizationId: org.organizationId, coupon: id, code: 'FRIENDS' });
}, 60_000);

afterAll(async () => {
  await chrome?.close();
  await server?.close({ remove: true });
});

const openExample = (): Promise<Page> =>
  openPage(chrome.context, `${server.url}/examples/sdk?offer=pro-plan`, { errors, ready: () => (window as unknown as Win).examples?.readyAt });

const sessionOf = async (id: string) => ((await (await server.fetch(`/api/checkout/sessions/${id}`)).json()) as { session: Loose }).session;

describe('a discount code handed to the SDK', () => {
  test('present() with discount_code opens the checkout at the discounted price and pays it', async () => {
    const page = await openExample();
    await startFlow(page, 'f', `sdk.present('pro-plan', { mode: 'test', discount_code: 'friends' })`);
    const frame = page.locator('.csdk-root iframe').contentFrame();
    await frame.locator('#co-pay:not([disabled])').waitFor();
    // €49.00 less 25%.
    expect(await frame.locator('#co-total').textContent()).toBe('€36.75');
    expect(await frame.locator('#co-discount-label').textContent()).toBe('Discount (FRIENDS)');
    await frame.locator('#co-email').fill('buyer@example.com');
    await frame.locator('#co-number').fill('4242424242424242');
    await frame.locator('#co-exp').fill('12 / 30');
    await frame.locator('#co-cvc').fill('123');
    await frame.locator('#co-pay').click();
    const r = await flowResult(page, 'f');
    expect(r.status).toBe('complete');
    expect(await sessionOf(r.session!.id)).toMatchObject({ status: 'completed', total: 3675, discounts: [{ promotion_code: { code: 'FRIENDS' } }] });
    await page.close();
  });

  test('data-service-discount on a button does the same; a code that cannot apply opens at full price and says why', async () => {
    const page = await openExample();
    await page.evaluate(() => {
      const box = document.createElement('div');
      box.innerHTML =
        '<button id="with-code" data-service-present="pro-plan" data-service-mode="test" data-service-discount="FRIENDS">Buy</button>' +
        '<button id="bad-code" data-service-present="pro-plan" data-service-mode="test" data-service-discount="EXPIRED1">Buy</button>';
      document.body.appendChild(box);
    });
    await page.click('#with-code');
    let frame = page.locator('.csdk-root iframe').contentFrame();
    await frame.locator('#co-pay:not([disabled])').waitFor();
    expect(await frame.locator('#co-total').textContent()).toBe('€36.75');
    const id = await frame.locator('body').getAttribute('data-session-id');
    expect(await sessionOf(id!)).toMatchObject({ total: 3675, discounts: [{ promotion_code: { code: 'FRIENDS' } }] });
    await page.evaluate(() => (window as unknown as Win).sdk.from('#with-code').close());
    await page.locator('.csdk-root').waitFor({ state: 'detached' });

    await page.click('#bad-code');
    frame = page.locator('.csdk-root iframe').contentFrame();
    await frame.locator('#co-pay:not([disabled])').waitFor();
    expect(await frame.locator('#co-total').textContent()).toBe('€49.00');
    expect(await frame.locator('#co-discount').inputValue()).toBe('EXPIRED1');
    expect(await frame.locator('#co-discount-error').textContent()).toBe('This code is not valid.');
    await page.evaluate(() => (window as unknown as Win).sdk.from('#bad-code').close());
    expect(errors).toEqual([]);
    await page.close();
  });
});
