import { PDFParse } from 'pdf-parse';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createCoupon, createPromotionCode } from '../../modules/discounts/discountCommands.ts';
import { organizationDecider, organizationStream } from '../../modules/identity/index.ts';
import { RECEIPTS, type ReceiptDoc } from '../../modules/receipts/receiptProjection.ts';
import { loadStarterRates, updateTaxSettings } from '../../modules/tax/index.ts';
import { handleCommand } from '../../platform/es/index.ts';
import { GOOD_CARD, json, makeOffer } from '../checkout/checkoutFixtures.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const WAIT = { timeout: 30_000, interval: 100 };

async function pdfText(data: Uint8Array): Promise<string> {
  const parser = new PDFParse({ data });
  try {
    return (await parser.getText()).text.replace(/\s+/g, ' ');
  } finally {
    await parser.destroy();
  }
}

/** Checkout prices (modules/checkout), receipts, credit notes and the tax report print what it recorded. */
describe('a priced checkout, from payment to receipt, credit note and tax report', { timeout: 120_000 }, () => {
  let server: TestServer;
  let org: { organizationId: string; token: string };
  let offerSlug = '';
  beforeAll(async () => {
    server = await startTestServer();
    org = await server.identity();
    const ctx = server.cliContext(org.organizationId);
    await handleCommand(ctx, organizationStream(org.organizationId), organizationDecider, {
      type: 'UpdateOrganization',
      name: 'Berlin Seller GmbH',
      timezone: 'UTC',
      address: { line1: 'Street 1', line2: null, postal_code: '10115', city: 'Berlin', region: null, country: 'DE' },
      vat_number: 'DE123456789',
      now: ctx.metadata.occurred_at,
    });
    await updateTaxSettings(ctx, { organizationId: org.organizationId, enabled: true, default_tax_behavior: 'exclusive' });
    await loadStarterRates(ctx, { organizationId: org.organizationId });
    const { id } = await createCoupon(ctx, { organizationId: org.organizationId, percent_off: 10, duration: 'once' });
    await createPromotionCode(ctx, { organizationId: org.organizationId, coupon: id, code: 'TEN' });
    offerSlug = (await makeOffer(server, org.organizationId)).slug;
  });
  afterAll(() => server.close({ remove: true }));

  const pay = async (body: Body) => {
    const session = (((await (await server.fetch('/api/checkout/sessions', json({ offer: offerSlug }))).json()) as Body).session as Body).id as string;
    const paid = await server.fetch(`/api/checkout/sessions/${session}/pay`, json({ card: GOOD_CARD, ...body }));
    expect(paid.status).toBe(200);
    return { ...(((await paid.json()) as Body).invoice as Body), session } as Body;
  };
  const receiptOf = async (invoiceId: string) => {
    let doc: ReceiptDoc | null = null;
    await vi.waitFor(async () => {
      await server.settle();
      doc = await server.services.readStore.get<ReceiptDoc>(RECEIPTS, invoiceId);
      expect(doc).not.toBeNull();
    }, WAIT);
    return doc!;
  };

  it('prints the reverse charge and both VAT numbers on the PDF, the discount and VAT on the page, and reports the tax', async () => {
    const b2b = await pay({ email: 'ap@wien.example', customer_details: { address: { country: 'AT' }, business_name: 'Wien GmbH', tax_id: 'ATU12345678' } });
    expect(b2b).toMatchObject({ total: 2400, tax: 0 });
    const pdf = await pdfText(new Uint8Array(await (await server.fetch(`/receipts/${(await receiptOf(b2b.id)).token}/invoice.pdf`)).arrayBuffer()));
    expect(pdf).toContain('Reverse charge: VAT to be accounted for by the recipient (Article 196, Council Directive 2006/112/EC)');
    expect(pdf).toContain('VAT DE123456789');
    expect(pdf).toContain('Wien GmbH Austria VAT ATU12345678');

    // 2400 less 10% = 2160, VAT 19% on each line: 325 + 86.
    const consumer = await pay({ email: 'a@example.com', discount_code: 'TEN', customer_details: { address: { country: 'DE' } } });
    expect(consumer).toMatchObject({ total: 2571, tax: 411 });
    const page = await (await server.fetch(`/receipts/${(await receiptOf(consumer.id)).token}`, { headers: { accept: 'text/html' } })).text();
    expect(page).toContain('<td class="n" id="subtotal">€24.00</td>');
    expect(page).toContain('<td>Discount (TEN)</td><td class="n" id="discount">-€2.40</td>');
    expect(page).toContain('<td>VAT 19%</td><td class="n" id="tax">€4.11</td>');
    expect(page).toContain('<th class="n" id="total">€25.71</th>');

    // Half of it back: the credit note gives back half the VAT.
    const refund = await server.fetch(`/api/invoices/${consumer.id}/refunds`, { ...json({ amount: 1_285 }), token: org.token });
    expect(refund.status).toBe(200);
    let note: Body | undefined;
    await vi.waitFor(async () => {
      await server.settle();
      [note] = ((await (await server.fetch(`/api/credit_notes?invoice=${consumer.id}`, { token: org.token })).json()) as Body).data as Body[];
      expect(note).toBeDefined();
    }, WAIT);
    // 1285 × 411 / 2571 = 205.4…
    expect(note).toMatchObject({ amount: 1_285, total_excluding_tax: 1_080, tax_amounts: [{ amount: 205, taxability_reason: 'standard_rated' }] });

    // The buyer's portal lists the purchase with its discount and VAT.
    const sessionId = consumer.session as string;
    const completed = (await server.services.store.readStream(`checkout_session-${sessionId}`)).find((e) => e.type === 'CheckoutSessionCompleted')!.data as Body;
    const made = await server.fetch(`/api/customers/${completed.customer_id}/portal_sessions`, { ...json({}), token: org.token });
    expect(made.status).toBe(201);
    const link = new URL(((await made.json()) as Body).url as string).pathname;
    const opened = await server.fetch(link, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url }, body: '' });
    expect(opened.status).toBe(303);
    const cookie = (opened.headers.get('set-cookie') ?? '').split(';')[0]!;
    const portal = await (await server.fetch(opened.headers.get('location')!, { headers: { accept: 'text/html', cookie } })).text();
    expect(portal).toContain('<p class="meta pricing">Discount (TEN) -€2.40 · VAT 19% €4.11</p>');

    const report = (await (await server.fetch('/api/reports/tax', { token: org.token })).json()) as Body;
    const rows = (report.data as Body[]).map((r) => [r.country, r.tax_rate, r.taxability_reason, r.taxable_amount, r.tax_amount, r.invoice_count, r.credit_note_count]);
    expect(rows).toEqual([
      ['AT', 0, 'reverse_charge', 2_400, 0, 1, 0],
      ['DE', 19, 'standard_rated', 2_160 - 1_080, 411 - 205, 1, 1],
    ]);
  });
});
