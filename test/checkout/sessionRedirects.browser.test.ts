import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startReceiver } from '../helpers/receiver.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';
import { launchChromium, openPage } from '../sdk/sdkFixtures.ts';
import { json, makeOffer } from './checkoutFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/*
 * One flow's own success_url and cancel_url: the shop's server creates the session with them
 * (overriding the offer's), with its API key, and sends the buyer to the session's hosted page,
 * which in Chromium takes the buyer there, {CHECKOUT_SESSION_ID} filled in.
 */
describe('success_url and cancel_url of one session', { timeout: 120_000 }, () => {
  let server: TestServer;
  let shop: Awaited<ReturnType<typeof startReceiver>>;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let slug = '';
  let otherSlug = '';
  let apiKey = '';
  const errors: string[] = [];
  // Moved on only by the last test (a session past its expiry).
  const clock = manualClock();

  beforeAll(async () => {
    server = await startTestServer({ clock, env: { CHECKOUT_RATE_LIMIT: '10000' } });
    shop = await startReceiver((_call, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>Shop</title><p>Back at the shop</p>');
    });
    const org = await server.identity('Shop');
    apiKey = org.token;
    const offer = await makeOffer(server, org.organizationId, {
      content: {
        success_url: `${shop.url}/offer-thanks?s={CHECKOUT_SESSION_ID}`,
        cancel_url: `${shop.url}/offer-cart?s={CHECKOUT_SESSION_ID}`,
        allowed_redirect_origins: [shop.url],
      },
    });
    slug = offer.slug;
    otherSlug = (await makeOffer(server, org.organizationId, { slug: `other-${Date.now()}` })).slug;
    chrome = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await chrome?.close();
    await shop?.close();
    await server?.close({ remove: true });
  });

  const createSession = async (body: Record<string, unknown>) => {
    const created = await server.fetch('/api/checkout/sessions', { ...json({ offer: slug, ...body }), token: apiKey });
    return { status: created.status, body: (await created.json()) as Body };
  };
  const open = (url: string): Promise<Page> => openPage(chrome.context, url, { errors, ready: () => !(document.getElementById('co-pay') as HTMLButtonElement | null)?.disabled });

  it("pays on the session's own page and lands on the session's success_url, not the offer's", async () => {
    const created = await createSession({ success_url: `${shop.url}/order/{CHECKOUT_SESSION_ID}/done`, cancel_url: `${shop.url}/basket` });
    expect(created.status).toBe(201);
    const sessionId = created.body.session.id as string;
    expect(created.body.url).toBe(`${server.url}/checkout/${created.body.offer.id}?session=${sessionId}`);

    const page = await open(created.body.url as string);
    // The page opened the session it was given rather than creating another.
    expect(await page.evaluate(() => document.body.dataset.sessionId)).toBe(sessionId);
    await page.fill('#co-email', 'buyer@example.com');
    await page.fill('#co-number', '4242424242424242');
    await page.fill('#co-exp', '12 / 30');
    await page.fill('#co-cvc', '123');
    await page.click('#co-pay');
    await page.waitForURL(`${shop.url}/order/${sessionId}/done`, { timeout: 30_000 });
    expect(await page.textContent('p')).toBe('Back at the shop');
    const session = (await (await server.fetch(`/api/checkout/sessions/${sessionId}`)).json()) as Body;
    expect(session.session.status).toBe('completed');
    await page.close();
  });

  it("cancels to the session's cancel_url; a session that gives only one keeps the offer's other", async () => {
    const both = await createSession({ cancel_url: `${shop.url}/basket?s={CHECKOUT_SESSION_ID}` });
    const page = await open(both.body.url as string);
    const config = JSON.parse((await page.textContent('#co-config'))!) as Body;
    expect(config.successUrl).toBe(`${shop.url}/offer-thanks?s={CHECKOUT_SESSION_ID}`);
    await page.click('#co-cancel');
    await page.waitForURL(`${shop.url}/basket?s=${both.body.session.id}`, { timeout: 30_000 });
    await page.close();

    // Without either, the offer's stand.
    const plain = await createSession({});
    const plainPage = await open(plain.body.url as string);
    await plainPage.click('#co-cancel');
    await plainPage.waitForURL(`${shop.url}/offer-cart?s=${plain.body.session.id}`, { timeout: 30_000 });
    await plainPage.close();
  });

  it("takes a caller without the key (the shop's page) to a URL on the origin the offer allows, and refuses another origin", async () => {
    const created = await server.fetch('/api/checkout/sessions', json({ offer: slug, cancel_url: `${shop.url}/from-the-page?s={CHECKOUT_SESSION_ID}` }));
    expect(created.status).toBe(201);
    const body = (await created.json()) as Body;
    const page = await open(body.url as string);
    await page.click('#co-cancel');
    await page.waitForURL(`${shop.url}/from-the-page?s=${body.session.id}`, { timeout: 30_000 });
    await page.close();
    const elsewhere = await server.fetch('/api/checkout/sessions', json({ offer: slug, cancel_url: 'https://evil.example/cart' }));
    expect(elsewhere.status).toBe(422);
    expect(((await elsewhere.json()) as Body).code).toBe('redirect_url_not_allowed');
  });

  it('refuses a URL that is not http or https, as the offer does', async () => {
    const bad = await createSession({ success_url: 'javascript:alert(1)', cancel_url: '/relative' });
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors).sort()).toEqual(['cancel_url', 'success_url']);
  });

  it("answers a session link of another offer, an unknown session or a framed one as a bad link", async () => {
    const created = await createSession({});
    const sessionId = created.body.session.id as string;
    expect((await fetch(`${server.url}/checkout/${otherSlug}?session=${sessionId}`)).status).toBe(404);
    expect((await fetch(`${server.url}/checkout/${slug}?session=cs_doesnotexist`)).status).toBe(404);
    expect((await fetch(`${server.url}/checkout/${slug}?session=${sessionId}&frame=modal&nonce=${'n'.repeat(20)}&origin=${encodeURIComponent(shop.url)}`)).status).toBe(400);
    expect((await fetch(`${server.url}/checkout/${slug}?session=not-a-session`)).status).toBe(400);
  });

  it("an expired session's page says so and opens no other session", async () => {
    const created = await createSession({});
    clock.advance(25 * 3600 * 1000);
    const page = await chrome.context.newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(created.body.url as string);
    await page.waitForFunction(() => document.body.classList.contains('is-refused'), undefined, { timeout: 30_000 });
    expect(await page.textContent('#co-error')).toContain('This checkout has expired');
    expect(await page.evaluate(() => document.body.dataset.sessionId ?? null)).toBeNull();
    await page.close();
  });

  it('has no page errors', () => {
    expect(errors).toEqual([]);
  });
});
