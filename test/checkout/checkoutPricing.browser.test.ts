import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoupon, createPromotionCode } from '../../modules/discounts/discountCommands.ts';
import { organizationDecider, organizationStream } from '../../modules/identity/index.ts';
import { loadStarterRates, updateTaxRate, updateTaxSettings } from '../../modules/tax/index.ts';
import { handleCommand } from '../../platform/es/index.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { launchChromium, openPage } from '../sdk/sdkFixtures.ts';
import { makeOffer } from './checkoutFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/*
 * The hosted checkout page of a seller who collects VAT, in Chromium: the buyer types a wrong code
 * (told so at the field), a good one, chooses a country, and sees the subtotal, the discount with
 * its code, the VAT and the total before paying exactly that. Screenshots go to SCREENSHOT_DIR.
 */
describe('discount code and tax on the hosted checkout page', { timeout: 120_000 }, () => {
  let server: TestServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let slug = '';
  const errors: string[] = [];
  const shots = process.env.SCREENSHOT_DIR;

  beforeAll(async () => {
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000' } });
    const org = await server.identity('Berlin Books');
    const ctx = server.cliContext(org.organizationId);
    await handleCommand(ctx, organizationStream(org.organizationId), organizationDecider, {
      type: 'UpdateOrganization',
      name: 'Berlin Books',
      timezone: 'UTC',
      address: { line1: 'Street 1', line2: null, postal_code: '10115', city: 'Berlin', region: null, country: 'DE' },
      vat_number: 'DE123456789',
      now: ctx.metadata.occurred_at,
    });
    await updateTaxSettings(ctx, { organizationId: org.organizationId, enabled: true, default_tax_behavior: 'exclusive' });
    const starter = await loadStarterRates(ctx, { organizationId: org.organizationId });
    // The page names the tax as the seller's rate does.
    await updateTaxRate(ctx, { organizationId: org.organizationId, id: starter.created.find((r) => r.country === 'DE')!.id, display_name: 'MwSt' });
    const { id } = await createCoupon(ctx, { organizationId: org.organizationId, name: 'Launch', percent_off: 20, duration: 'once' });
    await createPromotionCode(ctx, { organizationId: org.organizationId, coupon: id, code: 'LAUNCH20' });
    slug = (await makeOffer(server, org.organizationId)).slug;
    chrome = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await chrome?.close();
    await server?.close({ remove: true });
  });

  const ready = () => !(document.getElementById('co-pay') as HTMLButtonElement | null)?.disabled;
  const text = async (page: Page, selector: string) => ((await page.textContent(selector)) ?? '').replace(/\s+/g, ' ').trim();

  for (const viewport of [
    { name: 'phone', width: 390, height: 1100 },
    { name: 'desktop', width: 1280, height: 1100 },
  ]) {
    it(`applies a code, takes the country, shows the VAT and pays that total (${viewport.name})`, async () => {
      const page = await openPage(chrome.context, `${server.url}/checkout/${slug}?mode=test`, { errors, ready, viewport });
      try {
        // Wrong code: said at the field, the price stays.
        await page.fill('#co-discount', 'nope');
        await page.click('#co-discount-apply');
        await expect.poll(() => text(page, '#co-discount-error')).toBe('This code is not valid.');
        expect(await text(page, '#co-total')).toBe('€24.00');
        expect(await page.isHidden('#co-lines')).toBe(true);

        await page.fill('#co-discount', 'launch20');
        await page.press('#co-discount', 'Enter');
        await expect.poll(() => text(page, '#co-total')).toBe('€19.20');
        expect(await page.isHidden('#co-discount-error')).toBe(true);
        expect(await text(page, '#co-discount-label')).toBe('Discount (LAUNCH20)');
        expect(await text(page, '#co-discount-amount')).toBe('−€4.80');
        expect(await text(page, '#co-discount-ok')).toBe('LAUNCH20 applied: €4.80 off.');

        // Paying without a country: asked for at the field, nothing charged.
        await page.fill('#co-email', 'buyer@example.com');
        await page.fill('#co-number', '4242424242424242');
        await page.fill('#co-exp', '12 / 30');
        await page.fill('#co-cvc', '123');
        await page.click('#co-pay');
        expect(await text(page, '#co-country-error')).toBe('Choose your country.');

        await page.selectOption('#co-country', 'DE');
        // 1520 + 400 after the discount, 19% on each line: 289 + 76.
        await expect.poll(() => text(page, '#co-tax-label')).toBe('MwSt 19%');
        expect(await text(page, '#co-tax-amount')).toBe('€3.65');
        expect(await text(page, '#co-subtotal')).toBe('€24.00');
        await expect.poll(() => text(page, '#co-total')).toBe('€22.85');
        expect(await text(page, '#co-pay')).toContain('€22.85');
        if (shots) await page.screenshot({ path: `${shots}/checkout-pricing-${viewport.name}.png`, fullPage: true });

        // A business in Austria with a VAT number: reverse charge, no VAT.
        await page.check('#co-business');
        await page.fill('#co-business-name', 'Wien GmbH');
        await page.selectOption('#co-country', 'AT');
        await page.fill('#co-tax-id', 'ATU12345678');
        await page.press('#co-tax-id', 'Tab');
        await expect.poll(() => text(page, '#co-tax-label')).toBe('Reverse charge');
        await expect.poll(() => text(page, '#co-total')).toBe('€19.20');
        if (shots) await page.screenshot({ path: `${shots}/checkout-pricing-b2b-${viewport.name}.png`, fullPage: true });
        // A reload keeps the session, its code and what the buyer gave the tax.
        await page.reload();
        await page.waitForFunction(ready);
        await expect.poll(() => text(page, '#co-total')).toBe('€19.20');
        expect(await page.inputValue('#co-country')).toBe('AT');
        expect(await page.isChecked('#co-business')).toBe(true);
        expect(await page.inputValue('#co-tax-id')).toBe('ATU12345678');
        expect(await text(page, '#co-tax-label')).toBe('Reverse charge');
        await page.fill('#co-email', 'buyer@example.com');
        await page.fill('#co-number', '4242424242424242');
        await page.fill('#co-exp', '12 / 30');
        await page.fill('#co-cvc', '123');

        await page.click('#co-pay');
        await page.locator('#page-thank_you').waitFor({ state: 'visible', timeout: 30_000 });
        expect(await text(page, '#co-receipt')).toContain('€19.20 paid');
        const id = await page.evaluate(() => document.body.dataset.sessionId);
        const session = ((await (await server.fetch(`/api/checkout/sessions/${id}`)).json()) as Body).session;
        expect(session).toMatchObject({
          status: 'completed',
          total: 1920,
          invoice: { status: 'paid', total: 1920, tax: 0, customer_details: { business_name: 'Wien GmbH', tax_exempt: 'reverse' } },
          discounts: [{ promotion_code: { code: 'LAUNCH20' } }],
        });
        expect(errors).toEqual([]);
      } finally {
        await page.close();
      }
    });
  }
});
