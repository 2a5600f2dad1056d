import Database from 'better-sqlite3';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectStripe, stripeSecrets } from '../../modules/payments/stripeAccountCommands.ts';
import { startFakeStripe, type FakeAccount, type FakeStripe } from '../helpers/fakeStripe.ts';
import { signedInPerson, type ManageClient } from '../helpers/manageClient.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { runCli } from '../helpers/serverProcess.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';
import { subscribe, verified, WEBHOOK_ENV } from '../webhooks/webhookFixtures.ts';
import { makeOffer } from '../checkout/checkoutFixtures.ts';

/*
 * Live payments through Stripe, with the official `stripe` package talking to a stand-in for
 * Stripe's API on loopback (test/helpers/fakeStripe.ts: these machines cannot reach Stripe) and
 * webhook events signed with the package's own generateTestHeaderString.
 */
describe('Stripe live payments', { timeout: 120_000 }, () => {
  let stripe: FakeStripe;
  let server: TestServer;
  const clock = manualClock();
  let owner: { client: ManageClient; organizationId: string };
  let account: FakeAccount;
  let offerSlug = '';
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let endpointSecret = '';

  beforeAll(async () => {
    stripe = await startFakeStripe();
    server = await startTestServer({ clock, env: { ...WEBHOOK_ENV, ...stripe.env, WEBHOOK_RETRY_BASE_MS: '50' } });
    owner = await signedInPerson(server);
    account = stripe.account();
    const put = await owner.client.json('PUT', '/manage/api/payments/stripe', { secret_key: account.secretKey, publishable_key: account.publishableKey, webhook_secret: account.webhookSecret });
    expect(put.status).toBe(200);
    offerSlug = (await makeOffer(server, owner.organizationId)).slug;
    receiver = await startReceiver();
    const endpoint = await subscribe(server, owner.organizationId, `${receiver.url}/hooks`, ['invoice.paid', 'invoice.refunded', 'invoice.disputed']);
    endpointSecret = endpoint.secret;
  }, 60_000);

  afterAll(async () => {
    await server?.close({ remove: true });
    await receiver?.close();
    await stripe?.close();
  });

  const post = (path: string, body: unknown) =>
    server.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

  async function liveSession(slug = offerSlug) {
    const created = await post('/api/checkout/sessions', { offer: slug, mode: 'live' });
    expect(created.status).toBe(201);
    const { session } = (await created.json()) as { session: { id: string } };
    const started = await post(`/api/checkout/sessions/${session.id}/payment-intent`, { email: 'buyer@example.com', name: 'Ada Buyer' });
    expect(started.status).toBe(200);
    const body = (await started.json()) as { invoice: { id: string; total: number }; payment_intent: { id: string; client_secret: string; publishable_key: string } };
    return { sessionId: session.id, invoiceId: body.invoice.id, total: body.invoice.total, pi: body.payment_intent };
  }

  const deliver = (organizationId: string, event: { body: string; signature: string }) =>
    server.fetch(`/webhooks/stripe/${organizationId}`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': event.signature }, body: event.body });

  /** Records the session's expiry as the expiry job would a day later (the clock goes back after). */
  async function expireNow(sessionId: string) {
    clock.advance(25 * 3600 * 1000);
    const { expireSession } = await import('../../modules/checkout/sessionCommands.ts');
    try {
      await expireSession(server.cliContext(owner.organizationId), sessionId);
    } finally {
      clock.advance(-25 * 3600 * 1000);
    }
  }

  const sessionOf = async (id: string) => ((await (await server.fetch(`/api/checkout/sessions/${id}`)).json()) as { session: { status: string } }).session;
  const invoiceEvents = async (invoiceId: string) => server.services.store.readStream(`invoice-${invoiceId}`);

  it('shows only the masked key, and keeps both secrets out of answers, events and the SQLite file', async () => {
    const got = await owner.client.json<Record<string, unknown>>('GET', '/manage/api/payments/stripe');
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ connected: true, mode: 'test', key_type: 'secret', secret_key: `sk_test_••••${account.secretKey.slice(-4)}`, publishable_key: account.publishableKey });
    expect(got.body.webhook_url).toBe(`${server.url}/webhooks/stripe/${owner.organizationId}`);
    const text = JSON.stringify(got.body);
    expect(text).not.toContain(account.secretKey);
    expect(text).not.toContain(account.webhookSecret);
    const events = await server.services.store.readAll({ after: null, limit: 100_000 });
    const connected = events.find((e) => e.type === 'StripeAccountConnected');
    expect(connected?.data).toMatchObject({ key_last4: account.secretKey.slice(-4), key_mode: 'test' });
    const log = JSON.stringify(events);
    expect(log).not.toContain(account.secretKey);
    expect(log).not.toContain(account.webhookSecret);
    // Encrypted at rest: neither secret, nor any long piece of them, is in the database files.
    const files = readdirSync(server.dataDir).filter((f) => f.startsWith('commerce.db'));
    const raw = Buffer.concat(files.map((f) => readFileSync(join(server.dataDir, f))));
    expect(raw.includes(account.secretKey.slice(8))).toBe(false);
    expect(raw.includes(account.webhookSecret.slice(6))).toBe(false);
    // Not even sealed in the log: the event names the credentials record, and the events table
    // holds neither sealed value (they live in the read store's stripe_credentials only).
    expect(connected?.data).not.toHaveProperty('sealed_secret_key');
    expect(connected?.data).not.toHaveProperty('sealed_webhook_secret');
    const credentialsId = (connected?.data as { credentials_id: string }).credentials_id;
    expect(credentialsId).toMatch(/^scr_/);
    const record = await server.services.stripeCredentials.get(owner.organizationId, credentialsId);
    expect(record?.sealed_secret_key).toMatch(/^v1\./);
    const db = new Database(join(server.dataDir, 'commerce.db'), { readonly: true });
    try {
      const rows = db.prepare('SELECT type, data, metadata FROM events').all() as Array<{ type: string; data: string; metadata: string }>;
      expect(rows.some((r) => r.type === 'StripeAccountConnected' && r.data.includes(credentialsId))).toBe(true);
      const table = rows.map((r) => r.data + r.metadata).join('\n');
      for (const sealed of [record!.sealed_secret_key, record!.sealed_webhook_secret]) {
        expect(table.includes(sealed)).toBe(false);
        // Nor its ciphertext part alone (the text after the IV and tag).
        expect(table.includes(sealed.split('.')[3]!)).toBe(false);
      }
      expect(table).not.toContain('sealed_');
    } finally {
      db.close();
    }
    // The sealing key, generated on first use beside the database, is the owner's alone.
    expect((statSync(join(server.dataDir, 'data-encryption-key')).mode & 0o777).toString(8)).toBe('600');
  });

  it('lets only owners connect, and refuses keys that are not Stripe keys', async () => {
    const member = await signedInPerson(server, { organizationId: owner.organizationId, role: 'member' });
    const other = stripe.account();
    const byMember = await member.client.json('PUT', '/manage/api/payments/stripe', { secret_key: other.secretKey, publishable_key: other.publishableKey, webhook_secret: other.webhookSecret });
    expect(byMember.status).toBe(403);
    expect((await member.client.json('GET', '/manage/api/payments/stripe')).status).toBe(200);
    const bad = await owner.client.json<{ errors: Record<string, string[]> }>('PUT', '/manage/api/payments/stripe', { secret_key: 'pk_test_notasecret1234', publishable_key: other.publishableKey, webhook_secret: other.webhookSecret });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.secret_key).toBeDefined();
  });

  it('refuses live mode in an organization without a connected account, saying what to configure', async () => {
    const stranger = await signedInPerson(server);
    const slug = (await makeOffer(server, stranger.organizationId)).slug;
    const refused = await post('/api/checkout/sessions', { offer: slug, mode: 'live' });
    expect(refused.status).toBe(422);
    const body = (await refused.json()) as { code: string; message: string };
    expect(body.code).toBe('live_mode_unavailable');
    expect(body.message).toMatch(/Stripe account.*\/manage\/api\/payments\/stripe.*commerce stripe connect/);
    // Test mode keeps the built-in provider.
    expect((await post('/api/checkout/sessions', { offer: slug, mode: 'test' })).status).toBe(201);
  });

  it('creates one PaymentIntent per invoice and attempt, for its amount and currency, with our ids in its metadata', async () => {
    const { sessionId, invoiceId, total, pi } = await liveSession();
    const intent = stripe.paymentIntent(pi.id)!;
    expect(intent).toMatchObject({ amount: total, currency: 'eur', metadata: { session_id: sessionId, invoice_id: invoiceId, organization_id: owner.organizationId } });
    expect(intent.automatic_payment_methods).toMatchObject({ enabled: true });
    expect(pi.publishable_key).toBe(account.publishableKey);
    expect(pi.client_secret).toBe(intent.client_secret);
    const create = stripe.calls.find((c) => c.method === 'POST' && c.path === '/v1/payment_intents' && c.body['metadata[invoice_id]'] === invoiceId);
    expect(create?.idempotencyKey).toBe(`commerce-${invoiceId}-attempt-1`);
    // Card numbers never come this way for a live session.
    const card = await post(`/api/checkout/sessions/${sessionId}/pay`, { email: 'buyer@example.com', card: { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' } });
    expect(card.status).toBe(409);
    expect(await card.json()).toMatchObject({ code: 'use_payment_element' });
    // Pressed again (a reload, a second tab): the same PaymentIntent, not a second one.
    const again = (await (await post(`/api/checkout/sessions/${sessionId}/payment-intent`, { email: 'buyer@example.com' })).json()) as { payment_intent: { id: string } };
    expect(again.payment_intent.id).toBe(pi.id);
    const recorded = (await invoiceEvents(invoiceId)).filter((e) => e.type === 'InvoicePaymentIntentCreated');
    expect(recorded).toHaveLength(1);
    // The client secret is for the browser only: never in an event.
    expect(JSON.stringify(await invoiceEvents(invoiceId))).not.toContain(pi.client_secret);
  });

  it('makes a new PaymentIntent for a repriced invoice, and cancels the one for the old amount', async () => {
    const { createCoupon, createPromotionCode } = await import('../../modules/discounts/discountCommands.ts');
    const ctx = server.cliContext(owner.organizationId);
    const { id: coupon } = await createCoupon(ctx, { organizationId: owner.organizationId, percent_off: 20, duration: 'once' });
    await createPromotionCode(ctx, { organizationId: owner.organizationId, coupon, code: 'LIVE20' });
    const { sessionId, invoiceId, total, pi } = await liveSession();
    const applied = await post(`/api/checkout/sessions/${sessionId}/start`, { discount_code: 'LIVE20' });
    const repriced = ((await applied.json()) as { invoice: { total: number } }).invoice.total;
    expect(repriced).toBe(total - Math.round(total * 0.2));
    const again = (await (await post(`/api/checkout/sessions/${sessionId}/payment-intent`, { email: 'buyer@example.com' })).json()) as { payment_intent: { id: string } };
    expect(again.payment_intent.id).not.toBe(pi.id);
    expect(stripe.paymentIntent(again.payment_intent.id)).toMatchObject({ amount: repriced, metadata: { invoice_id: invoiceId } });
    expect(stripe.paymentIntent(pi.id)?.status).toBe('canceled');
    // Paid on the buyer's return: the redemption subscriber counts it (the settle itself does not).
    stripe.succeed(again.payment_intent.id);
    const settled = await post(`/api/checkout/sessions/${sessionId}/payment-intent/settle`, {});
    expect(((await settled.json()) as { invoice: { total: number; status: string } }).invoice).toMatchObject({ status: 'paid', total: repriced });
    const redeemed = async () => (await server.services.store.readAll({ after: null, limit: 1_000_000 })).filter((e) => e.type === 'CouponRedeemed' && JSON.stringify(e.data).includes(sessionId));
    await expect.poll(async () => (await redeemed()).length, { timeout: 20_000 }).toBe(1);
  });

  it('pays from a signed payment_intent.succeeded, once, whatever is delivered again or late', async () => {
    const { sessionId, invoiceId, pi } = await liveSession();
    const intent = stripe.succeed(pi.id, { brand: 'mastercard', last4: '4444' });
    const event = stripe.signedEvent(account, 'payment_intent.succeeded', intent);
    const first = await deliver(owner.organizationId, event);
    expect(first.status).toBe(200);
    expect(await first.json()).toMatchObject({ received: true, outcome: 'paid' });
    expect((await sessionOf(sessionId)).status).toBe('completed');
    const paid = (await invoiceEvents(invoiceId)).filter((e) => e.type === 'InvoicePaid');
    expect(paid).toHaveLength(1);
    expect(paid[0]!.data).toMatchObject({ attempt_id: pi.id, charge_id: intent.latest_charge, provider: 'stripe', card: { brand: 'mastercard', last4: '4444' } });
    // The same event again: recognised by its id.
    expect(await (await deliver(owner.organizationId, event)).json()).toMatchObject({ received: true, duplicate: true });
    // Another event about the same payment (Stripe resends under a new id, or a payment_failed arrives late).
    const late = await deliver(owner.organizationId, stripe.signedEvent(account, 'payment_intent.payment_failed', intent));
    expect(late.status).toBe(200);
    expect((await invoiceEvents(invoiceId)).filter((e) => e.type === 'InvoicePaid')).toHaveLength(1);
    expect((await sessionOf(sessionId)).status).toBe('completed');
    // The event webhook of the sale.
    await expect.poll(() => receiver.calls.some((c) => verified(endpointSecret, c).type === 'invoice.paid' && verified(endpointSecret, c).data.object.id === invoiceId), { timeout: 20_000 }).toBe(true);
  });

  it('pays on the buyer\'s return by retrieving the PaymentIntent from Stripe', async () => {
    const { sessionId, invoiceId, pi } = await liveSession();
    const before = await post(`/api/checkout/sessions/${sessionId}/payment-intent/settle`, {});
    expect(before.status).toBe(202);
    expect((await sessionOf(sessionId)).status).toBe('open');
    stripe.succeed(pi.id);
    const settled = await post(`/api/checkout/sessions/${sessionId}/payment-intent/settle`, {});
    expect(settled.status).toBe(200);
    expect(await settled.json()).toMatchObject({ session: { status: 'completed' }, invoice: { id: invoiceId, status: 'paid' }, payment: { brand: 'visa', last4: '4242' } });
    // The webhook that follows changes nothing.
    const event = stripe.signedEvent(account, 'payment_intent.succeeded', stripe.paymentIntent(pi.id)!);
    expect(await (await deliver(owner.organizationId, event)).json()).toMatchObject({ outcome: 'paid' });
    expect((await invoiceEvents(invoiceId)).filter((e) => e.type === 'InvoicePaid')).toHaveLength(1);
  });

  it('answers 400 to a bad signature, and another organization\'s secret cannot pay this one\'s invoice', async () => {
    const { sessionId, pi } = await liveSession();
    const intent = stripe.succeed(pi.id);
    const event = stripe.signedEvent(account, 'payment_intent.succeeded', intent);
    const tampered = await deliver(owner.organizationId, { body: event.body.replace('"livemode": false', '"livemode": true'), signature: event.signature });
    expect(tampered.status).toBe(400);
    expect(await tampered.json()).toMatchObject({ code: 'invalid_signature' });
    expect((await deliver(owner.organizationId, { body: event.body, signature: 't=1,v1=00' })).status).toBe(400);
    expect((await server.fetch(`/webhooks/stripe/${owner.organizationId}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: event.body })).status).toBe(400);

    // A second organization with its own Stripe account: its secret signs, but only for its own endpoint.
    const other = await signedInPerson(server);
    const otherAccount = stripe.account();
    await connectStripe(server.cliContext(other.organizationId), stripeSecrets(server.services), {
      organizationId: other.organizationId,
      secretKey: otherAccount.secretKey,
      publishableKey: otherAccount.publishableKey,
      webhookSecret: otherAccount.webhookSecret,
    });
    const forged = stripe.signedEvent(otherAccount, 'payment_intent.succeeded', intent);
    expect((await deliver(owner.organizationId, forged)).status).toBe(400);
    // At its own endpoint it verifies, but the PaymentIntent is not its account's: nothing is paid.
    const there = await deliver(other.organizationId, forged);
    expect(there.status).toBe(200);
    expect(await there.json()).toMatchObject({ outcome: 'ignored:unknown_payment' });
    expect((await sessionOf(sessionId)).status).toBe('open');
    // An unknown organization answers as a bad signature does.
    expect((await deliver('org_unknown', event)).status).toBe(400);
  });

  it('never pays nor reopens an expired session\'s invoice when its payment is reported late', async () => {
    const { sessionId, invoiceId, pi } = await liveSession();
    await expireNow(sessionId);
    const intent = stripe.succeed(pi.id);
    const late = await deliver(owner.organizationId, stripe.signedEvent(account, 'payment_intent.succeeded', intent));
    expect(late.status).toBe(200);
    expect(await late.json()).toMatchObject({ outcome: 'ignored:invoice_void:refunded' });
    expect((await invoiceEvents(invoiceId)).map((e) => e.type)).not.toContain('InvoicePaid');
    expect((await sessionOf(sessionId)).status).toBe('expired');
    // Nothing was bought with it: the money goes back, once, however often Stripe reports it.
    expect(stripe.charge(intent.latest_charge as string)).toMatchObject({ amount_refunded: intent.amount, refunded: true });
    await deliver(owner.organizationId, stripe.signedEvent(account, 'payment_intent.succeeded', intent));
    expect(await (await post(`/api/checkout/sessions/${sessionId}/payment-intent/settle`, {})).json()).toMatchObject({ status: 'void' });
    const keys = stripe.calls.filter((c) => c.path === '/v1/refunds' && c.body.payment_intent === pi.id).map((c) => c.idempotencyKey);
    expect(keys.length).toBeGreaterThanOrEqual(2);
    expect(new Set(keys)).toEqual(new Set([`commerce-unowed-${pi.id}`]));
    expect(stripe.charge(intent.latest_charge as string)).toMatchObject({ amount_refunded: intent.amount });
    const returned = (await invoiceEvents(invoiceId)).filter((e) => e.type === 'InvoiceUnowedPaymentRefunded');
    expect(returned).toHaveLength(1);
    expect(returned[0]!.data).toMatchObject({ payment_intent_id: pi.id, amount: intent.amount, reason: 'invoice_void' });
  });

  it("cancels an expired live session's PaymentIntent in Stripe, once, so the buyer's open page can no longer pay it", async () => {
    const { sessionId, invoiceId, pi } = await liveSession();
    await expireNow(sessionId);
    await expect.poll(() => stripe.paymentIntent(pi.id)?.status, { timeout: 20_000 }).toBe('canceled');
    expect(stripe.paymentIntent(pi.id)).toMatchObject({ cancellation_reason: 'abandoned' });
    const cancelKeys = () => stripe.calls.filter((c) => c.path === `/v1/payment_intents/${pi.id}/cancel`).map((c) => c.idempotencyKey);
    expect(cancelKeys()).toEqual([`commerce-${invoiceId}-cancel-${pi.id}`]);
    // The Payment Element still on the buyer's screen confirms: Stripe refuses.
    const confirm = await fetch(`${stripe.url}/v1/payment_intents/${pi.id}/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_secret: pi.client_secret, key: pi.publishable_key, 'payment_method_data[type]': 'card', 'payment_method_data[card][number]': '4242424242424242' }),
    });
    expect(confirm.status).toBe(400);
    expect(await confirm.json()).toMatchObject({ error: { code: 'payment_intent_unexpected_state' } });
    // Asked again (a restart before the checkpoint moved): the same key, so Stripe answers as the first time.
    const { cancelVoidInvoicePayments } = await import('../../modules/payments/livePayments.ts');
    expect(await cancelVoidInvoicePayments(server.services, invoiceId)).toEqual([{ payment_intent_id: pi.id, outcome: 'canceled', status: 'canceled' }]);
    expect(new Set(cancelKeys())).toEqual(new Set([`commerce-${invoiceId}-cancel-${pi.id}`]));
    // A session still open keeps its PaymentIntent.
    const open = await liveSession();
    expect(await cancelVoidInvoicePayments(server.services, open.invoiceId)).toEqual([]);
    expect(stripe.paymentIntent(open.pi.id)?.status).toBe('requires_payment_method');
  });

  it('refunds in part and in full through Stripe, records dashboard refunds and disputes from webhooks, and announces them', async () => {
    const { sessionId, invoiceId, total, pi } = await liveSession();
    const intent = stripe.succeed(pi.id);
    await deliver(owner.organizationId, stripe.signedEvent(account, 'payment_intent.succeeded', intent));
    const chargeId = intent.latest_charge as string;

    const partial = await owner.client.json<Record<string, unknown>>('POST', `/manage/api/invoices/${invoiceId}/refunds`, { amount: 500 });
    expect(partial.status).toBe(200);
    expect(partial.body).toMatchObject({ invoice_id: invoiceId, amount: 500, amount_refunded: 500, fully_refunded: false, currency: 'EUR' });
    expect(stripe.charge(chargeId)).toMatchObject({ amount_refunded: 500 });
    const refundCall = stripe.calls.filter((c) => c.path === '/v1/refunds').at(-1)!;
    expect(refundCall.body).toMatchObject({ payment_intent: pi.id, amount: '500' });
    expect(refundCall.idempotencyKey).toBe(`commerce-refund-${invoiceId}-0-500`);

    // Stripe's charge.refunded for that same refund: already counted.
    const echoed = await deliver(owner.organizationId, stripe.signedEvent(account, 'charge.refunded', stripe.charge(chargeId)!));
    expect(await echoed.json()).toMatchObject({ outcome: 'refund_known' });
    // One made in Stripe's dashboard: recorded from the webhook.
    stripe.refundInDashboard(chargeId, 300);
    const dashboard = await deliver(owner.organizationId, stripe.signedEvent(account, 'charge.refunded', stripe.charge(chargeId)!));
    expect(await dashboard.json()).toMatchObject({ outcome: 'refund_recorded' });

    const tooMuch = await owner.client.json('POST', `/manage/api/invoices/${invoiceId}/refunds`, { amount: total });
    expect(tooMuch.status).toBe(422);
    const rest = await owner.client.json<Record<string, unknown>>('POST', `/manage/api/invoices/${invoiceId}/refunds`, {});
    expect(rest.body).toMatchObject({ amount: total - 800, amount_refunded: total, fully_refunded: true });
    expect((await owner.client.json('POST', `/manage/api/invoices/${invoiceId}/refunds`, {})).status).toBe(409);

    const dispute = { id: 'dp_1TestDispute', object: 'dispute', amount: total, currency: 'eur', charge: chargeId, payment_intent: pi.id, reason: 'fraudulent', status: 'needs_response', created: 1, livemode: false };
    const disputed = stripe.signedEvent(account, 'charge.dispute.created', dispute);
    expect(await (await deliver(owner.organizationId, disputed)).json()).toMatchObject({ outcome: 'dispute_recorded' });
    expect(await (await deliver(owner.organizationId, disputed)).json()).toMatchObject({ duplicate: true });

    const refunds = (await invoiceEvents(invoiceId)).filter((e) => e.type === 'InvoiceRefunded').map((e) => (e.data as { amount: number }).amount);
    expect(refunds).toEqual([500, 300, total - 800]);
    expect((await invoiceEvents(invoiceId)).filter((e) => e.type === 'InvoiceDisputed')).toHaveLength(1);

    // The session's history (the manage detail) shows them; the session stays completed.
    const detail = await owner.client.json<{ status: string; history: Array<{ type: string; state: { invoice: { amount_refunded?: number; status: string } } }> }>('GET', `/manage/api/checkout/sessions/${sessionId}`);
    expect(detail.body.status).toBe('completed');
    const types = detail.body.history.map((h) => h.type);
    expect(types.filter((t) => t === 'InvoiceRefunded')).toHaveLength(3);
    expect(types).toContain('InvoiceDisputed');
    expect(detail.body.history.at(-1)!.state.invoice).toMatchObject({ status: 'paid', amount_refunded: total });

    const announced = async (type: string) => receiver.calls.map((c) => verified(endpointSecret, c)).filter((b) => b.type === type && b.data.object.id === invoiceId);
    await expect.poll(async () => (await announced('invoice.refunded')).length, { timeout: 20_000 }).toBe(3);
    expect((await announced('invoice.refunded'))[0]!.data.object.refund).toMatchObject({ amount: 500, amount_refunded: 500, charge_id: chargeId, fully_refunded: false });
    await expect.poll(async () => (await announced('invoice.disputed')).length, { timeout: 20_000 }).toBe(1);
    expect((await announced('invoice.disputed'))[0]!.data.object.dispute).toMatchObject({ id: 'dp_1TestDispute', reason: 'fraudulent', charge_id: chargeId });
  });

  it('lets the hosted page load Stripe.js only for live sessions of an organization with Stripe', async () => {
    const live = await server.fetch(`/checkout/${offerSlug}?mode=live`);
    const csp = live.headers.get('content-security-policy')!;
    expect(csp).toMatch(new RegExp(`script-src 'nonce-[^']+' ${stripe.url}(;|$)`));
    expect(csp).toContain(`frame-src ${stripe.url}`);
    expect(await live.text()).toContain(`<script src="${stripe.url}/v3/"`);
    const test = await server.fetch(`/checkout/${offerSlug}?mode=test`);
    expect(test.headers.get('content-security-policy')).not.toContain(stripe.url);
    expect(await test.text()).not.toContain(stripe.url);
  });
});

/*
 * The CLI runs as its own process on the data directory; the server is stopped around each run so
 * the two never hold the SQLite file at once in this test.
 */
describe('Stripe from the CLI', { timeout: 120_000 }, () => {
  let stripe: FakeStripe;
  let server: TestServer;

  beforeAll(async () => {
    stripe = await startFakeStripe();
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000', ...stripe.env } });
  }, 60_000);
  afterAll(async () => {
    await server?.close({ remove: true });
    await stripe?.close();
  });

  async function cli(args: string[]) {
    const dataDir = server.dataDir;
    await server.close();
    const run = await runCli(args, { DATA_DIR: dataDir, ...stripe.env });
    server = await startTestServer({ dataDir, env: { CHECKOUT_RATE_LIMIT: '10000', ...stripe.env } });
    return run;
  }

  it('connects, refunds and disconnects without printing a secret', async () => {
    const org = await server.identity('CLI shop');
    const account = stripe.account();
    const slug = (await makeOffer(server, org.organizationId)).slug;
    const connect = await cli(['stripe', 'connect', '--org', org.organizationId, '--secret-key', account.secretKey, '--publishable-key', account.publishableKey, '--webhook-secret', account.webhookSecret]);
    expect(connect.code, connect.stderr).toBe(0);
    expect(connect.stdout).toContain(`sk_test_••••${account.secretKey.slice(-4)}`);
    expect(connect.stdout + connect.stderr).not.toContain(account.secretKey);
    expect(connect.stdout + connect.stderr).not.toContain(account.webhookSecret);

    const post = (path: string, body: unknown) => server.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const created = (await (await post('/api/checkout/sessions', { offer: slug, mode: 'live' })).json()) as { session: { id: string } };
    const started = (await (await post(`/api/checkout/sessions/${created.session.id}/payment-intent`, { email: 'cli@example.com' })).json()) as { invoice: { id: string }; payment_intent: { id: string } };
    const event = stripe.signedEvent(account, 'payment_intent.succeeded', stripe.succeed(started.payment_intent.id));
    const paid = await server.fetch(`/webhooks/stripe/${org.organizationId}`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': event.signature }, body: event.body });
    expect(paid.status).toBe(200);

    // A refund goes through the running service, which holds the Stripe keys: none in the CLI's environment.
    const refundCli = (args: string[]) => runCli(args, { DATA_DIR: server.dataDir, BASE_URL: server.url, COMMERCE_API_KEY: org.token });
    const refund = await refundCli(['refund', '--invoice', started.invoice.id, '--amount-minor', '250', '--json']);
    expect(refund.code, refund.stderr).toBe(0);
    expect(JSON.parse(refund.stdout)).toMatchObject({ amount: 250, amount_refunded: 250, fully_refunded: false });
    const bad = await refundCli(['refund', '--invoice', started.invoice.id, '--amount', '12.505']);
    expect(bad.code).toBe(2);

    const disconnect = await cli(['stripe', 'disconnect', '--org', org.organizationId]);
    expect(disconnect.code, disconnect.stderr).toBe(0);
    expect(disconnect.stdout).toContain('Stripe not connected');
    expect((await post('/api/checkout/sessions', { offer: slug, mode: 'live' })).status).toBe(422);
  });
});

describe('the data encryption key', () => {
  it('is not written into a data directory where no Stripe account is ever connected', async () => {
    const server = await startTestServer();
    try {
      const org = await server.identity();
      const slug = (await makeOffer(server, org.organizationId)).slug;
      expect((await server.fetch(`/checkout/${slug}?mode=live`)).status).toBe(200);
      expect((await server.fetch('/api/checkout/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ offer: slug, mode: 'live' }) })).status).toBe(422);
      expect(readdirSync(server.dataDir)).not.toContain('data-encryption-key');
    } finally {
      await server.close({ remove: true });
    }
  });
});

describe('Stripe credentials sealed under another key', { timeout: 60_000 }, () => {
  it('are refused with a message saying to connect again, never a 500', async () => {
    const stripe = await startFakeStripe();
    let server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000', ...stripe.env } });
    try {
      const org = await server.identity('Moved shop');
      const account = stripe.account();
      await connectStripe(server.cliContext(org.organizationId), stripeSecrets(server.services), {
        organizationId: org.organizationId,
        secretKey: account.secretKey,
        publishableKey: account.publishableKey,
        webhookSecret: account.webhookSecret,
      });
      const slug = (await makeOffer(server, org.organizationId)).slug;
      // A live session with its PaymentIntent, made while the credentials could be read.
      const json = { 'content-type': 'application/json' };
      const open = (await (await server.fetch('/api/checkout/sessions', { method: 'POST', headers: json, body: JSON.stringify({ offer: slug, mode: 'live' }) })).json()) as { session: { id: string } };
      const started = await server.fetch(`/api/checkout/sessions/${open.session.id}/payment-intent`, { method: 'POST', headers: json, body: JSON.stringify({ email: 'buyer@example.com' }) });
      const { invoice } = (await started.json()) as { invoice: { id: string } };
      const dataDir = server.dataDir;
      await server.close();
      // The same log under another DATA_ENCRYPTION_KEY (a copy to another data directory, say).
      const clock = manualClock();
      server = await startTestServer({ dataDir, clock, env: { CHECKOUT_RATE_LIMIT: '10000', DATA_ENCRYPTION_KEY: 'ab'.repeat(32), ...stripe.env } });
      // Its expiry cannot cancel the PaymentIntent (the keys cannot be opened): said, and not retried forever.
      clock.advance(25 * 3600 * 1000);
      const { expireSession } = await import('../../modules/checkout/sessionCommands.ts');
      await expireSession(server.cliContext(org.organizationId), open.session.id);
      const { cancelVoidInvoicePayments } = await import('../../modules/payments/livePayments.ts');
      const [outcome] = await cancelVoidInvoicePayments(server.services, invoice.id);
      expect(outcome).toMatchObject({ outcome: 'refused', message: expect.stringMatching(/connect the Stripe account again/) });
      const voided = (await server.services.store.readStream(`invoice-${invoice.id}`)).find((e) => e.type === 'InvoiceVoided')!;
      await expect.poll(() => server.services.readStore.readCheckpoint('job:void-invoice-payments'), { timeout: 20_000 }).toBeGreaterThanOrEqual(voided.position);
      expect(stripe.calls.filter((c) => c.path.endsWith('/cancel'))).toEqual([]);
      const post = (path: string, body: string, headers: Record<string, string> = {}) =>
        server.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
      const created = (await (await post('/api/checkout/sessions', JSON.stringify({ offer: slug, mode: 'live' }))).json()) as { session: { id: string } };
      const refused = await post(`/api/checkout/sessions/${created.session.id}/payment-intent`, '{}');
      expect(refused.status).toBe(409);
      expect(await refused.json()).toMatchObject({ code: 'stripe_credentials_unreadable', message: expect.stringMatching(/connect the Stripe account again/) });
      const event = stripe.signedEvent(account, 'payment_intent.succeeded', { id: 'pi_x', object: 'payment_intent' });
      expect((await post(`/webhooks/stripe/${org.organizationId}`, event.body, { 'stripe-signature': event.signature })).status).toBe(400);
    } finally {
      await server.close({ remove: true });
      await stripe.close();
    }
  });
});
