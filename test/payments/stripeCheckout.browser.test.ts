import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStripe, stripeSecrets } from '../../modules/payments/stripeAccountCommands.ts';
import { startFakeStripe, type FakeStripe } from '../helpers/fakeStripe.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { flowResult, launchChromium, openPage, startFlow } from '../sdk/sdkFixtures.ts';
import { makeOffer, offerContent } from '../checkout/checkoutFixtures.ts';
import { runImport } from '../../app/import/importFile.ts';

/*
 * A live session paid end to end in Chromium: the hosted page loads the stand-in for Stripe.js
 * from its configured address (test/helpers/fakeStripe.ts: only Stripe(pk), elements({clientSecret}),
 * create('payment'), mount, confirmPayment and confirmSetup), whose Payment Element is a frame of that origin
 * sending the card to the stand-in API, and the server settles the outcome from the API with the
 * official stripe package.
 */
describe('a live checkout with Stripe in Chromium', { timeout: 120_000 }, () => {
  let stripe: FakeStripe;
  let server: TestServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let slug = '';
  let organizationId = '';
  const errors: string[] = [];
  const refused: string[] = [];
  /** Every request body the page sent to our server. */
  const sentToUs: string[] = [];

  beforeAll(async () => {
    chrome = await launchChromium();
    stripe = await startFakeStripe();
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000', ...stripe.env } });
    const org = await server.identity('Live shop');
    organizationId = org.organizationId;
    const account = stripe.account();
    await connectStripe(server.cliContext(org.organizationId), stripeSecrets(server.services), {
      organizationId: org.organizationId,
      secretKey: account.secretKey,
      publishableKey: account.publishableKey,
      webhookSecret: account.webhookSecret,
    });
    slug = (await makeOffer(server, org.organizationId)).slug;
  }, 90_000);

  afterAll(async () => {
    await chrome?.close();
    await server?.close({ remove: true });
    await stripe?.close();
  });

  it('mounts the Payment Element, shows a decline, then pays, with the card never sent to our server', async () => {
    const page = await chrome.context.newPage();
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => {
      if (/Content Security Policy|Refused to/.test(m.text())) refused.push(m.text());
    });
    page.on('request', (r) => {
      if (r.url().startsWith(server.url)) sentToUs.push(`${r.url()} ${r.postData() ?? ''}`);
    });
    await page.goto(`${server.url}/checkout/${slug}?mode=live`);
    await page.waitForFunction(() => !(document.getElementById('co-pay') as HTMLButtonElement | null)?.disabled, undefined, { timeout: 30_000 });
    expect(await page.textContent('#co-pay .co-pay-label')).toBe('Continue to payment');
    expect(await page.locator('#co-number').count()).toBe(0);
    const sessionId = await page.evaluate(() => document.body.dataset.sessionId!);

    await page.fill('#co-email', 'live@example.com');
    await page.fill('#co-name', 'Live Buyer');
    await page.click('#co-pay');
    const card = page.frameLocator('iframe[name="stripe-payment-element"]').locator('#cardnumber');
    await card.waitFor({ timeout: 30_000 });
    await expect.poll(() => page.textContent('#co-pay .co-pay-label'), { timeout: 15_000 }).toMatch(/^Pay now · /);

    await card.fill('4000000000000002');
    await page.click('#co-pay');
    await expect.poll(() => page.textContent('#co-error'), { timeout: 30_000 }).toBe('Your card was declined.');
    expect(((await (await server.fetch(`/api/checkout/sessions/${sessionId}`)).json()) as { session: { status: string } }).session.status).toBe('open');

    await card.fill('4242424242424242');
    await page.click('#co-pay');
    await page.locator('#page-thank_you').waitFor({ state: 'visible', timeout: 30_000 });
    expect(await page.textContent('#co-receipt')).toMatch(/paid with Visa •••• 4242/);
    const session = (await (await server.fetch(`/api/checkout/sessions/${sessionId}`)).json()) as { session: { status: string } };
    expect(session.session.status).toBe('completed');

    expect(sentToUs.some((s) => s.includes('/payment-intent/settle'))).toBe(true);
    expect(sentToUs.join('\n')).not.toMatch(/4242424242424242|4000000000000002/);
    const confirms = stripe.calls.filter((c) => c.path.endsWith('/confirm'));
    expect(confirms.map((c) => c.body['payment_method_data[card][number]'])).toEqual(['4000000000000002', '4242424242424242']);
    expect(confirms[0]!.body.return_url).toContain(`co_session=${sessionId}`);
    expect(refused).toEqual([]);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("pays through the SDK's frame: the Payment Element in the checkout frame, the flow resolving complete", async () => {
    const page = await openPage(chrome.context, `${server.url}/examples/sdk?offer=${slug}`, { errors, ready: () => (window as unknown as { examples?: { readyAt?: number } }).examples?.readyAt });
    await startFlow(page, 'f', `sdk.present('${slug}', { mode: 'live' })`);
    const ours = (url: string) => url.includes(`/checkout/${slug}`) && url.includes('mode=live');
    await expect.poll(() => page.frames().some((f) => ours(f.url())), { timeout: 30_000 }).toBe(true);
    const checkout = page.frames().find((f) => ours(f.url()))!;
    await checkout.locator('#co-pay:not([disabled])').waitFor({ timeout: 30_000 });
    await checkout.locator('#co-email').fill('framed@example.com');
    // Enter submits the form, as a buyer's keyboard would (the modal's size animates as the element mounts).
    await checkout.locator('#co-email').press('Enter');
    await checkout.frameLocator('iframe[name="stripe-payment-element"]').locator('#cardnumber').fill('4242424242424242');
    await expect.poll(() => checkout.textContent('#co-pay .co-pay-label'), { timeout: 15_000 }).toMatch(/^Pay now · /);
    await checkout.locator('#co-email').press('Enter');
    const result = await flowResult(page, 'f');
    expect(result.status).toBe('complete');
    expect(result.session?.status).toBe('completed');
    const seen = await page.evaluate(() => (window as unknown as { seen: Record<string, string[]> }).seen.f);
    expect(seen).toEqual(expect.arrayContaining(['start', 'purchase', 'complete']));
    expect(errors).toEqual([]);
    await page.close();
  });

  it('sets up the card of a trial with confirmSetup, charging nothing', async () => {
    const content = offerContent();
    const plan = { name: 'monthly', display_name: 'Monthly', renew_interval: 'P1M', invoice_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 1900 }] };
    await runImport(
      { command: server.cliContext(organizationId), organizationId, catchUp: server.settle },
      {
        products: [{ key: 'trial-pro', name: 'Trial Pro', plans: [plan] }],
        offers: [{ slug: 'live-trial', name: content.name, product: 'trial-pro', plan: 'monthly', theme: content.theme, pages: content.pages, published: true, trial_period_days: 14 }],
      },
    );
    await server.settle();
    const page = await openPage(chrome.context, `${server.url}/checkout/live-trial?mode=live`, { errors, ready: () => !(document.getElementById('co-pay') as HTMLButtonElement | null)?.disabled });
    const sessionId = await page.evaluate(() => document.body.dataset.sessionId!);
    await page.fill('#co-email', 'trial@example.com');
    await page.click('#co-pay');
    const card = page.frameLocator('iframe[name="stripe-payment-element"]').locator('#cardnumber');
    await card.waitFor({ timeout: 30_000 });
    await card.fill('4242424242424242');
    await page.click('#co-pay');
    await page.locator('#page-thank_you').waitFor({ state: 'visible', timeout: 30_000 });
    const session = (await (await server.fetch(`/api/checkout/sessions/${sessionId}`)).json()) as { session: { status: string; total: number; subscription: { status: string } | null } };
    expect(session.session).toMatchObject({ status: 'completed', total: 0, subscription: { status: 'trialing' } });
    const confirms = stripe.calls.filter((c) => c.path.startsWith('/v1/setup_intents/') && c.path.endsWith('/confirm'));
    expect(confirms.map((c) => c.body['payment_method_data[card][number]'])).toEqual(['4242424242424242']);
    expect(stripe.calls.some((c) => c.path === '/v1/payment_intents' && c.body['metadata[session_id]'] === sessionId)).toBe(false);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('keeps Stripe.js out of a test-mode page', async () => {
    const page = await openPage(chrome.context, `${server.url}/checkout/${slug}?mode=test`, { errors, ready: () => !(document.getElementById('co-pay') as HTMLButtonElement | null)?.disabled });
    expect(await page.evaluate(() => typeof (window as { Stripe?: unknown }).Stripe)).toBe('undefined');
    expect(await page.locator('#co-number').count()).toBe(1);
    await page.close();
  });
});
