import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../app/import/importFile.ts';
import { connectStripe, stripeSecrets } from '../../modules/payments/stripeAccountCommands.ts';
import { runDue } from '../../modules/subscriptions/billing.ts';
import { issueBillingLink } from '../../modules/subscriptions/billingLinks.ts';
import { subscriptionDecider, subscriptionStream, type SubscriptionState } from '../../modules/subscriptions/domain/subscription.ts';
import { fold } from '../../platform/domain/decider.ts';
import { offerContent } from '../checkout/checkoutFixtures.ts';
import { startFakeStripe, type FakeStripe } from '../helpers/fakeStripe.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';
import { launchChromium } from '../sdk/sdkFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/*
 * The hosted card page of a live subscription whose renewal the bank held for the buyer
 * (`authentication_required`), in Chromium: the page loads the Stripe.js stand-in
 * (test/helpers/fakeStripe.ts) under its Content Security Policy, confirms the open invoice's
 * payment with confirmCardPayment, and the server records it from the stand-in's API.
 */
describe('confirming a held renewal on the live hosted card page, in Chromium', { timeout: 120_000 }, () => {
  let stripe: FakeStripe;
  let server: TestServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  const clock = manualClock();
  let organizationId = '';

  beforeAll(async () => {
    chrome = await launchChromium();
    stripe = await startFakeStripe();
    server = await startTestServer({ clock, env: { CHECKOUT_RATE_LIMIT: '10000', ...stripe.env } });
    organizationId = (await server.identity('Live shop')).organizationId;
    const account = stripe.account();
    await connectStripe(server.cliContext(organizationId), stripeSecrets(server.services), {
      organizationId,
      secretKey: account.secretKey,
      publishableKey: account.publishableKey,
      webhookSecret: account.webhookSecret,
    });
    const content = offerContent();
    const plan = { name: 'monthly', display_name: 'Monthly', renew_interval: 'P1M', invoice_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 1900 }] };
    await runImport(
      { command: server.cliContext(organizationId), organizationId, catchUp: server.settle },
      {
        products: [{ key: 'live-pro', name: 'Live Pro', plans: [plan] }],
        offers: [{ slug: 'live-monthly', name: content.name, product: 'live-pro', plan: 'monthly', theme: content.theme, pages: content.pages, published: true }],
      },
    );
    await server.settle();
  }, 90_000);

  afterAll(async () => {
    await chrome?.close();
    await server?.close({ remove: true });
    await stripe?.close();
  });

  const post = (path: string, body: unknown) => server.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const subscriptionOf = async (id: string): Promise<SubscriptionState> => fold(subscriptionDecider, (await server.services.store.readStream(subscriptionStream(id))) as never);

  /** A live subscription bought with `card`, whose first renewal failed without the buyer, and a link to its card page. */
  async function failedRenewal(card: string, email: string) {
    const created = (await (await post('/api/checkout/sessions', { offer: 'live-monthly', mode: 'live' })).json()) as Body;
    const sessionId = created.session.id as string;
    const started = (await (await post(`/api/checkout/sessions/${sessionId}/payment-intent`, { email })).json()) as Body;
    await stripe.confirm(started.payment_intent.id, card);
    expect((await post(`/api/checkout/sessions/${sessionId}/payment-intent/settle`, {})).status).toBe(200);
    const completed = (await server.services.store.readStream(`checkout_session-${sessionId}`)).find((e) => e.type === 'CheckoutSessionCompleted')!;
    const subscriptionId = (completed.data as Body).subscription_id as string;
    await expect.poll(async () => (await subscriptionOf(subscriptionId)).status, { timeout: 10_000 }).toBe('active');
    const bought = await subscriptionOf(subscriptionId);
    if (bought.status === 'none') throw new Error('no subscription');
    clock.set((bought.current_period_end + 60) * 1000);
    await runDue(server.services, '', Math.floor(clock() / 1000));
    clock.set(Date.now());
    const held = await subscriptionOf(subscriptionId);
    if (held.status !== 'past_due' || !held.open_invoice) throw new Error(`not past due: ${held.status}`);
    const token = await issueBillingLink(server.services, { subscription_id: subscriptionId, invoice_id: held.open_invoice.id, organization_id: organizationId }, 'test');
    return { subscriptionId, token };
  }

  async function open(token: string) {
    const page = await chrome.context.newPage();
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || /Content Security Policy|Refused to/.test(m.text())) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`${server.url}/billing/${token}`);
    return { page, problems };
  }

  it('confirms the payment with Stripe.js and shows the subscription active again', async () => {
    // Bought with Stripe's card that always asks for authentication, then renewed without the buyer.
    const { subscriptionId, token } = await failedRenewal('4000002760003184', 'held@example.com');
    const { page, problems } = await open(token);
    expect(await page.locator('#last-decline').textContent()).toContain('Your bank asks you to confirm the payment.');
    expect(await page.locator('#number').count()).toBe(0);
    await page.waitForFunction(() => typeof (window as { Stripe?: unknown }).Stripe === 'function', undefined, { timeout: 15_000 });
    await Promise.all([page.waitForURL(/\/settle$/, { timeout: 30_000 }), page.click('#authenticate')]);
    expect(await page.locator('h1').textContent()).toBe('Thank you, your subscription is active');
    expect((await subscriptionOf(subscriptionId)).status).toBe('active');
    const confirms = stripe.calls.filter((c) => /^\/v1\/payment_intents\/[^/]+\/confirm$/.test(c.path) && !c.body['payment_method_data[card][number]']);
    expect(confirms).toHaveLength(1);
    expect(problems).toEqual([]);
    await page.close();
  });

  it("takes a new card in Stripe's Payment Element and pays the open invoice with it", async () => {
    // Stripe's card that pays at checkout and is declined on every later charge.
    const { subscriptionId, token } = await failedRenewal('4000000000000341', 'replace@example.com');
    const { page, problems } = await open(token);
    expect(await page.locator('#authenticate').count()).toBe(0);
    await page.click('#new-card');
    const card = page.frameLocator('iframe[name="stripe-payment-element"]').locator('#cardnumber');
    await card.waitFor({ timeout: 30_000 });
    await expect.poll(() => page.textContent('#new-card'), { timeout: 15_000 }).toBe('Save card and pay €19.00');
    await card.fill('4242424242424242');
    await Promise.all([page.waitForURL(/\/card$/, { timeout: 30_000 }), page.click('#new-card')]);
    expect(await page.locator('h1').textContent()).toBe('Thank you, your subscription is active');
    const after = await subscriptionOf(subscriptionId);
    expect(after.status === 'active' && after.payment_method?.card).toEqual({ brand: 'visa', last4: '4242' });
    expect(problems).toEqual([]);
    await page.close();
  });
});
