import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { upsertOffer } from '../../modules/checkout/offerCommands.ts';
import { ImportValidationError, runImport, validateImport } from '../../app/import/importFile.ts';
import { DomainError } from '../../platform/domain/domainError.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { launchChromium, openPage } from '../sdk/sdkFixtures.ts';
import { makeOffer, offerContent } from './checkoutFixtures.ts';

/*
 * The full-page hosted checkout in Chromium sends the buyer to the offer's success_url after
 * paying and to its cancel_url on cancel, with {CHECKOUT_SESSION_ID} filled in, as Stripe does.
 * The shop is a real HTTP server on loopback.
 */
describe('success_url and cancel_url of an offer', { timeout: 120_000 }, () => {
  let server: TestServer;
  let shop: Awaited<ReturnType<typeof startReceiver>>;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let slug = '';
  const errors: string[] = [];

  beforeAll(async () => {
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000' } });
    shop = await startReceiver((_call, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>Shop</title><p>Back at the shop</p>');
    });
    const org = await server.identity('Shop');
    const offer = await makeOffer(server, org.organizationId, {
      content: { success_url: `${shop.url}/thanks?session_id={CHECKOUT_SESSION_ID}`, cancel_url: `${shop.url}/cart?cancelled={CHECKOUT_SESSION_ID}` },
    });
    slug = offer.slug;
    chrome = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await chrome?.close();
    await shop?.close();
    await server?.close({ remove: true });
  });

  const checkout = (): Promise<Page> =>
    openPage(chrome.context, `${server.url}/checkout/${slug}?mode=test`, { errors, ready: () => !(document.getElementById('co-pay') as HTMLButtonElement | null)?.disabled });

  it('sends the buyer to success_url with the session id after paying', async () => {
    const page = await checkout();
    const sessionId = await page.evaluate(() => document.body.dataset.sessionId!);
    expect(sessionId).toBeTruthy();
    await page.fill('#co-email', 'buyer@example.com');
    await page.fill('#co-number', '4242424242424242');
    await page.fill('#co-exp', '12 / 30');
    await page.fill('#co-cvc', '123');
    await page.click('#co-pay');
    await page.waitForURL(`${shop.url}/thanks?session_id=${sessionId}`, { timeout: 30_000 });
    expect(await page.textContent('p')).toBe('Back at the shop');
    const session = (await (await server.fetch(`/api/checkout/sessions/${sessionId}`)).json()) as { session: { status: string } };
    expect(session.session.status).toBe('completed');
    await page.close();
  });

  it('sends the buyer to cancel_url with the session id on cancel', async () => {
    const page = await checkout();
    const sessionId = await page.evaluate(() => document.body.dataset.sessionId!);
    // In the link itself, not only on click: open in a new tab and copy link get it too.
    await expect.poll(() => page.getAttribute('#co-cancel', 'href')).toBe(`${shop.url}/cart?cancelled=${sessionId}`);
    await page.click('#co-cancel');
    await page.waitForURL(`${shop.url}/cart?cancelled=${sessionId}`, { timeout: 30_000 });
    await page.close();
  });

  it('leaves a framed checkout where it is: no cancel link, no redirect in its config', async () => {
    const page = await chrome.context.newPage();
    await page.goto(`${server.url}/checkout/${slug}?mode=test&frame=modal&nonce=${'n'.repeat(20)}&origin=${encodeURIComponent(shop.url)}`);
    expect(await page.locator('#co-cancel').count()).toBe(0);
    const config = JSON.parse((await page.textContent('#co-config'))!) as Record<string, unknown>;
    expect(config.successUrl).toBeUndefined();
    expect(config.cancelUrl).toBeUndefined();
    await page.close();
  });

  it('refuses a redirect URL that is not http or https', async () => {
    const org = await server.identity('Shop 2');
    const ctx = server.cliContext(org.organizationId);
    const bad = upsertOffer(ctx, { organizationId: org.organizationId, slug: 'bad-redirect', ...offerContent({ success_url: 'javascript:alert(1)' }) });
    await expect(bad).rejects.toBeInstanceOf(DomainError);
    await expect(bad).rejects.toMatchObject({ code: 'invalid_redirect_url', fields: { success_url: ['The success_url field must be an http or https URL.'] } });
  });

  it('come in through the import file, which refuses one that is not an http(s) URL', async () => {
    const org = await server.identity('Shop 3');
    const file = (offer: Record<string, unknown>) => ({
      products: [{ key: 'kit', display_name: 'Kit', plans: [{ name: 'once', display_name: 'Kit', type: 'one_time', invoice_interval: 'P1Y', currency_code: 'EUR', charges: [{ amount: 900 }] }] }],
      offers: [{ slug: 'kit-offer', name: 'Kit', product: 'kit', plan: 'once', theme: { primary_color: '#ff5500' }, pages: [{ id: 'pay', type: 'checkout', title: 'Kit', blocks: [] }], published: true, ...offer }],
    });
    expect(() => validateImport(file({ cancel_url: 'ftp://shop.example/cart' }))).toThrow(ImportValidationError);
    try {
      validateImport(file({ cancel_url: 'ftp://shop.example/cart' }));
    } catch (error) {
      expect((error as ImportValidationError).issues).toEqual([{ path: 'offers[0].cancel_url', message: 'Use an absolute http or https URL of at most 2048 characters.' }]);
    }
    const ctx = { command: server.cliContext(org.organizationId), organizationId: org.organizationId, catchUp: server.settle };
    await runImport(ctx, file({ success_url: 'https://shop.example/thanks/{CHECKOUT_SESSION_ID}' }));
    const page = await (await fetch(`${server.url}/checkout/kit-offer?mode=test`)).text();
    expect(page).toContain('"successUrl":"https://shop.example/thanks/{CHECKOUT_SESSION_ID}"');
    expect(page).not.toContain('id="co-cancel"');
  });

  it('has no page errors', () => {
    expect(errors).toEqual([]);
  });
});
