import { PDFParse } from 'pdf-parse';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { GOOD_CARD, json, makeOffer } from '../checkout/checkoutFixtures.ts';
import { signedInPerson } from '../helpers/manageClient.ts';
import { runCli } from '../helpers/serverProcess.ts';
import { plainText, startSmtpReceiver } from '../helpers/smtpReceiver.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const WAIT = { timeout: 30_000, interval: 100 };

async function pdfText(data: Uint8Array): Promise<string> {
  const parser = new PDFParse({ data });
  try {
    return (await parser.getText()).text;
  } finally {
    await parser.destroy();
  }
}

describe("the organization's postal address on receipts", () => {
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

  it('an owner sets it (validated; members may not); the receipt email, page and PDF show the name and address', { timeout: 90_000 }, async () => {
    const owner = await signedInPerson(server);
    const member = await signedInPerson(server, { organizationId: owner.organizationId, role: 'member' });
    const address = { line1: 'Keizersgracht 123', line2: 'Floor 2', postal_code: '1015 CJ', city: 'Amsterdam', country: 'nl' };

    const bad = await owner.client.json('PATCH', '/manage/api/organization', { address: { ...address, country: 'Netherlands', city: '' } });
    expect(bad.status).toBe(422);
    expect((bad.body as Body).errors).toHaveProperty(['address.country']);
    expect((bad.body as Body).errors).toHaveProperty(['address.city']);
    expect((await member.client.json('PATCH', '/manage/api/organization', { address })).status).toBe(403);

    const set = await owner.client.json('PATCH', '/manage/api/organization', { name: 'Acme Tools BV', address });
    expect(set.status).toBe(200);
    expect((set.body as Body).address).toEqual({ ...address, region: null, country: 'NL' });
    // A later change of the name alone keeps the address.
    await owner.client.json('PATCH', '/manage/api/organization', { timezone: 'Europe/Amsterdam' });
    expect(((await member.client.json('GET', '/manage/api/organization')).body as Body).address).toMatchObject({ line1: 'Keizersgracht 123', country: 'NL' });

    const offer = await makeOffer(server, owner.organizationId);
    const session = ((await (await server.fetch('/api/checkout/sessions', json({ offer: offer.slug }))).json()) as Body).session as Body;
    const paid = await server.fetch(`/api/checkout/sessions/${session.id}/pay`, json({ email: 'ada@example.com', name: 'Ada Buyer', card: GOOD_CARD }));
    expect(paid.status).toBe(200);
    const number = (((await paid.json()) as Body).invoice as Body).number as number;

    await vi.waitFor(() => expect(smtp.accepted.length).toBe(1), WAIT);
    const text = plainText(smtp.accepted[0]!.raw);
    expect(text).toMatch(/Acme Tools BV\s+Keizersgracht 123\s+Floor 2\s+1015 CJ Amsterdam\s+NL/);
    const token = /\/receipts\/([A-Za-z0-9_-]{32})(?![A-Za-z0-9_-])/.exec(text)![1]!;

    await server.settle();
    const html = await (await server.fetch(`/receipts/${token}`, { headers: { accept: 'text/html' } })).text();
    expect(html).toContain('<address id="seller-address">Keizersgracht 123<br>Floor 2<br>1015 CJ Amsterdam<br>NL</address>');

    const pdf = await server.fetch(`/receipts/${token}/invoice.pdf`);
    expect(pdf.status).toBe(200);
    const parsed = await pdfText(new Uint8Array(await pdf.arrayBuffer()));
    expect(parsed).toMatch(/Acme Tools BV\s+Keizersgracht 123\s+Floor 2\s+1015 CJ Amsterdam\s+NL/);
    expect(parsed).toContain(`Invoice #${number}`);
    expect(parsed).toContain('€24.00');
  });

  it('commerce org update sets and removes the address, with the same rules', { timeout: 90_000 }, async () => {
    const org = await server.identity('Shop Two');
    const commerce = (...args: string[]) => runCli(args, { DATA_DIR: server.dataDir });
    const refused = await commerce('org', 'update', org.organizationId, '--line1', 'Main St 1', '--country', 'US');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('--city');
    const updated = await commerce('org', 'update', org.organizationId, '--line1', 'Main St 1', '--city', 'Springfield', '--region', 'IL', '--postal-code', '62701', '--country', 'us', '--json');
    expect(updated.code, updated.stderr).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({ id: org.organizationId, name: 'Shop Two', address: { line1: 'Main St 1', city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US', line2: null } });
    const removed = await commerce('org', 'update', org.organizationId, '--no-address', '--json');
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse(removed.stdout).address).toBeNull();
  });

  it('commerce org update sets and removes the brand colour, with the same rules', { timeout: 90_000 }, async () => {
    const org = await server.identity('Shop Three');
    const commerce = (...args: string[]) => runCli(args, { DATA_DIR: server.dataDir });
    const refused = await commerce('org', 'update', org.organizationId, '--brand-color', 'yellow');
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('--brand-color');
    const set = await commerce('org', 'update', org.organizationId, '--brand-color', '#FFD500', '--json');
    expect(set.code, set.stderr).toBe(0);
    expect(JSON.parse(set.stdout)).toMatchObject({ id: org.organizationId, brand_color: '#ffd500' });
    const removed = await commerce('org', 'update', org.organizationId, '--no-brand-color', '--json');
    expect(removed.code, removed.stderr).toBe(0);
    expect(JSON.parse(removed.stdout).brand_color).toBeNull();
  });
});
