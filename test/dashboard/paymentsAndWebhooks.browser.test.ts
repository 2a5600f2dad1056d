import { mkdirSync } from 'node:fs';
import * as oauth from 'oauth4webapi';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES } from '../../modules/webhooks/domain/eventTypes.ts';
import { makeOffer } from '../checkout/checkoutFixtures.ts';
import { startFakeStripe, type FakeStripe } from '../helpers/fakeStripe.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { verified, WEBHOOK_ENV } from '../webhooks/webhookFixtures.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { launchChromium } from '../sdk/sdkFixtures.ts';
import { invitedPerson, paidSession, seriousAxeViolations, watchCsp } from './dashboardFixtures.ts';

/**
 * Settings → Payments (Stripe connected, replaced, disconnected), a refund of a paid test-mode
 * invoice from its session's page and its place in the timeline, and Developers → Webhook
 * endpoints (a delivery of a test sale reaching a loopback receiver, verified with the Standard
 * Webhooks library), OAuth apps and connected apps (an app driven by oauth4webapi), in a real Chromium against a real server. DASHBOARD_SCREENSHOTS=<dir> also
 * writes each page at 1280 and 390 px wide.
 */
describe('dashboard pages: payments, refunds, webhook endpoints', () => {
  let server: TestServer;
  let stripe: FakeStripe;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let context: BrowserContext;
  let page: Page;
  let origin: string;
  let csp: string[];
  let sessionId: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let person: Awaited<ReturnType<typeof invitedPerson>>;
  const shots = process.env.DASHBOARD_SCREENSHOTS;

  const h1 = (name: string) => page.getByRole('heading', { name, level: 1 }).waitFor({ timeout: 30_000 });

  /** No serious or critical axe violation at desktop and phone width (no sideways scroll); screenshots when asked. */
  const check = async (name: string) => {
    await page.waitForLoadState('networkidle').catch(() => undefined);
    expect(await seriousAxeViolations(page), name).toEqual([]);
    if (shots) {
      mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: `${shots}/${name}-desktop.png`, fullPage: true });
    }
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth), { timeout: 10_000 }).toBeLessThanOrEqual(390);
    expect(await seriousAxeViolations(page), `${name} on a phone`).toEqual([]);
    if (shots) await page.screenshot({ path: `${shots}/${name}-phone.png`, fullPage: true });
    await page.setViewportSize({ width: 1280, height: 900 });
  };

  beforeAll(async () => {
    stripe = await startFakeStripe();
    receiver = await startReceiver();
    server = await startTestServer({ env: { ...WEBHOOK_ENV, ...stripe.env } });
    chrome = await launchChromium();
    context = chrome.context;
    page = await context.newPage();
    await page.setViewportSize({ width: 1280, height: 900 });
    csp = watchCsp(page);
    origin = server.url.replace('127.0.0.1', 'localhost');
    person = await invitedPerson(server, { organizations: [{ name: 'Refund Shop', timezone: 'Europe/Paris' }] });
    await makeOffer(server, person.organizationIds[0]!, { slug: 'pro-plan' });
    sessionId = await paidSession(server, 'pro-plan', { email: 'refund-me@example.com', name: 'Rita Refund' });
    await server.settle();
    await page.goto(`${origin}/dashboard/invitation#token=${person.token}`);
    await page.getByLabel('Password').fill('correct horse battery');
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await h1('Home');
  }, 120_000);
  afterEach(async (ctx) => {
    if (ctx.task.result?.state === 'fail') await page.screenshot({ path: `test-results/payments-${ctx.task.name.slice(0, 40).replace(/\W+/g, '-')}.png`, fullPage: true }).catch(() => undefined);
  });
  afterAll(async () => {
    await chrome?.close();
    await server?.close({ remove: true });
    await stripe?.close();
    await receiver?.close();
  }, 120_000);

  it('connects Stripe from Settings → Payments: a wrong key is refused beside its field, the answer shows the masked key and the webhook URL, never a secret', async () => {
    await page.goto(`${origin}/dashboard/settings`);
    await h1('Settings');
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Payments' }).click();
    await page.getByRole('heading', { name: 'Connect a Stripe account' }).waitFor();
    expect(await page.getByText('No Stripe account is connected').count()).toBe(1);
    const webhookUrl = page.getByLabel('Webhook URL for Stripe');
    expect(await webhookUrl.textContent()).toMatch(/\/webhooks\/stripe\/org_/);
    await check('payments');

    const account = stripe.account();
    // The secret fields are write-only: password inputs, nothing autofilled.
    expect(await page.getByLabel('Secret or restricted key').getAttribute('type')).toBe('password');
    expect(await page.getByLabel('Webhook signing secret').getAttribute('type')).toBe('password');
    await page.getByLabel('Secret or restricted key').fill(account.secretKey);
    await page.getByLabel('Publishable key').fill('pk_nope');
    await page.getByLabel('Webhook signing secret').fill(account.webhookSecret);
    await page.getByRole('button', { name: 'Connect Stripe' }).click();
    const publishable = page.getByLabel('Publishable key');
    await expect.poll(() => publishable.getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('.field-error').textContent()).toMatch(/publishable key/i);

    await publishable.fill(account.publishableKey);
    await page.getByRole('button', { name: 'Connect Stripe' }).click();
    await page.getByText('Connected', { exact: true }).first().waitFor();
    const stripeCard = page.getByRole('region', { name: 'Stripe', exact: true });
    const text = (await stripeCard.textContent()) ?? '';
    expect(text).toContain(account.secretKey.slice(-4));
    expect(text).toContain('••••');
    expect(text).toContain(account.publishableKey);
    // Neither secret is anywhere in the page.
    const html = await page.content();
    expect(html).not.toContain(account.secretKey);
    expect(html).not.toContain(account.webhookSecret);
    // The service agrees.
    const state = await page.evaluate(() => fetch('/manage/api/payments/stripe').then((r) => r.json()));
    expect(state).toMatchObject({ connected: true, mode: 'test', key_type: 'secret' });
    await check('payments-connected');
  }, 90_000);

  it('disconnects Stripe after a confirmation', async () => {
    await page.getByRole('button', { name: 'Disconnect Stripe' }).click();
    await page.getByRole('button', { name: 'Yes, disconnect: Stripe' }).click();
    await page.getByText('No Stripe account is connected').waitFor();
    const state = await page.evaluate(() => fetch('/manage/api/payments/stripe').then((r) => r.json()));
    expect(state.connected).toBe(false);
  }, 60_000);

  it('refunds part of a paid test-mode invoice, then the rest: the invoice card and the timeline show both', async () => {
    await page.goto(`${origin}/dashboard/sales/${sessionId}`);
    await h1('Checkout session');
    const invoice = page.getByRole('region', { name: 'Invoice' });
    await invoice.getByRole('button', { name: 'Refund…' }).click();
    await invoice.getByLabel('Part of it').check();
    // More than was paid: the server's message beside the amount.
    await invoice.getByLabel(/^Amount/).fill('999');
    await invoice.getByRole('button', { name: 'Refund this amount' }).click();
    await expect.poll(() => invoice.getByLabel(/^Amount/).getAttribute('aria-invalid')).toBe('true');
    await check('refund');
    await invoice.getByLabel(/^Amount/).fill('5.00');
    await invoice.getByRole('button', { name: 'Refund this amount' }).click();
    await invoice.getByText('€5.00 of €24.00').waitFor();
    const history = page.getByRole('region', { name: 'History' });
    await history.getByRole('button', { name: 'View the session after refunded', exact: true }).first().waitFor();
    expect(await history.getByText('refunded: €0.00 → €5.00 of €24.00').count()).toBe(1);

    await invoice.getByRole('button', { name: 'Refund…' }).click();
    await invoice.getByRole('button', { name: 'Refund €19.00' }).click();
    await invoice.getByText('€24.00 (in full)').waitFor();
    expect(await history.getByRole('button', { name: 'View the session after refunded', exact: true }).count()).toBe(2);
    expect(await history.getByText('refunded: €5.00 → €24.00 of €24.00').count()).toBe(1);
    // Nothing left to refund: no action.
    expect(await invoice.getByRole('button', { name: 'Refund…' }).count()).toBe(0);
    await check('session-refunded');
    expect(csp).toEqual([]);
  }, 120_000);

  it('adds a webhook endpoint (its secret shown once), and a test sale reaches the receiver, listed with its attempt; Resend sends it again', async () => {
    await page.goto(`${origin}/dashboard/developers`);
    await h1('Developers');
    await page.getByRole('navigation', { name: 'Developers' }).getByRole('link', { name: 'Webhook endpoints' }).click();
    await page.getByText('No webhook endpoints yet').waitFor();
    await check('webhooks-empty');
    await page.getByRole('link', { name: 'Add an endpoint' }).click();
    await page.getByRole('heading', { name: 'Add a webhook endpoint' }).waitFor();

    // Nothing typed, nothing chosen: the server's messages beside the URL and the events.
    await page.getByRole('button', { name: 'Select none' }).click();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await expect.poll(() => page.getByLabel('Endpoint URL').getAttribute('aria-invalid')).toBe('true');
    await page.locator('#event-types-error').waitFor();
    await check('webhook-new');

    await page.getByLabel('Endpoint URL').fill(`${receiver.url}/hooks/commerce`);
    await page.getByRole('checkbox', { name: /checkout\.session\.completed/ }).check();
    await page.getByRole('checkbox', { name: /invoice\.refunded/ }).check();
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secretField = page.getByLabel("The endpoint's signing secret");
    await secretField.waitFor();
    const secret = (await secretField.textContent())!.trim();
    expect(secret).toMatch(/^whsec_/);
    await check('webhook-created');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByRole('heading', { name: 'Deliveries' }).waitFor();
    expect(await page.content()).not.toContain(secret);
    await page.getByText('No deliveries yet').waitFor();

    // A test sale: the receiver gets it, signed with that secret.
    await paidSession(server, 'pro-plan', { email: 'hooked@example.com' });
    await expect.poll(() => receiver.calls.length, { timeout: 30_000 }).toBeGreaterThanOrEqual(1);
    const first = receiver.calls[0]!;
    expect(first.url).toBe('/hooks/commerce');
    const body = verified(secret, first);
    expect(body.type).toBe('checkout.session.completed');
    expect(body.data.object.customer_email).toBe('hooked@example.com');

    // Listed with its attempt.
    const deliveries = page.getByRole('list', { name: 'Deliveries, newest first' });
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          return deliveries.getByText('succeeded', { exact: true }).count();
        },
        { timeout: 30_000 },
      )
      .toBe(1);
    await deliveries.getByText('Attempts').first().click();
    await deliveries.getByText(/#1 .*succeeded · HTTP 200/).waitFor();
    await check('webhook');

    // Resend: the same event again, same webhook-id.
    await deliveries.getByRole('button', { name: /^Resend checkout\.session\.completed/ }).click();
    await expect.poll(() => receiver.calls.length, { timeout: 30_000 }).toBe(2);
    expect(receiver.calls[1]!.headers['webhook-id']).toBe(first.headers['webhook-id']);
    expect(verified(secret, receiver.calls[1]!).id).toBe(body.id);
    await expect
      .poll(
        async () => {
          await page.getByRole('button', { name: 'Refresh' }).click();
          return deliveries.getByText('2 attempts').count();
        },
        { timeout: 30_000 },
      )
      .toBe(1);
  }, 180_000);

  it('disables and enables an endpoint, rotates its secret (the new one shown once, both signing), and deletes it', async () => {
    const endpointCard = page.getByRole('region', { name: 'Endpoint', exact: true });
    await page.getByRole('button', { name: 'Disable' }).click();
    await endpointCard.getByText('Disabled', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Enable' }).click();
    await endpointCard.getByText('Enabled', { exact: true }).waitFor();

    await page.getByLabel('Keep the previous secret for').selectOption({ label: '1 hour' });
    await page.getByRole('button', { name: /^Rotate secret/ }).click();
    await page.getByRole('button', { name: /^Yes, make a new secret/ }).click();
    const secretField = page.getByLabel("The endpoint's signing secret");
    await secretField.waitFor();
    const rotated = (await secretField.textContent())!.trim();
    expect(rotated).toMatch(/^whsec_/);
    // During the overlap, each request carries two signatures: the new secret verifies the next sale.
    const before = receiver.calls.length;
    await paidSession(server, 'pro-plan', { email: 'rotated@example.com' });
    await expect.poll(() => receiver.calls.length, { timeout: 30_000 }).toBeGreaterThan(before);
    const call = receiver.calls.at(-1)!;
    expect(String(call.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verified(rotated, call).data.object.customer_email).toBe('rotated@example.com');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    expect(await page.content()).not.toContain(rotated);

    // The list, with the endpoint and its state; its URL leads back to it.
    await page.getByRole('link', { name: '← Webhook endpoints' }).click();
    const list = page.getByRole('table', { name: 'Webhook endpoints' });
    await list.getByText(`2 of ${WEBHOOK_EVENT_TYPES.length}`).waitFor(); // (a column hidden on phones)
    expect(await list.getByText('Enabled').count()).toBe(1);
    await check('webhooks');
    await list.getByRole('link', { name: /hooks\/commerce/ }).click();
    await page.getByRole('heading', { name: 'Deliveries' }).waitFor();
    await page.getByRole('button', { name: /^Delete http/ }).click();
    await page.getByRole('button', { name: /^Yes, delete/ }).click();
    await page.getByText('No webhook endpoints yet').waitFor();
    expect(csp).toEqual([]);
  }, 120_000);

  it('registers an OAuth app (a refused redirect URI shown beside the field, the client secret shown once), and the app a person connects shows in Connected apps until disconnected', async () => {
    await page.goto(`${origin}/dashboard/developers`);
    await h1('Developers');
    await page.getByRole('navigation', { name: 'Developers' }).getByRole('link', { name: 'OAuth apps' }).click();
    await page.getByText('No OAuth apps yet').waitFor();
    await page.getByLabel('Name', { exact: true }).fill('Acme Sync');
    await page.getByLabel('Redirect URIs').fill('http://app.example/callback');
    await page.getByRole('button', { name: 'Register app' }).click();
    await expect.poll(() => page.getByLabel('Redirect URIs').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#redirect-uris-error').textContent()).toMatch(/^Line 1: The redirect URI/);
    await check('oauth-apps');

    const callback = await startReceiver();
    const redirectUri = `${callback.url}/callback`;
    await page.getByLabel('Redirect URIs').fill(redirectUri);
    await page.getByRole('button', { name: 'Register app' }).click();
    const secretField = page.getByLabel("The app's client secret");
    await secretField.waitFor();
    const clientSecret = (await secretField.textContent())!.trim();
    const clientId = (await page.getByLabel("The app's client id").textContent())!.trim();
    expect(clientId).toMatch(/^app_/);
    await page.getByRole('table', { name: 'OAuth apps' }).getByText(redirectUri).waitFor();
    await check('oauth-app-created');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    expect(await page.content()).not.toContain(clientSecret);

    // The app, driven by oauth4webapi, gets a person's consent (the same person, signed in on the service's own address).
    await page.goto(`${origin}/dashboard/settings/connected-apps`);
    await page.getByText('No connected apps').waitFor();
    await check('connected-apps-empty');
    const signIn = await context.request.post(`${server.url}/manage/api/sign-in`, { data: { email: person.email, password: 'correct horse battery' }, headers: { 'sec-fetch-site': 'same-origin' } });
    expect(signIn.status()).toBe(200);
    const insecure = { [oauth.allowInsecureRequests]: true };
    const issuer = new URL(server.url);
    const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    const client = { client_id: clientId };
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    for (const [k, v] of Object.entries({ client_id: clientId, redirect_uri: redirectUri, response_type: 'code', scope: 'identity:read catalog:read', state, code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256' })) url.searchParams.set(k, v);
    const consentPage = await context.newPage();
    await consentPage.goto(url.href);
    await consentPage.waitForURL(/\/oauth\/interaction\//);
    await Promise.all([consentPage.waitForURL((u) => u.href.startsWith(redirectUri), { timeout: 30_000 }), consentPage.getByRole('button', { name: 'Allow' }).click()]);
    const params = oauth.validateAuthResponse(as, client, new URL(consentPage.url()), state);
    await consentPage.close();
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, await oauth.authorizationCodeGrantRequest(as, client, oauth.ClientSecretBasic(clientSecret), params, redirectUri, verifier, insecure));
    const me = () => fetch(`${server.url}/api/users/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } }).then((r) => r.status);
    expect(await me()).toBe(200);
    await callback.close();

    await page.reload();
    const connected = page.getByRole('table', { name: 'Connected apps' });
    await connected.getByText('Acme Sync').waitFor();
    expect(await connected.getByText('catalog:read').count()).toBe(1);
    expect(await connected.getByText('Refund Shop').count()).toBe(1);
    await check('connected-apps');
    await page.getByRole('button', { name: 'Disconnect Acme Sync' }).click();
    await page.getByRole('button', { name: /^Yes, disconnect: Acme Sync/ }).click();
    await page.getByText('No connected apps').waitFor();
    expect(await me()).toBe(401);

    // Deleting the app.
    await page.goto(`${origin}/dashboard/developers/oauth-apps`);
    await page.getByRole('button', { name: 'Delete Acme Sync' }).click();
    await page.getByRole('button', { name: /^Yes, delete: Acme Sync/ }).click();
    await page.getByText('No OAuth apps yet').waitFor();
    expect(csp).toEqual([]);
  }, 180_000);
});
