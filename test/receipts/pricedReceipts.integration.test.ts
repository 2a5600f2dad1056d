import { PDFParse } from 'pdf-parse';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { updateOrganization } from '../../modules/identity/accountCommands.ts';
import { RECEIPTS, type ReceiptDoc } from '../../modules/receipts/receiptProjection.ts';
import { plainText, startSmtpReceiver } from '../helpers/smtpReceiver.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { appendPricedSale, business, consumer, launch20, REVERSE_CHARGE } from './pricedSale.ts';

const WAIT = { timeout: 30_000, interval: 100 };

async function pdfText(data: Uint8Array): Promise<string> {
  const parser = new PDFParse({ data });
  try {
    return (await parser.getText()).text;
  } finally {
    await parser.destroy();
  }
}

/** The text/html part of a message, quoted-printable decoded. */
function htmlPart(raw: string): string {
  const part = /Content-Type: text\/html[^\r\n]*\r?\n(?:[^\r\n]+\r?\n)*\r?\n([\s\S]*?)\r?\n--/i.exec(raw);
  const body = (part ? part[1]! : '').replace(/=\r?\n/g, '');
  return Buffer.from(body.replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8');
}

const oneLine = (text: string) => text.replace(/\s+/g, ' ');

describe('receipts of invoices with a discount and a tax', { timeout: 90_000 }, () => {
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let server: TestServer;
  let organizationId: string;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    server = await startTestServer({ env: { RECEIPT_POLL_INTERVAL_MS: '200', SMTP_URL: smtp.url } });
    ({ organizationId } = await server.identity('Berlin Tools GmbH'));
    await updateOrganization(server.cliContext(organizationId), organizationId, {
      address: { line1: 'Torstrasse 1', line2: null, postal_code: '10119', city: 'Berlin', region: null, country: 'DE' },
      vat_number: 'DE123456789',
    });
  });
  afterAll(async () => {
    await server?.close({ remove: true });
    await smtp?.close();
  });

  const receiptOf = async (invoiceId: string): Promise<ReceiptDoc> => {
    let doc: ReceiptDoc | null = null;
    await vi.waitFor(async () => {
      await server.settle();
      doc = await server.services.readStore.get<ReceiptDoc>(RECEIPTS, invoiceId);
      expect(doc).not.toBeNull();
    }, WAIT);
    return doc!;
  };

  it("a discounted, taxed receipt's email and page show each line's discount and VAT, the code, the VAT and the total", async () => {
    const at = Math.floor(Date.now() / 1000);
    const sale = await appendPricedSale(server.services.store, {
      organizationId,
      lines: [
        { name: 'Pro plan', amount: 10_000 },
        { name: 'Add-on', amount: 2_500 },
      ],
      discount: launch20(),
      customer: consumer('DE'),
      email: 'ada@example.com',
      at,
    });
    // What checkout recorded: 20% off, then 19% on what is left, per line.
    expect(sale.pricing).toMatchObject({ subtotal: 12_500, total_discount: 2_500, total_tax: 1_900 });
    expect(sale.total).toBe(11_900);

    await vi.waitFor(() => expect(smtp.accepted.some((m) => m.to.includes('ada@example.com'))).toBe(true), WAIT);
    const raw = smtp.accepted.find((m) => m.to.includes('ada@example.com'))!.raw;
    const text = plainText(raw);
    expect(text).toContain('Pro plan: €100.00 (Discount -€20.00; VAT 19% €15.20)');
    expect(text).toContain('Add-on: €25.00 (Discount -€5.00; VAT 19% €3.80)');
    expect(text).toMatch(/Subtotal: €125\.00\s+Discount \(LAUNCH20\): -€25\.00\s+VAT 19%: €19\.00\s+Total: €119\.00/);
    expect(text).toContain('Billed to: Germany');
    expect(text).not.toContain('Reverse charge');
    const html = htmlPart(raw);
    expect(html).toContain('<tr><td>Discount (LAUNCH20)</td><td align="right">-€25.00</td></tr>');
    expect(html).toContain('<tr><td>VAT 19%</td><td align="right">€19.00</td></tr>');
    expect(html).toContain('<tr><th align="left">Total</th><th align="right">€119.00</th></tr>');

    const doc = await receiptOf(sale.invoiceId);
    const page = await (await server.fetch(`/receipts/${doc.token}`, { headers: { accept: 'text/html' } })).text();
    expect(page).toContain('<td class="n" id="subtotal">€125.00</td>');
    expect(page).toContain('<td>Discount (LAUNCH20)</td><td class="n" id="discount">-€25.00</td>');
    expect(page).toContain('<td>VAT 19%</td><td class="n" id="tax">€19.00</td>');
    expect(page).toContain('<th class="n" id="total">€119.00</th>');
    expect(page).toContain('Pro plan<br><span class="note">Discount -€20.00; VAT 19% €15.20</span>');
  });

  it("a reverse-charge invoice's PDF states the reverse charge and both VAT numbers", async () => {
    const at = Math.floor(Date.now() / 1000);
    const sale = await appendPricedSale(server.services.store, {
      organizationId,
      lines: [{ name: 'Team plan', amount: 50_000 }],
      tax: REVERSE_CHARGE,
      customer: business('FR', 'FR12345678901', 'Atelier Dupont SARL'),
      email: 'compta@dupont.example',
      at,
    });
    const doc = await receiptOf(sale.invoiceId);
    const pdf = await server.fetch(`/receipts/${doc.token}/invoice.pdf`);
    expect(pdf.status).toBe(200);
    const parsed = oneLine(await pdfText(new Uint8Array(await pdf.arrayBuffer())));
    expect(parsed).toContain('Reverse charge: VAT to be accounted for by the recipient (Article 196, Council Directive 2006/112/EC)');
    expect(parsed).toContain('VAT DE123456789');
    expect(parsed).toContain('Atelier Dupont SARL France VAT FR12345678901');
    expect(parsed).toMatch(/Subtotal €500\.00 Reverse charge €0\.00 Total €500\.00/);

    const page = await (await server.fetch(`/receipts/${doc.token}`, { headers: { accept: 'text/html' } })).text();
    expect(page).toContain('<p id="reverse-charge"><strong>Reverse charge: VAT to be accounted for by the recipient (Article 196, Council Directive 2006/112/EC)</strong></p>');
    expect(page).toContain('<p id="buyer">Billed to: Atelier Dupont SARL<br>France<br>VAT FR12345678901</p>');
  });
});
