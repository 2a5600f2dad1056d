import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../app/import/importFile.ts';
import { connectStripe, stripeSecrets } from '../../modules/payments/stripeAccountCommands.ts';
import { subscriptionDecider, subscriptionStream, type SubscriptionState } from '../../modules/subscriptions/domain/subscription.ts';
import { fold } from '../../platform/domain/decider.ts';
import { offerContent } from '../checkout/checkoutFixtures.ts';
import { seriousAxeViolations } from '../dashboard/dashboardFixtures.ts';
import { startFakeStripe, type FakeStripe } from '../helpers/fakeStripe.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { launchChromium } from '../sdk/sdkFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/*
 * A live subscription's new card in the customer portal, in Chromium: the card form loads the
 * Stripe.js stand-in (test/helpers/fakeStripe.ts) under its Content Security Policy, confirms a
 * SetupIntent in the Payment Element, and the server reads the saved card from the stand-in's API.
 */
describe("a live subscription's card in the customer portal, in Chromium", { timeout: 120_000 }, () => {
  let stripe: FakeStripe;
  let server: TestServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let seller: { organizationId: string; token: string };

  beforeAll(async () => {
    chrome = await launchChromium();
    stripe = await startFakeStripe();
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000', ...stripe.env } });
    seller = await server.identity('Live shop');
    const account = stripe.account();
    await connectStripe(server.cliContext(seller.organizationId), stripeSecrets(server.services), {
      organizationId: seller.organizationId,
      secretKey: account.secretKey,
      publishableKey: account.publishableKey,
      webhookSecret: account.webhookSecret,
    });
    const content = offerContent();
    const plan = { name: 'monthly', display_name: 'Monthly', renew_interval: 'P1M', invoice_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 1900 }] };
    await runImport(
      { command: server.cliContext(seller.organizationId), organizationId: seller.organizationId, catchUp: server.settle },
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

  const post = (path: string, body: unknown, token?: string) =>
    server.fetch(path, { method: 'POST', ...(token ? { token } : {}), headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const subscriptionOf = async (id: string): Promise<SubscriptionState> => fold(subscriptionDecider, (await server.services.store.readStream(subscriptionStream(id))) as never);

  it("takes the new card in Stripe's Payment Element and puts it on the subscription, as the customer", async () => {
    const created = (await (await post('/api/checkout/sessions', { offer: 'live-monthly', mode: 'live' })).json()) as Body;
    const sessionId = created.session.id as string;
    const started = (await (await post(`/api/checkout/sessions/${sessionId}/payment-intent`, { email: 'live@example.com' })).json()) as Body;
    await stripe.confirm(started.payment_intent.id, '4000000000000341');
    expect((await post(`/api/checkout/sessions/${sessionId}/payment-intent/settle`, {})).status).toBe(200);
    const completed = (await server.services.store.readStream(`checkout_session-${sessionId}`)).find((e) => e.type === 'CheckoutSessionCompleted')!.data as Body;
    const subscriptionId = completed.subscription_id as string;
    await expect.poll(async () => (await subscriptionOf(subscriptionId)).status, { timeout: 10_000 }).toBe('active');
    await server.settle();

    const session = (await (await post(`/api/customers/${completed.customer_id}/portal_sessions`, {}, seller.token)).json()) as Body;
    const page = await chrome.context.newPage();
    await page.setViewportSize({ width: 390, height: 844 });
    const problems: string[] = [];
    page.on('console', (m) => {
      // The stand-in's own frame talking to its parent is the stand-in's affair; the portal's page is ours.
      if (m.location().url.startsWith(server.url) && (m.type() === 'error' || m.type() === 'warning')) problems.push(m.text());
      if (/Content Security Policy|Refused to/.test(m.text())) problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`${server.url}${new URL(session.url as string).pathname}`);
    await Promise.all([page.waitForNavigation(), page.click('#continue')]);
    await Promise.all([page.waitForNavigation(), page.click(`#card-${subscriptionId}`)]);
    expect(await page.locator('h1').textContent()).toBe('Update card');
    await page.click('#new-card');
    const card = page.frameLocator('iframe[name="stripe-payment-element"]').locator('#cardnumber');
    await card.waitFor({ timeout: 30_000 });
    await expect.poll(() => page.textContent('#new-card'), { timeout: 15_000 }).toBe('Save card');
    expect(await seriousAxeViolations(page)).toEqual([]);
    await card.fill('5555555555554444');
    await Promise.all([page.waitForURL(/\?done=card_saved$/, { timeout: 30_000 }), page.click('#new-card')]);
    expect(await page.locator('#notice').textContent()).toContain('Your new card is saved.');

    const updated = (await server.services.store.readStream(subscriptionStream(subscriptionId))).filter((e) => e.type === 'SubscriptionPaymentMethodUpdated').at(-1)!;
    expect(updated.metadata.actor).toEqual({ type: 'customer', id: completed.customer_id });
    expect((updated.data as Body).payment_method).toMatchObject({ provider: 'stripe', card: { last4: '4444' } });
    expect(stripe.calls.some((c) => c.path === '/v1/setup_intents' && c.method === 'POST')).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });
});
