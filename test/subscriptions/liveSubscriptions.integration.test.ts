import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runImport } from '../../app/import/importFile.ts';
import { expireSession } from '../../modules/checkout/sessionCommands.ts';
import { cancelVoidInvoicePayments } from '../../modules/payments/livePayments.ts';
import { runDue } from '../../modules/subscriptions/billing.ts';
import { issueBillingLink } from '../../modules/subscriptions/billingLinks.ts';
import { subscriptionDecider, subscriptionStream, type SubscriptionState } from '../../modules/subscriptions/domain/subscription.ts';
import { fold } from '../../platform/domain/decider.ts';
import { handleCommand } from '../../platform/es/handleCommand.ts';
import { offerContent } from '../checkout/checkoutFixtures.ts';
import { startFakeStripe, type FakeAccount, type FakeStripe } from '../helpers/fakeStripe.ts';
import { signedInPerson } from '../helpers/manageClient.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';
import { subscribe, verified, WEBHOOK_ENV } from '../webhooks/webhookFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/*
 * Live subscriptions against the Stripe stand-in at its HTTP boundary (test/helpers/fakeStripe.ts),
 * through Stripe's own package: the checkout saves the card on a customer, renewals charge it
 * off-session, and a trial sets the card up without charging.
 */
describe('live subscriptions through Stripe', { timeout: 120_000 }, () => {
  let stripe: FakeStripe;
  let server: TestServer;
  const clock = manualClock();
  let organizationId = '';
  let owner: Awaited<ReturnType<typeof signedInPerson>>;
  let account: FakeAccount;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let endpointSecret = '';

  beforeAll(async () => {
    stripe = await startFakeStripe();
    server = await startTestServer({ clock, env: { ...WEBHOOK_ENV, ...stripe.env, WEBHOOK_RETRY_BASE_MS: '50' } });
    owner = await signedInPerson(server);
    organizationId = owner.organizationId;
    account = stripe.account();
    const put = await owner.client.json('PUT', '/manage/api/payments/stripe', { secret_key: account.secretKey, publishable_key: account.publishableKey, webhook_secret: account.webhookSecret });
    expect(put.status).toBe(200);
    const content = offerContent();
    const plan = { name: 'monthly', display_name: 'Monthly', renew_interval: 'P1M', invoice_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 1900 }] };
    await runImport(
      { command: server.cliContext(organizationId), organizationId, catchUp: server.settle },
      {
        products: [{ key: 'live-pro', name: 'Live Pro', plans: [plan] }],
        offers: [
          { slug: 'live-monthly', name: content.name, product: 'live-pro', plan: 'monthly', theme: content.theme, pages: content.pages, published: true },
          { slug: 'live-trial', name: content.name, product: 'live-pro', plan: 'monthly', theme: content.theme, pages: content.pages, published: true, trial_period_days: 14 },
        ],
      },
    );
    await server.settle();
    receiver = await startReceiver();
    endpointSecret = (await subscribe(server, organizationId, `${receiver.url}/hooks`, ['invoice.payment_failed'])).secret;
  }, 60_000);

  afterAll(async () => {
    await server?.close({ remove: true });
    await receiver?.close();
    await stripe?.close();
  });

  const post = (path: string, body: unknown) => server.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const eventsOf = async (stream: string) => (await server.services.store.readStream(stream)).map((e) => ({ type: e.type, data: e.data as Body }));
  const subscriptionOf = async (id: string): Promise<SubscriptionState> => fold(subscriptionDecider, (await server.services.store.readStream(subscriptionStream(id))) as never);
  const now = () => Math.floor(clock() / 1000);

  /** A live session of `slug`, started by `email`, confirmed with `card` in the buyer's browser, then settled. */
  async function buy(slug: string, email: string, card: string) {
    const created = await post('/api/checkout/sessions', { offer: slug, mode: 'live' });
    expect(created.status).toBe(201);
    const sessionId = ((await created.json()) as Body).session.id as string;
    const started = await post(`/api/checkout/sessions/${sessionId}/payment-intent`, { email, name: 'Ada Buyer' });
    expect(started.status).toBe(200);
    const body = (await started.json()) as Body;
    await stripe.confirm(body.payment_intent.id, card);
    const settled = await post(`/api/checkout/sessions/${sessionId}/payment-intent/settle`, {});
    expect(settled.status).toBe(200);
    const session = (await eventsOf(`checkout_session-${sessionId}`)).find((e) => e.type === 'CheckoutSessionCompleted')!;
    const subscriptionId = session.data.subscription_id as string;
    await expect.poll(async () => (await subscriptionOf(subscriptionId)).status, { timeout: 10_000 }).not.toBe('none');
    return { sessionId, invoiceId: body.invoice.id as string, intentId: body.payment_intent.id as string, completed: session.data, subscriptionId, settled: (await settled.json()) as Body };
  }

  it('saves the card of a live recurring checkout on a Stripe customer, and the subscription gets it', async () => {
    const { intentId, invoiceId, completed, subscriptionId } = await buy('live-monthly', 'saver@example.com', '4242424242424242');
    // The PaymentIntent is made for a customer of this buyer, to save the method for renewals.
    const intent = stripe.paymentIntent(intentId)!;
    expect(intent).toMatchObject({ setup_future_usage: 'off_session', customer: expect.stringMatching(/^cus_/), amount: 1900 });
    expect(stripe.customer(intent.customer as string)).toMatchObject({ email: 'saver@example.com', name: 'Ada Buyer' });
    const method = { id: intent.payment_method, provider: 'stripe', card: { brand: 'visa', last4: '4242' }, exp_month: 12, exp_year: 2034, customer: intent.customer };
    expect(method.id).toMatch(/^pm_/);
    expect(completed.payment_method).toEqual(method);
    const paid = (await eventsOf(`invoice-${invoiceId}`)).find((e) => e.type === 'InvoicePaid')!;
    expect(paid.data).toMatchObject({ attempt_id: intentId, provider: 'stripe', payment_method: method });
    const sub = await subscriptionOf(subscriptionId);
    expect(sub.status === 'active' && sub.payment_method).toEqual(method);
  });

  it('charges a renewal off-session on the saved method and customer, keyed per invoice and attempt, and pays the invoice', async () => {
    const { subscriptionId, completed } = await buy('live-monthly', 'renewer@example.com', '4242424242424242');
    const before = await subscriptionOf(subscriptionId);
    if (before.status === 'none') throw new Error('no subscription');
    clock.set((before.current_period_end + 60) * 1000);
    await runDue(server.services, '', now());
    clock.set(Date.now());
    const after = await subscriptionOf(subscriptionId);
    if (after.status === 'none') throw new Error('no subscription');
    expect(after.status).toBe('active');
    expect(after.current_period_start).toBe(before.current_period_end);
    const renewal = (await eventsOf(subscriptionStream(subscriptionId))).find((e) => e.type === 'SubscriptionInvoiceCreated')!;
    const invoiceId = renewal.data.invoice_id as string;
    const charges = stripe.calls.filter((c) => c.path === '/v1/payment_intents' && c.body.off_session === 'true' && c.body.payment_method === completed.payment_method.id);
    expect(charges).toHaveLength(1);
    expect(charges[0]!.idempotencyKey).toBe(`${invoiceId}_a1`);
    expect(charges[0]!.body).toMatchObject({ customer: completed.payment_method.customer, confirm: 'true', amount: '1900', currency: 'eur' });
    const paid = (await eventsOf(subscriptionStream(subscriptionId))).find((e) => e.type === 'SubscriptionInvoicePaid')!;
    expect(paid.data).toMatchObject({ invoice_id: invoiceId, attempt: 1, charge_id: expect.stringMatching(/^ch_/) });
    await expect.poll(async () => (await eventsOf(`invoice-${invoiceId}`)).some((e) => e.type === 'InvoicePaid'), { timeout: 10_000 }).toBe(true);

    // The renewal's money goes back through Stripe, from the charge the off-session PaymentIntent made.
    const refunded = await owner.client.json<Body>('POST', `/manage/api/invoices/${invoiceId}/refunds`, { amount: 500 });
    expect(refunded.status).toBe(200);
    expect(refunded.body).toMatchObject({ amount: 500, amount_refunded: 500 });
    const call = stripe.calls.find((c) => c.path === '/v1/refunds' && c.body.charge === paid.data.charge_id)!;
    expect(call.idempotencyKey).toBe(`commerce-refund-${invoiceId}-0-500`);
    expect(stripe.charge(paid.data.charge_id as string)).toMatchObject({ amount_refunded: 500 });
    // A renewal's id is base64url: `-` and `_` are an invoice id's characters too.
    expect((await owner.client.json('POST', '/manage/api/invoices/in_no-such_invoice/refunds', { amount: 1 })).status).toBe(404);
  });

  it('sets the card of a live trial up with a SetupIntent, charges nothing, and charges it off-session at the trial end', async () => {
    const { intentId, invoiceId, completed, subscriptionId, settled } = await buy('live-trial', 'trial@example.com', '4242424242424242');
    expect(intentId).toMatch(/^seti_/);
    const setup = stripe.setupIntent(intentId)!;
    expect(setup).toMatchObject({ usage: 'off_session', status: 'succeeded', customer: expect.stringMatching(/^cus_/), metadata: { invoice_id: invoiceId, organization_id: organizationId } });
    // No PaymentIntent for the trial's invoice: nothing was charged.
    expect(stripe.calls.some((c) => c.path === '/v1/payment_intents' && c.body['metadata[invoice_id]'] === invoiceId)).toBe(false);
    expect(settled.invoice).toMatchObject({ total: 0, status: 'paid' });
    expect(completed.payment_method).toEqual({ id: setup.payment_method, provider: 'stripe', card: { brand: 'visa', last4: '4242' }, exp_month: 12, exp_year: 2034, customer: setup.customer });
    const trialing = await subscriptionOf(subscriptionId);
    if (trialing.status === 'none') throw new Error('no subscription');
    expect(trialing.status).toBe('trialing');
    clock.set((trialing.current_period_end + 60) * 1000);
    await runDue(server.services, '', now());
    clock.set(Date.now());
    const after = await subscriptionOf(subscriptionId);
    expect(after.status).toBe('active');
    const charge = stripe.calls.find((c) => c.path === '/v1/payment_intents' && c.body.off_session === 'true' && c.body.payment_method === setup.payment_method);
    expect(charge?.body).toMatchObject({ customer: setup.customer, amount: '1900' });
  });

  it("completes a live trial's checkout from Stripe's setup_intent.succeeded when the page never settles it", async () => {
    const created = await post('/api/checkout/sessions', { offer: 'live-trial', mode: 'live' });
    const sessionId = ((await created.json()) as Body).session.id as string;
    const started = (await (await post(`/api/checkout/sessions/${sessionId}/payment-intent`, { email: 'closed-tab@example.com' })).json()) as Body;
    const setupId = started.payment_intent.id as string;
    expect(setupId).toMatch(/^seti_/);
    await stripe.confirm(setupId, '4242424242424242');
    const event = stripe.signedEvent(account, 'setup_intent.succeeded', stripe.setupIntent(setupId)!);
    const delivered = await server.fetch(`/webhooks/stripe/${organizationId}`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': event.signature }, body: event.body });
    expect(((await delivered.json()) as Body).outcome).toBe('paid');
    const completed = (await eventsOf(`checkout_session-${sessionId}`)).find((e) => e.type === 'CheckoutSessionCompleted')!;
    expect(completed.data.payment_method).toMatchObject({ id: stripe.setupIntent(setupId)!.payment_method, customer: stripe.setupIntent(setupId)!.customer });
  });

  it("cancels an expired trial session's SetupIntent in Stripe, as a PaymentIntent's", async () => {
    const created = await post('/api/checkout/sessions', { offer: 'live-trial', mode: 'live' });
    const sessionId = ((await created.json()) as Body).session.id as string;
    const started = (await (await post(`/api/checkout/sessions/${sessionId}/payment-intent`, { email: 'left@example.com' })).json()) as Body;
    const setupId = started.payment_intent.id as string;
    clock.advance(25 * 3600 * 1000);
    try {
      await expireSession(server.cliContext(organizationId), sessionId);
    } finally {
      clock.set(Date.now());
    }
    expect(await cancelVoidInvoicePayments(server.services, started.invoice.id)).toEqual([{ payment_intent_id: setupId, outcome: 'canceled', status: 'canceled' }]);
    expect(stripe.setupIntent(setupId)).toMatchObject({ status: 'canceled', cancellation_reason: 'abandoned' });
  });

  /**
   * A live subscription bought with `card` whose first renewal failed (billed a minute after its
   * period ends, then back to real time, so event webhooks are signed at a time receivers accept),
   * and a link to its hosted card page.
   */
  async function pastDueWith(email: string, card: string) {
    const { subscriptionId, completed } = await buy('live-monthly', email, card);
    const before = await subscriptionOf(subscriptionId);
    if (before.status === 'none') throw new Error('no subscription');
    clock.set((before.current_period_end + 60) * 1000);
    await runDue(server.services, '', now());
    clock.set(Date.now());
    const failed = await subscriptionOf(subscriptionId);
    if (failed.status !== 'past_due' || !failed.open_invoice || !failed.payment_method) throw new Error('not past due');
    const invoiceId = failed.open_invoice.id;
    const token = await issueBillingLink(server.services, { subscription_id: subscriptionId, invoice_id: invoiceId, organization_id: organizationId }, 'test');
    return { subscriptionId, invoiceId, token, method: completed.payment_method as Body, failed: { ...failed, payment_method: failed.payment_method } };
  }

  it('makes a renewal that needs authentication past_due, with the decline recorded and invoice.payment_failed sent', async () => {
    const { subscriptionId } = await pastDueWith('sca@example.com', '4000002760003184');
    const after = await subscriptionOf(subscriptionId);
    expect(after.status).toBe('past_due');
    const failed = (await eventsOf(subscriptionStream(subscriptionId))).find((e) => e.type === 'SubscriptionPaymentFailed')!;
    // A soft decline: retried on the ladder, as Stripe's dunning does.
    expect(failed.data).toMatchObject({ code: 'authentication_required', decline_code: 'authentication_required', hard: false, next_payment_attempt: expect.any(Number) });
    const invoiceId = failed.data.invoice_id as string;
    await expect
      .poll(() => receiver.calls.map((c) => verified(endpointSecret, c)).filter((b) => b.type === 'invoice.payment_failed' && b.data.object.id === invoiceId).length, { timeout: 20_000 })
      .toBe(1);
    const event = receiver.calls.map((c) => verified(endpointSecret, c)).find((b) => b.data.object.id === invoiceId)!;
    expect(event.data.object).toMatchObject({ subscription: subscriptionId, attempt_count: 1, attempts: [expect.objectContaining({ outcome: 'failed', decline_code: 'authentication_required' })] });
  });

  /** A subscription whose first renewal the bank refused without the buyer, and a link to its hosted card page. */
  const needingAuthentication = (email: string) => pastDueWith(email, '4000002760003184');

  const fromPage = (path: string, init: { body?: string; type?: string } = {}) =>
    server.fetch(path, { method: 'POST', headers: { origin: server.url, 'content-type': init.type ?? 'application/json' }, body: init.body ?? '{}' });

  it('lets the buyer confirm a renewal the bank held on the hosted page, and the subscription recovers', async () => {
    const { subscriptionId, invoiceId, token, method } = await needingAuthentication('confirm@example.com');
    const page = await server.fetch(`/billing/${token}`);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('id="authenticate"');
    expect(html).toContain(`src="${stripe.url}/v3/"`);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toMatch(new RegExp(`script-src 'nonce-[^']+' ${stripe.url}`));
    expect(csp).toContain(`frame-src ${stripe.url}`);

    // Another site cannot start it.
    expect((await server.fetch(`/billing/${token}/payment-intent`, { method: 'POST', headers: { origin: 'https://evil.example', 'content-type': 'application/json' }, body: '{}' })).status).toBe(403);
    const started = await fromPage(`/billing/${token}/payment-intent`);
    expect(started.status).toBe(200);
    const { client_secret: secret, publishable_key: key } = (await started.json()) as Body;
    expect(key).toBe(account.publishableKey);
    const intentId = String(secret).split('_secret_')[0]!;
    // The same PaymentIntent however often the page asks, for this attempt.
    expect(((await (await fromPage(`/billing/${token}/payment-intent`)).json()) as Body).client_secret).toBe(secret);
    const intent = stripe.paymentIntent(intentId)!;
    expect(intent).toMatchObject({ amount: 1900, payment_method: method.id, customer: method.customer, metadata: { invoice_id: invoiceId, subscription_id: subscriptionId, organization_id: organizationId } });
    expect(stripe.calls.find((c) => c.path === '/v1/payment_intents' && c.body['metadata[subscription_id]'] === subscriptionId)?.idempotencyKey).toBe(`commerce-${invoiceId}-confirm-2`);

    // Settled before the buyer confirmed: nothing is recorded.
    const early = await fromPage(`/billing/${token}/settle`, { body: '', type: 'application/x-www-form-urlencoded' });
    expect(early.status).toBe(409);
    expect((await subscriptionOf(subscriptionId)).status).toBe('past_due');

    await stripe.confirm(intentId, '');
    const settled = await fromPage(`/billing/${token}/settle`, { body: '', type: 'application/x-www-form-urlencoded' });
    expect(settled.status).toBe(200);
    expect(await settled.text()).toContain('Thank you, your subscription is active');
    const after = await subscriptionOf(subscriptionId);
    expect(after.status).toBe('active');
    const paid = (await eventsOf(subscriptionStream(subscriptionId))).find((e) => e.type === 'SubscriptionInvoicePaid')!;
    expect(paid.data).toMatchObject({ invoice_id: invoiceId, attempt: 2, charge_id: stripe.paymentIntent(intentId)!.latest_charge });
    await expect.poll(async () => (await eventsOf(`invoice-${invoiceId}`)).some((e) => e.type === 'InvoicePaid'), { timeout: 10_000 }).toBe(true);
    // A second press finds it paid, and changes nothing.
    const again = await fromPage(`/billing/${token}/settle`, { body: '', type: 'application/x-www-form-urlencoded' });
    expect(again.status).toBe(200);
    expect((await eventsOf(subscriptionStream(subscriptionId))).filter((e) => e.type === 'SubscriptionInvoicePaid')).toHaveLength(1);
  });

  it("refunds a ladder retry's charge when the buyer's confirmation on the page paid the invoice while it was in flight", async () => {
    const { subscriptionId, invoiceId, token, method } = await needingAuthentication('race@example.com');
    const started = await fromPage(`/billing/${token}/payment-intent`);
    const intentId = String(((await started.json()) as Body).client_secret).split('_secret_')[0]!;
    await stripe.confirm(intentId, '');
    // The bank now lets the retry through too; while it is in flight, the page records the buyer's payment.
    stripe.setOffSession(method.id as string, 'succeed');
    stripe.duringNextOffSessionCharge(method.id as string, async () => {
      const settled = await fromPage(`/billing/${token}/settle`, { body: '', type: 'application/x-www-form-urlencoded' });
      expect(settled.status).toBe(200);
    });
    const owed = await subscriptionOf(subscriptionId);
    if (owed.status === 'none' || !owed.open_invoice?.next_payment_attempt) throw new Error('no retry due');
    clock.set(owed.open_invoice.next_payment_attempt * 1000);
    await runDue(server.services, '', now());
    clock.set(Date.now());

    // The retry charged, keyed on its attempt.
    expect(stripe.calls.filter((c) => c.path === '/v1/payment_intents' && c.idempotencyKey === `${invoiceId}_a2`)).toHaveLength(1);
    const paid = (await eventsOf(subscriptionStream(subscriptionId))).filter((e) => e.type === 'SubscriptionInvoicePaid');
    expect(paid).toHaveLength(1);
    expect(paid[0]!.data.charge_id).toBe(stripe.paymentIntent(intentId)!.latest_charge);
    // The retry's own charge went back to the buyer, in full, once.
    const refunds = stripe.calls.filter((c) => c.idempotencyKey === `commerce-unowed-${invoiceId}_a2`);
    expect(refunds).toHaveLength(1);
    const retryCharge = String(refunds[0]!.body.charge);
    expect(retryCharge).not.toBe(paid[0]!.data.charge_id);
    expect(stripe.charge(retryCharge)).toMatchObject({ amount: 1900, amount_refunded: 1900 });
    expect((await subscriptionOf(subscriptionId)).status).toBe('active');
  });

  it("records the confirmed payment from Stripe's payment_intent.succeeded when the page never settles it", async () => {
    const { subscriptionId, invoiceId, token } = await needingAuthentication('webhook@example.com');
    const started = (await (await fromPage(`/billing/${token}/payment-intent`)).json()) as Body;
    const intentId = String(started.client_secret).split('_secret_')[0]!;
    await stripe.confirm(intentId, '');
    const event = stripe.signedEvent(account, 'payment_intent.succeeded', stripe.paymentIntent(intentId)!);
    const delivered = await server.fetch(`/webhooks/stripe/${organizationId}`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': event.signature }, body: event.body });
    expect(delivered.status).toBe(200);
    expect(((await delivered.json()) as Body).outcome).toBe('paid');
    expect((await subscriptionOf(subscriptionId)).status).toBe('active');
    const paid = (await eventsOf(subscriptionStream(subscriptionId))).filter((e) => e.type === 'SubscriptionInvoicePaid');
    expect(paid.map((e) => e.data.invoice_id)).toEqual([invoiceId]);
  });

  it('takes a new card on the live card page through a SetupIntent, and retries the open invoice with it at once', async () => {
    const { subscriptionId, invoiceId, token, failed } = await pastDueWith('newcard@example.com', '4000000000000341');
    const html = await (await server.fetch(`/billing/${token}`)).text();
    expect(html).toContain('id="new-card"');
    expect(html).not.toContain('id="authenticate"');

    const started = await fromPage(`/billing/${token}/setup-intent`);
    expect(started.status).toBe(200);
    const { id: setupId } = (await started.json()) as Body;
    expect(stripe.setupIntent(setupId)).toMatchObject({ usage: 'off_session', customer: failed.payment_method.customer, metadata: { subscription_id: subscriptionId, organization_id: organizationId } });
    const form = (setup: string) => fromPage(`/billing/${token}/card`, { body: new URLSearchParams({ setup_intent: setup }).toString(), type: 'application/x-www-form-urlencoded' });
    // Not confirmed yet, or not this subscription's: nothing changes.
    expect((await form(setupId)).status).toBe(409);
    expect((await form('seti_forged')).status).toBe(409);
    expect((await subscriptionOf(subscriptionId)).status).toBe('past_due');

    await stripe.confirm(setupId, '4242424242424242');
    const saved = await form(setupId);
    expect(saved.status).toBe(200);
    expect(await saved.text()).toContain('Thank you, your subscription is active');
    const after = await subscriptionOf(subscriptionId);
    if (after.status === 'none') throw new Error('no subscription');
    const newMethod = stripe.setupIntent(setupId)!.payment_method as string;
    expect(after.status).toBe('active');
    expect(after.payment_method).toMatchObject({ id: newMethod, provider: 'stripe', card: { brand: 'visa', last4: '4242' }, customer: failed.payment_method.customer });
    const retry = stripe.calls.find((c) => c.path === '/v1/payment_intents' && c.body.payment_method === newMethod)!;
    expect(retry.idempotencyKey).toBe(`${invoiceId}_a2`);
    expect(retry.body).toMatchObject({ off_session: 'true', customer: failed.payment_method.customer });
  });

  it('refunds a confirmed payment that arrives after the invoice was paid otherwise', async () => {
    const { subscriptionId, invoiceId, token } = await needingAuthentication('late@example.com');
    const started = (await (await fromPage(`/billing/${token}/payment-intent`)).json()) as Body;
    const intentId = String(started.client_secret).split('_secret_')[0]!;
    await stripe.confirm(intentId, '');
    // Meanwhile another charge paid the invoice (a retry of the ladder, say).
    const state = await subscriptionOf(subscriptionId);
    if (state.status === 'none' || !state.open_invoice) throw new Error('no open invoice');
    await handleCommand(server.cliContext(organizationId), subscriptionStream(subscriptionId), subscriptionDecider, {
      type: 'RecordPaymentSucceeded',
      invoiceId,
      attempt: state.open_invoice.attempt_count + 1,
      chargeId: 'ch_other',
      card: { brand: 'visa', last4: '3184' },
      now: now(),
    });
    const event = stripe.signedEvent(account, 'payment_intent.succeeded', stripe.paymentIntent(intentId)!);
    const delivered = await server.fetch(`/webhooks/stripe/${organizationId}`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': event.signature }, body: event.body });
    expect(((await delivered.json()) as Body).outcome).toMatch(/^ignored:invoice_(paid|closed):refunded$/);
    expect(stripe.charge(stripe.paymentIntent(intentId)!.latest_charge as string)).toMatchObject({ amount_refunded: 1900 });
    expect((await eventsOf(subscriptionStream(subscriptionId))).filter((e) => e.type === 'SubscriptionInvoicePaid').map((e) => e.data.charge_id)).toEqual(['ch_other']);
  });
});
