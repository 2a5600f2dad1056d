import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTaxRate, loadStarterRates, updateTaxSettings } from '../../modules/tax/index.ts';
import { organizationDecider, organizationStream } from '../../modules/identity/index.ts';
import { handleCommand } from '../../platform/es/index.ts';
import { runImport } from '../../app/import/importFile.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { GOOD_CARD, json, makeOffer } from './checkoutFixtures.ts';
import { createCoupon, createPromotionCode } from '../../modules/discounts/discountCommands.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { signedInPerson } from '../helpers/manageClient.ts';
import { subscribe, verified, WEBHOOK_ENV } from '../webhooks/webhookFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('the tax at checkout', () => {
  let server: TestServer;
  let offerSlug = '';
  let organizationId = '';
  let inclusiveSlug = '';
  beforeAll(async () => {
    server = await startTestServer({ env: WEBHOOK_ENV });
    const org = await server.identity();
    organizationId = org.organizationId;
    const ctx = server.cliContext(org.organizationId);
    // A seller in Germany, collecting VAT at the EU standard rates, prices exclusive of tax.
    await handleCommand(ctx, organizationStream(org.organizationId), organizationDecider, {
      type: 'UpdateOrganization',
      name: 'Seller',
      timezone: 'UTC',
      address: { line1: 'Street 1', line2: null, postal_code: '10115', city: 'Berlin', region: null, country: 'DE' },
      vat_number: 'DE123456789',
      now: ctx.metadata.occurred_at,
    });
    await updateTaxSettings(ctx, { organizationId: org.organizationId, enabled: true, default_tax_behavior: 'exclusive' });
    await loadStarterRates(ctx, { organizationId: org.organizationId });
    await createTaxRate(ctx, { organizationId: org.organizationId, rate: { display_name: 'TVA Corse', description: null, percentage: 13, country: 'FR', state: null, postal_code_prefix: '20', jurisdiction: null, active: true } });
    const { id } = await createCoupon(ctx, { organizationId: org.organizationId, percent_off: 10, duration: 'once' });
    await createPromotionCode(ctx, { organizationId: org.organizationId, coupon: id, code: 'TEN' });
    offerSlug = (await makeOffer(server, org.organizationId)).slug;
    // A plan priced with its VAT included, as EU consumer prices are.
    await runImport(
      { command: ctx, organizationId: org.organizationId, catchUp: () => server.settle() },
      {
        products: [{ key: 'book', published: true, plans: [{ name: 'once', display_name: 'Book', type: 'one_time', currency_code: 'EUR', tax_behavior: 'inclusive', charges: [{ amount: 1190 }] }] }],
        offers: [{ slug: `book-${org.organizationId.slice(-6).toLowerCase()}`, name: 'Book', product: 'book', plan: 'once', theme: { primary_color: '#335577' }, pages: [{ id: 'pay', type: 'checkout', title: 'Book' }], published: true }],
      },
    );
    inclusiveSlug = `book-${org.organizationId.slice(-6).toLowerCase()}`;
  });
  afterAll(() => server.close({ remove: true }));

  const post = async (path: string, body: unknown) => {
    const response = await server.fetch(path, json(body));
    return { status: response.status, body: (await response.json()) as Body };
  };
  const newSession = async () => (await post('/api/checkout/sessions', { offer: offerSlug })).body.session.id as string;

  it('asks for the country before paying, and charges nothing without it', async () => {
    const id = await newSession();
    const refused = await post(`/api/checkout/sessions/${id}/pay`, { email: 'a@example.com', card: GOOD_CARD });
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ code: 'country_required', errors: { 'customer_details.address.country': [expect.any(String)] } });
    const paid = await post(`/api/checkout/sessions/${id}/pay`, { email: 'a@example.com', card: GOOD_CARD, customer_details: { address: { country: 'de' } } });
    expect(paid.status).toBe(200);
    // 1900 + 500 at 19% on each line: 361 + 95.
    expect(paid.body.invoice).toMatchObject({
      status: 'paid',
      subtotal: 2400,
      tax: 456,
      total: 2856,
      total_tax_amounts: [{ amount: 456, inclusive: false, percentage: 19, taxability_reason: 'standard_rated', taxable_amount: 2400, tax_rate: { country: 'DE' } }],
      customer_details: { address: { country: 'DE' }, tax_exempt: 'none' },
    });
  });

  it('prices the discount before the tax, and follows a change of country on the open invoice', async () => {
    const id = await newSession();
    const fr = await post(`/api/checkout/sessions/${id}/start`, { discount_code: 'TEN', customer_details: { address: { country: 'FR', postal_code: '75001' } } });
    expect(fr.status).toBe(200);
    // 2400 less 10% (190 + 50) = 2160, French VAT 20% on each line: 342 + 90.
    expect(fr.body.session).toMatchObject({ amount_subtotal: 2400, total: 2592, total_details: { amount_discount: 240, amount_tax: 432 } });
    expect(fr.body.invoice).toMatchObject({ total: 2592, tax: 432 });
    const missingPostal = await post(`/api/checkout/sessions/${id}/start`, { customer_details: { address: { country: 'FR' } } });
    expect(missingPostal.status).toBe(422);
    expect(missingPostal.body).toMatchObject({ code: 'postal_code_required', errors: { 'customer_details.address.postal_code': [expect.any(String)] } });
    const corsica = await post(`/api/checkout/sessions/${id}/start`, { customer_details: { address: { country: 'FR', postal_code: '20000' } } });
    expect(corsica.body.invoice).toMatchObject({ total: 2160 + 222 + 59, total_tax_amounts: [{ percentage: 13 }] });
  });

  it('charges no VAT to an EU business across the border with a VAT number (reverse charge)', async () => {
    const id = await newSession();
    const badId = await post(`/api/checkout/sessions/${id}/start`, { customer_details: { address: { country: 'AT' }, business_name: 'Wien GmbH', tax_id: 'ATU1' } });
    expect(badId.status).toBe(422);
    expect(badId.body).toMatchObject({ code: 'invalid_tax_id', errors: { 'customer_details.tax_id': [expect.any(String)] } });
    const b2b = await post(`/api/checkout/sessions/${id}/pay`, {
      email: 'ap@wien.example',
      card: GOOD_CARD,
      customer_details: { address: { country: 'AT' }, business_name: 'Wien GmbH', tax_id: 'ATU12345678' },
    });
    expect(b2b.status).toBe(200);
    expect(b2b.body.invoice).toMatchObject({
      total: 2400,
      tax: 0,
      total_tax_amounts: [{ amount: 0, percentage: 0, taxability_reason: 'reverse_charge' }],
      customer_details: { business_name: 'Wien GmbH', tax_exempt: 'reverse', tax_id: { value: 'ATU12345678' } },
    });
    expect(b2b.body.session.customer_details).toMatchObject({ tax_exempt: 'reverse' });
  });

  it('carries the discount and the tax in the checkout.session.completed and invoice.paid payloads', async () => {
    const receiver = await startReceiver();
    try {
      const endpoint = await subscribe(server, organizationId, `${receiver.url}/hooks`, ['checkout.session.completed', 'invoice.paid']);
      await server.settle();
      const id = await newSession();
      const paid = await post(`/api/checkout/sessions/${id}/pay`, { email: 'a@example.com', card: GOOD_CARD, discount_code: 'TEN', customer_details: { address: { country: 'DE' } } });
      expect(paid.status).toBe(200);
      await expect.poll(() => receiver.calls.length, { timeout: 20_000 }).toBe(2);
      const byType = Object.fromEntries(receiver.calls.map((c) => verified(endpoint.secret, c)).map((b) => [b.type, b.data.object]));
      // 2160 after 10% off, VAT 19% on each line: 325 + 86.
      expect(byType['checkout.session.completed']).toMatchObject({
        id,
        total: 2571,
        amount_subtotal: 2400,
        total_details: { amount_discount: 240, amount_tax: 411 },
        discounts: [{ promotion_code: { code: 'TEN' } }],
        customer_details: { address: { country: 'DE' } },
      });
      expect(byType['invoice.paid']).toMatchObject({
        session_id: id,
        total: 2571,
        subtotal: 2400,
        tax: 411,
        total_discount_amounts: [{ amount: 240 }],
        total_tax_amounts: [{ amount: 411, percentage: 19, taxable_amount: 2160, inclusive: false }],
        discounts: [{ coupon: { percent_off: 10 } }],
      });
      // The seller's lists show the same figures: the API key's session list and the dashboard's invoices.
      await server.settle();
      const person = await signedInPerson(server, { organizationId });
      const invoices = await person.client.json<Body>('GET', '/manage/api/invoices');
      expect(invoices.body.data.find((i: Body) => i.session.id === id)).toMatchObject({
        total: 2571,
        subtotal: 2400,
        tax: 411,
        total_tax_amounts: [{ percentage: 19 }],
        session: { amount_subtotal: 2400, total_details: { amount_discount: 240, amount_tax: 411 } },
      });
    } finally {
      await receiver.close();
    }
  });

  it("takes the tax out of a price that includes it, as the plan's tax_behavior says", async () => {
    const id = (await post('/api/checkout/sessions', { offer: inclusiveSlug })).body.session.id as string;
    const de = await post(`/api/checkout/sessions/${id}/start`, { customer_details: { address: { country: 'DE' } } });
    expect(de.body.invoice).toMatchObject({ total: 1190, subtotal: 1190, tax: 190, total_tax_amounts: [{ amount: 190, inclusive: true, percentage: 19, taxable_amount: 1000 }] });
    // Reverse charge on an inclusive price: the price stays, with no VAT in it (a rate of 0, as Stripe Tax does).
    const b2b = await post(`/api/checkout/sessions/${id}/start`, { customer_details: { address: { country: 'AT' }, tax_id: 'ATU12345678' } });
    expect(b2b.body.invoice).toMatchObject({ total: 1190, tax: 0, total_tax_amounts: [{ taxability_reason: 'reverse_charge', inclusive: true, taxable_amount: 1190 }] });
  });

  it('keeps both changes when a code and a country are sent at the same moment', async () => {
    for (let round = 0; round < 5; round++) {
      const id = await newSession();
      await Promise.all([
        post(`/api/checkout/sessions/${id}/start`, { discount_code: 'TEN' }),
        post(`/api/checkout/sessions/${id}/start`, { customer_details: { address: { country: 'DE' } } }),
      ]);
      const read = await post(`/api/checkout/sessions/${id}/start`, {});
      expect(read.body.session).toMatchObject({ total: 2571, discounts: [{ promotion_code: { code: 'TEN' } }], customer_details: { address: { country: 'DE' } } });
      expect(read.body.invoice.total).toBe(2571);
    }
  });
});
