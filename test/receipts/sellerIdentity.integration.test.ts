import { PDFParse } from 'pdf-parse';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GOOD_CARD, json, makeOffer } from '../checkout/checkoutFixtures.ts';
import { signedInPerson } from '../helpers/manageClient.ts';
import { plainText, startSmtpReceiver } from '../helpers/smtpReceiver.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { PNG_BASE64 } from './sellerFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const WAIT = { timeout: 30_000, interval: 100 };
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>').toString('base64');

async function pdfText(data: Uint8Array): Promise<string> {
  const parser = new PDFParse({ data });
  try {
    return (await parser.getText()).text;
  } finally {
    await parser.destroy();
  }
}

describe("the seller's identity: VAT number and logo", () => {
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let server: TestServer;
  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000', RECEIPT_POLL_INTERVAL_MS: '200', SMTP_URL: smtp.url } });
  });
  afterAll(async () => {
    await server?.close({ remove: true });
    await smtp?.close();
  });

  it('an owner sets them (PNG/JPEG only, 256 KB at most; members may not); the logo is public at a URL of its hash', async () => {
    const owner = await signedInPerson(server);
    const member = await signedInPerson(server, { organizationId: owner.organizationId, role: 'member' });
    const patch = (body: unknown) => owner.client.json('PATCH', '/manage/api/organization', body);

    const svg = await patch({ logo: `data:image/svg+xml;base64,${SVG}` });
    expect(svg.status).toBe(422);
    expect((svg.body as Body).errors.logo[0]).toContain('SVG is not accepted');
    // A PNG by name whose bytes are not one.
    const fake = await patch({ logo: `data:image/png;base64,${SVG}` });
    expect(fake.status).toBe(422);
    expect((fake.body as Body).code).toBe('invalid_logo');
    const big = await patch({ logo: `data:image/png;base64,${PNG_BASE64.slice(0, -2)}${'A'.repeat(360_000)}` });
    expect(big.status).toBe(422);
    expect(JSON.stringify(big.body)).toContain('256 KB');
    expect((await patch({ vat_number: 'NL<script>' })).status).toBe(422);
    expect((await member.client.json('PATCH', '/manage/api/organization', { vat_number: 'NL1' })).status).toBe(403);

    const set = await patch({ name: 'Acme Tools BV', vat_number: 'NL123456789B01', logo: `data:image/png;base64,${PNG_BASE64}` });
    expect(set.status).toBe(200);
    const body = set.body as Body;
    expect(body.vat_number).toBe('NL123456789B01');
    expect(body.logo_url).toMatch(new RegExp(`^${server.url}/logos/${owner.organizationId}/[0-9a-f]{32}\\.png$`));
    expect(((await member.client.json('GET', '/manage/api/organization')).body as Body).logo_url).toBe(body.logo_url);

    const logo = await fetch(body.logo_url as string);
    expect(logo.status).toBe(200);
    expect(logo.headers.get('content-type')).toBe('image/png');
    expect(logo.headers.get('cache-control')).toContain('immutable');
    expect(Buffer.from(await logo.arrayBuffer()).equals(Buffer.from(PNG_BASE64, 'base64'))).toBe(true);
    // Another organization's id with the same hash finds nothing.
    const other = await signedInPerson(server);
    expect((await fetch((body.logo_url as string).replace(owner.organizationId, other.organizationId))).status).toBe(404);
    expect((await fetch((body.logo_url as string).replace('.png', '.jpg'))).status).toBe(404);

    // Removed: the answer has no logo, and the URL of the old one still serves it (emails sent show it).
    const removed = await patch({ logo: null, vat_number: '' });
    expect((removed.body as Body).logo_url).toBeNull();
    expect((removed.body as Body).vat_number).toBeNull();
    expect((await fetch(body.logo_url as string)).status).toBe(200);
  });

  it('the hosted checkout header names the seller with their logo; the receipt email, page and PDF show VAT number and logo', { timeout: 90_000 }, async () => {
    const owner = await signedInPerson(server);
    const set = await owner.client.json('PATCH', '/manage/api/organization', {
      name: 'Tulip Software BV',
      vat_number: 'NL999999999B01',
      brand_color: '#14532D',
      logo: `data:image/png;base64,${PNG_BASE64}`,
      address: { line1: 'Keizersgracht 1', city: 'Amsterdam', country: 'NL' },
    });
    expect(set.status).toBe(200);
    const logoPath = new URL((set.body as Body).logo_url as string).pathname;
    // No logo of its own in the offer's theme: the seller's shows.
    const offer = await makeOffer(server, owner.organizationId, { content: { theme: { primary_color: '#0f766e', background_color: '#ffffff', text_color: '#111111', font_family: 'Inter, sans-serif', logo_url: '', button_text: 'Pay now' } } });

    const page = await (await server.fetch(`/checkout/${offer.slug}`)).text();
    const header = /<header class="co-head">[\s\S]*?<\/header>/.exec(page)![0];
    expect(header).toContain(`<img class="co-logo" src="${logoPath}"`);
    expect(header).toContain('<span id="co-seller">Tulip Software BV</span>');

    // The dashboard's live preview of a draft offer names the seller too.
    const product = { key: 'tulip', name: 'Tulip', plans: [{ name: 'once', display_name: 'Once', type: 'one_time', invoice_interval: 'P1Y', currency_code: 'EUR', charges: [{ amount: 900 }] }] };
    expect((await owner.client.json('POST', '/manage/api/products', product)).status).toBe(201);
    const draft = { slug: 'draft', name: 'Draft', product: 'tulip', plan: 'once', theme: { primary_color: '#0f766e' }, pages: [{ id: 'p', type: 'checkout', title: 'Pay', blocks: [] }] };
    const preview = await owner.client.json<{ url: string }>('POST', '/manage/api/offers/preview', draft);
    expect(preview.status, JSON.stringify(preview.body)).toBe(201);
    const previewHtml = await (await owner.client.request('GET', preview.body.url)).text();
    expect(previewHtml).toContain('<span id="co-seller">Tulip Software BV</span>');

    const session = ((await (await server.fetch('/api/checkout/sessions', json({ offer: offer.slug }))).json()) as Body).session as Body;
    const paid = await server.fetch(`/api/checkout/sessions/${session.id}/pay`, json({ email: 'vat@example.com', name: 'Vat Buyer', card: GOOD_CARD }));
    expect(paid.status).toBe(200);

    await vi.waitFor(() => expect(smtp.accepted.some((m) => m.to.includes('vat@example.com'))).toBe(true), WAIT);
    const raw = smtp.accepted.find((m) => m.to.includes('vat@example.com'))!.raw;
    expect(plainText(raw)).toMatch(/Tulip Software BV\s+Keizersgracht 1\s+Amsterdam\s+NL\s+VAT NL999999999B01/);
    expect(raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=')).toContain(`${logoPath}"`);
    // The HTML part's accent line is in the seller's brand colour.
    expect(raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=')).toMatch(/<body style="[^"]*border-top:4px solid #14532d/);
    const token = /\/receipts\/([A-Za-z0-9_-]{32})(?![A-Za-z0-9_-])/.exec(plainText(raw))![1]!;

    await server.settle();
    const html = await (await server.fetch(`/receipts/${token}`, { headers: { accept: 'text/html' } })).text();
    expect(html).toContain(`<img id="seller-logo" src="${logoPath}"`);
    expect(html).toContain('<p id="seller-vat">VAT NL999999999B01</p>');

    const pdf = new Uint8Array(await (await server.fetch(`/receipts/${token}/invoice.pdf`)).arrayBuffer());
    // The logo is drawn into the PDF as an image.
    expect(Buffer.from(pdf).toString('latin1')).toMatch(/\/Subtype \/Image/);
    expect(await pdfText(pdf)).toMatch(/Tulip Software BV\s+Keizersgracht 1\s+Amsterdam\s+NL\s+VAT NL999999999B01/);

    // A refund's credit note carries the same seller block, by the receipt link and the API alike.
    const invoiceId = (((await (await owner.client.request('GET', `/manage/api/checkout/sessions/${session.id}`)).json()) as Body).invoice as Body).id as string;
    expect((await owner.client.json('POST', `/manage/api/invoices/${invoiceId}/refunds`, { amount: 100 })).status).toBe(200);
    await server.settle();
    const receiptHtml = await (await server.fetch(`/receipts/${token}`, { headers: { accept: 'text/html' } })).text();
    const noteLink = /href="(\/receipts\/[\w-]+\/credit_notes\/cn_[a-f0-9]{24}\/pdf)"/.exec(receiptHtml)![1]!;
    const note = new Uint8Array(await (await server.fetch(noteLink)).arrayBuffer());
    expect(Buffer.from(note).toString('latin1')).toMatch(/\/Subtype \/Image/);
    expect(await pdfText(note)).toMatch(/Tulip Software BV\s+Keizersgracht 1\s+Amsterdam\s+NL\s+VAT NL999999999B01/);
  });
});
