import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createUser } from '../../modules/identity/identityCommands.ts';
import { startFakeStripe, type FakeStripe } from '../helpers/fakeStripe.ts';
import { runCli } from '../helpers/serverProcess.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { signedInPerson, type ManageClient } from '../helpers/manageClient.ts';
import { GOOD_CARD, json, makeOffer } from '../checkout/checkoutFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** `commerce refund` through the running service: money in and out as money, the service's errors as it says them. */
describe('commerce refund', { timeout: 120_000 }, () => {
  let stripe: FakeStripe;
  let server: TestServer;
  let owner: { client: ManageClient; organizationId: string };
  let token = '';

  beforeAll(async () => {
    stripe = await startFakeStripe();
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000', ...stripe.env } });
    owner = await signedInPerson(server);
    const user = await createUser(server.cliContext(owner.organizationId), { email: `cli-${owner.organizationId}@example.com`, organizationId: owner.organizationId, role: 'owner' });
    token = (await createApiKey(server.cliContext(owner.organizationId), { userId: user.id, organizationId: owner.organizationId })).token;
    await server.settle();
  }, 60_000);
  afterAll(async () => {
    await server?.close({ remove: true });
    await stripe?.close();
  });

  // No Stripe settings in the CLI's environment: only the service has them.
  const cli = (args: string[], key = token) => runCli(args, { DATA_DIR: server.dataDir, BASE_URL: server.url, ...(key ? { COMMERCE_API_KEY: key } : {}) });

  async function paidTestInvoice(amount: number) {
    const offer = await makeOffer(server, owner.organizationId, { content: { plan: { product_id: crypto.randomUUID(), plan_id: 'p', plan_name: 'p', charges: [{ id: 'c1', name: 'Item', amount }] } } });
    const created = (await (await server.fetch('/api/checkout/sessions', json({ offer: offer.slug }))).json()) as Body;
    const paid = (await (await server.fetch(`/api/checkout/sessions/${created.session.id}/pay`, json({ card: GOOD_CARD, email: 'cli@example.com' }))).json()) as Body;
    return paid.invoice as { id: string; number: number };
  }

  it('takes --amount in major units and prints money as money, with the credit note', async () => {
    const invoice = await paidTestInvoice(500);
    const part = await cli(['refund', '--invoice', invoice.id, '--amount', '1.00']);
    expect(part.code, part.stderr).toBe(0);
    expect(part.stdout.trim()).toBe(`Refunded €1.00 of €5.00 on invoice #${invoice.number} (${invoice.id}): €1.00 refunded in all. Credit note CN-0001.`);
    const minor = await cli(['refund', '--invoice', invoice.id, '--amount-minor', '150', '--json']);
    expect(minor.code, minor.stderr).toBe(0);
    expect(JSON.parse(minor.stdout)).toMatchObject({ amount: 150, amount_refunded: 250, refund_status: 'partially_refunded', credit_note: { number: 'CN-0002' }, invoice_number: invoice.number });
    const rest = await cli(['refund', '--invoice', invoice.id]);
    expect(rest.stdout.trim()).toBe(`Refunded €2.50 of €5.00 on invoice #${invoice.number} (${invoice.id}): refunded in full. Credit note CN-0003.`);
    // The CLI's own list says so too.
    await server.settle();
    const list = await cli(['session', 'list', '--org', owner.organizationId]);
    const row = list.stdout.split('\n').find((line) => line.includes(`#${invoice.number} paid`))!;
    expect(row).toMatch(/\brefunded\b.*€5\.00 \(€5\.00 refunded\)/);
  });

  it('refuses amounts it cannot read, and says what the service refused', async () => {
    const invoice = await paidTestInvoice(1900);
    const tooPrecise = await cli(['refund', '--invoice', invoice.id, '--amount', '1.005']);
    expect(tooPrecise.code).toBe(2);
    expect(tooPrecise.stderr).toContain('--amount is in EUR with up to 2 decimals');
    expect((await cli(['refund', '--invoice', invoice.id, '--amount', '1', '--amount-minor', '100'])).code).toBe(2);
    const tooMuch = await cli(['refund', '--invoice', invoice.id, '--amount', '20.00', '--json']);
    expect(tooMuch.code).toBe(1);
    expect(JSON.parse(tooMuch.stderr)).toMatchObject({ code: 'invalid_refund_amount' });
    const noKey = await cli(['refund', '--invoice', invoice.id], '');
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toContain('COMMERCE_API_KEY');
    const unknown = await cli(['refund', '--invoice', 'in_nope', '--json']);
    expect(JSON.parse(unknown.stderr)).toMatchObject({ code: 'not_found' });
  });

  it('answers payment_provider_error at once when Stripe cannot be reached, and the CLI prints it', async () => {
    const account = stripe.account();
    const put = await owner.client.json('PUT', '/manage/api/payments/stripe', { secret_key: account.secretKey, publishable_key: account.publishableKey, webhook_secret: account.webhookSecret });
    expect(put.status).toBe(200);
    const slug = (await makeOffer(server, owner.organizationId)).slug;
    const created = (await (await server.fetch('/api/checkout/sessions', json({ offer: slug, mode: 'live' }))).json()) as Body;
    const started = (await (await server.fetch(`/api/checkout/sessions/${created.session.id}/payment-intent`, json({ email: 'live@example.com' }))).json()) as Body;
    const event = stripe.signedEvent(account, 'payment_intent.succeeded', stripe.succeed(started.payment_intent.id));
    const paid = await server.fetch(`/webhooks/stripe/${owner.organizationId}`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': event.signature }, body: event.body });
    expect(paid.status).toBe(200);

    await stripe.close();
    const began = Date.now();
    const refused = await server.fetch(`/api/invoices/${started.invoice.id}/refunds`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"amount":100}', token });
    expect(refused.status).toBe(502);
    expect(await refused.json()).toEqual({ message: 'The payment provider could not complete the request. Try again shortly.', code: 'payment_provider_error' });
    expect(Date.now() - began).toBeLessThan(10_000);
    const printed = await cli(['refund', '--invoice', started.invoice.id, '--amount', '1.00']);
    expect(printed.code).toBe(1);
    expect(printed.stderr.trim()).toBe('commerce: The payment provider could not complete the request. Try again shortly.');
    const asJson = await cli(['refund', '--invoice', started.invoice.id, '--json']);
    expect(JSON.parse(asJson.stderr)).toMatchObject({ code: 'payment_provider_error' });
    // Nothing was refunded or issued.
    const invoice = (await (await server.fetch(`/api/invoices/${started.invoice.id}`, { token })).json()) as Body;
    expect(invoice).toMatchObject({ amount_refunded: 0, refund_status: null });
  });
});
