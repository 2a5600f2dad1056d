import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { refundInvoice } from '../../modules/payments/index.ts';
import { buy, cookieFrom, WAIT } from '../portal/portalFixtures.ts';
import { plainText, startSmtpReceiver } from '../helpers/smtpReceiver.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';
import { digitalProduct, FILE_DESCRIPTION, sha256 } from './deliveryFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/*
 * A sale of a digital product from end to end, on a real server with every subscriber running and
 * a real SMTP server on loopback: the sale grants a file and a license key; the thank-you
 * page's endpoint, the receipt email, the receipt page and the portal deliver them; the download
 * link has the file's bytes, resumes with Range, expires, and stops working after a full refund.
 */
describe('digital delivery of a sale', () => {
  let server: TestServer;
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let seller: { organizationId: string; token: string };
  const clock = manualClock(Date.parse('2026-11-27T12:00:00Z'));

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    server = await startTestServer({ clock, env: { SMTP_URL: smtp.url, RECEIPT_POLL_INTERVAL_MS: '100', CHECKOUT_RATE_LIMIT: '10000', BASE_URL: 'https://shop.example.com' } });
    seller = await server.identity('Darkroom Press');
  }, 30_000);
  afterAll(async () => {
    await server?.close({ remove: true });
    await smtp?.close();
  });

  /** The thank-you page's question, asked until the grants are made. */
  const delivered = async (sessionId: string) => {
    let body: Body = {};
    await vi.waitFor(async () => {
      const answer = await server.fetch(`/api/checkout/sessions/${sessionId}/benefits`);
      expect(answer.status).toBe(200);
      body = (await answer.json()) as Body;
      expect(body.pending).toBe(false);
    }, WAIT);
    return body;
  };

  it('grants both benefits; the link has the bytes, resumes, expires and dies with a refund; the email carries the key and the lasting link', { timeout: 90_000 }, async () => {
    const goods = await digitalProduct(server, seller, 'zine-e2e');
    const sale = await buy(server, 'zine-e2e', 'ada@example.com');

    // The thank-you page's view: both benefits, the key in plain, a 15-minute link.
    const view = await delivered(sale.sessionId);
    expect(view.benefits.map((b: Body) => b.id).sort()).toEqual([goods.benefits.file, goods.benefits.key].sort());
    const fileBenefit = view.benefits.find((b: Body) => b.type === 'file');
    const keyBenefit = view.benefits.find((b: Body) => b.type === 'license_key');
    const key = keyBenefit.license_key.key as string;
    expect(key).toMatch(/^DARK(-[0-9A-Z]{4})+$/);
    expect(keyBenefit.license_key).toMatchObject({ status: 'inactive', activation_limit: 3, activation_usage: 0 });
    const [link] = fileBenefit.files as Body[];
    expect(link).toMatchObject({ id: goods.file.id, filename: goods.file.filename, sha256: goods.file.sha256, expires_at: Math.floor(clock() / 1000) + 900 });
    const url = link!.download_url as string;
    expect(url).toMatch(/^\/downloads\/file_\w+\?customer=cus_\w+&expires=\d+&signature=/);

    // The bytes: the file's checksum; a Range request resumes where a first part stopped.
    const whole = await server.fetch(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-disposition')).toContain(`filename="${goods.file.filename}"`);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');
    const bytes = new Uint8Array(await whole.arrayBuffer());
    expect(sha256(bytes)).toBe(goods.file.sha256);
    const cut = Math.floor(bytes.length / 3);
    const rest = await server.fetch(url, { headers: { range: `bytes=${cut}-`, 'if-range': whole.headers.get('etag')! } });
    expect(rest.status).toBe(206);
    expect(rest.headers.get('content-range')).toBe(`bytes ${cut}-${bytes.length - 1}/${bytes.length}`);
    const resumed = new Uint8Array([...bytes.subarray(0, cut), ...new Uint8Array(await rest.arrayBuffer())]);
    expect(sha256(resumed)).toBe(goods.file.sha256);

    // The receipt email: the key in plain, the file named, the receipt page's link, no 15-minute link.
    let text = '';
    let raw = '';
    await vi.waitFor(() => {
      const mail = smtp.accepted.find((m) => m.to.includes('ada@example.com') && /Your receipt from/.test(m.raw));
      expect(mail).toBeDefined();
      raw = mail!.raw;
      text = plainText(raw);
    }, WAIT);
    // Neither part (text nor HTML) carries a download link.
    expect(raw.replace(/=\r?\n/g, '')).not.toMatch(/\/downloads\/|signature=/);
    expect(text).toContain(`Darkroom license: ${key}`);
    expect(text).toContain(`${FILE_DESCRIPTION}: ${goods.file.filename}`);
    expect(text).not.toContain('/downloads/');
    expect(text).not.toContain('signature=');
    const receiptUrl = /Download them from your receipt page[^:]*: (https:\/\/shop\.example\.com\/receipts\/[A-Za-z0-9_-]{32})/.exec(text)?.[1];
    expect(receiptUrl).toBeDefined();
    const receiptPath = new URL(receiptUrl!).pathname;

    // The link expires: 15 minutes on, it answers 410; the receipt page, opened then, makes a new one that works.
    clock.advance(16 * 60_000);
    expect((await server.fetch(url)).status).toBe(410);
    const receipt = await server.fetch(receiptPath);
    expect(receipt.status).toBe(200);
    const page = await receipt.text();
    expect(page).toContain(key);
    expect(page).toContain('The zine &lt;b&gt;as&lt;/b&gt; a &quot;PDF&quot; &amp; more');
    expect(page).not.toContain('<b>as</b>');
    const fresh = /href="(\/downloads\/[^"]+)"/.exec(page)?.[1]?.replace(/&amp;/g, '&');
    expect(fresh).toBeDefined();
    expect(fresh).not.toBe(url);
    const again = await server.fetch(fresh!);
    expect(again.status).toBe(200);
    expect(sha256(new Uint8Array(await again.arrayBuffer()))).toBe(goods.file.sha256);

    // The portal lists the customer's downloads and keys, with the key's standing.
    const made = await server.fetch(`/api/customers/${sale.customerId}/portal_sessions`, { method: 'POST', token: seller.token, headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(made.status).toBe(201);
    const linkPath = new URL(((await made.json()) as Body).url as string).pathname;
    const opened = await server.fetch(linkPath, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://shop.example.com' }, body: '' });
    expect(opened.status).toBe(303);
    const portal = await (await server.fetch(opened.headers.get('location')!, { headers: { cookie: cookieFrom(opened) } })).text();
    expect(portal).toContain('Downloads and license keys');
    expect(portal).toContain(key);
    expect(portal).toContain('The zine &lt;b&gt;as&lt;/b&gt; a &quot;PDF&quot; &amp; more');
    expect(portal).toContain('Not activated yet · 0 of 3 activations');
    const portalLink = /href="(\/downloads\/[^"]+)"/.exec(portal)?.[1]?.replace(/&amp;/g, '&');
    expect((await server.fetch(portalLink!)).status).toBe(200);

    // A full refund revokes the grants: the link made before it stops, and nothing is delivered any more.
    await refundInvoice(server.cliContext(seller.organizationId), server.services, seller.organizationId, sale.invoiceId, 1500);
    await vi.waitFor(async () => expect((await server.fetch(fresh!)).status).toBe(403), WAIT);
    const after = await delivered(sale.sessionId);
    expect(after.benefits).toEqual([]);
    expect(await (await server.fetch(receiptPath)).text()).not.toContain('/downloads/');
  });

  it('lists a file bought twice once in the portal, and each key of each purchase', { timeout: 60_000 }, async () => {
    const first = await buy(server, 'zine-e2e', 'bo@example.com');
    const second = await buy(server, 'zine-e2e', 'bo@example.com');
    expect(second.customerId).toBe(first.customerId);
    const keys = [(await delivered(first.sessionId)).benefits, (await delivered(second.sessionId)).benefits].map((list: Body[]) => list.find((b) => b.type === 'license_key')!.license_key.key as string);
    expect(new Set(keys).size).toBe(2);
    const made = await server.fetch(`/api/customers/${first.customerId}/portal_sessions`, { method: 'POST', token: seller.token, headers: { 'content-type': 'application/json' }, body: '{}' });
    const linkPath = new URL(((await made.json()) as Body).url as string).pathname;
    const opened = await server.fetch(linkPath, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://shop.example.com' }, body: '' });
    const portal = await (await server.fetch(opened.headers.get('location')!, { headers: { cookie: cookieFrom(opened) } })).text();
    expect(portal.match(/class="download"/g)).toHaveLength(1);
    for (const key of keys) expect(portal).toContain(key);
  });

  it('answers only for a paid session, and not for a session id that does not exist', async () => {
    expect((await server.fetch('/api/checkout/sessions/cs_nothing/benefits')).status).toBe(404);
    expect((await server.fetch('/api/checkout/sessions/not-a-session/benefits')).status).toBe(422);
    const created = await server.fetch('/api/checkout/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ offer: 'zine-e2e' }) });
    const open = ((await created.json()) as Body).session.id as string;
    const answer = await server.fetch(`/api/checkout/sessions/${open}/benefits`);
    expect(answer.status).toBe(409);
    expect(((await answer.json()) as Body).code).toBe('session_not_paid');
  });
});
