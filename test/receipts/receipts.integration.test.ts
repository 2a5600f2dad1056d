import { PDFParse } from 'pdf-parse';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { queueReceipt, sendReceipt } from '../../modules/receipts/jobs/receiptOutbox.ts';
import { smtpMailer } from '../../modules/receipts/smtpMailer.ts';
import { receiptStream } from '../../modules/receipts/domain/receipt.ts';
import { GOOD_CARD, json, makeOffer } from '../checkout/checkoutFixtures.ts';
import { runCli } from '../helpers/serverProcess.ts';
import { plainText, startSmtpReceiver } from '../helpers/smtpReceiver.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const RECEIPT_ENV = { CHECKOUT_RATE_LIMIT: '10000', RECEIPT_POLL_INTERVAL_MS: '200', RECEIPT_RETRY_BASE_SECONDS: '1' };
const WAIT = { timeout: 30_000, interval: 100 };

/** A real purchase through the public HTTP routes with the test card: the invoice as the pay route answers it. */
async function purchase(server: TestServer, email: string): Promise<{ invoiceId: string; number: number; organizationId: string }> {
  const org = await server.identity('Acme Tools');
  const offer = await makeOffer(server, org.organizationId);
  const created = await server.fetch('/api/checkout/sessions', json({ offer: offer.slug }));
  expect(created.status).toBe(201);
  const session = ((await created.json()) as Body).session as Body;
  const paid = await server.fetch(`/api/checkout/sessions/${session.id}/pay`, json({ email, name: 'Ada Buyer', card: GOOD_CARD }));
  expect(paid.status).toBe(200);
  const invoice = ((await paid.json()) as Body).invoice as Body;
  return { invoiceId: invoice.id as string, number: invoice.number as number, organizationId: org.organizationId };
}

const receiptEvents = async (server: TestServer, invoiceId: string) => (await server.services.store.readStream(receiptStream(invoiceId))).map((e) => e.type);

async function pdfText(data: Uint8Array): Promise<string> {
  const parser = new PDFParse({ data });
  try {
    return (await parser.getText()).text;
  } finally {
    await parser.destroy();
  }
}

describe('receipts through a real SMTP server', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let server: TestServer;
  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    server = await startTestServer({ env: { ...RECEIPT_ENV, SMTP_URL: smtp.url } });
  });
  afterAll(async () => {
    await server?.close({ remove: true });
    await smtp?.close();
  });

  it('emails the buyer the invoice number, lines, total and a receipt link, whose page and PDF show them', async () => {
    const { invoiceId, number } = await purchase(server, 'ada@example.com');
    await vi.waitFor(() => expect(smtp.accepted.length).toBe(1), WAIT);
    const mail = smtp.accepted[0]!;
    expect(mail.to).toEqual(['ada@example.com']);
    const text = plainText(mail.raw);
    expect(text).toContain(`Invoice #${number}`);
    expect(text).toContain('Pro monthly: €19.00');
    expect(text).toContain('Setup fee: €5.00');
    expect(text).toContain('Total: €24.00');
    expect(mail.raw).toMatch(/^Subject: Your receipt from Acme Tools/m);
    const link = /https?:\/\/\S+\/receipts\/([A-Za-z0-9_-]{32})(?![A-Za-z0-9_-])/.exec(text);
    expect(link).not.toBeNull();
    const token = link![1]!;
    // The token is random, not derived from the invoice id.
    expect(token).not.toContain(invoiceId);

    await vi.waitFor(async () => expect(await receiptEvents(server, invoiceId)).toEqual(['ReceiptQueued', 'ReceiptSent']), WAIT);

    await server.settle();
    const page = await server.fetch(`/receipts/${token}`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('cache-control')).toBe('no-store');
    const html = await page.text();
    expect(html).toContain('Acme Tools');
    expect(html).toContain(`Invoice #${number}`);
    expect(html).toContain('€24.00');
    expect(html).toContain(`href="/receipts/${token}/invoice.pdf"`);

    const pdf = await server.fetch(`/receipts/${token}/invoice.pdf`, { headers: { accept: 'application/pdf' } });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    const parsed = await pdfText(new Uint8Array(await pdf.arrayBuffer()));
    expect(parsed).toContain('Acme Tools');
    expect(parsed).toContain(`Invoice #${number}`);
    expect(parsed).toContain('Total');
    expect(parsed).toContain('€24.00');
    expect(parsed).toContain('Pro monthly');
  });

  it('answers an unknown or malformed receipt token like nothing is there', async () => {
    const unknown = await server.fetch(`/receipts/${'A'.repeat(32)}`);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ message: 'Receipt not found.' });
    expect((await server.fetch(`/receipts/${'A'.repeat(32)}/invoice.pdf`)).status).toBe(404);
    const malformed = await server.fetch('/receipts/short');
    expect(malformed.status).toBe(422);
    // The link's token stays out of caches and Referer on refusals too, as docs/receipts.md says.
    for (const [path, status] of [
      [`/receipts/${'A'.repeat(32)}`, 404],
      [`/receipts/${'A'.repeat(32)}/invoice.pdf`, 404],
      ['/receipts/short', 422],
      ['/receipts/short/invoice.pdf', 422],
    ] as const) {
      const refused = await server.fetch(path);
      expect(refused.status, path).toBe(status);
      expect(refused.headers.get('cache-control'), path).toBe('no-store');
      expect(refused.headers.get('referrer-policy'), path).toBe('no-referrer');
    }
  });

  it('never queues or sends the receipt of one invoice twice', async () => {
    const { invoiceId } = await purchase(server, 'twice@example.com');
    await vi.waitFor(async () => expect(await receiptEvents(server, invoiceId)).toEqual(['ReceiptQueued', 'ReceiptSent']), WAIT);
    const sentBefore = smtp.accepted.filter((m) => m.to.includes('twice@example.com')).length;
    expect(sentBefore).toBe(1);
    // A redelivered InvoicePaid (a subscriber restarted before its checkpoint moved) and a second send.
    const paid = (await server.services.store.readStream(`invoice-${invoiceId}`)).find((e) => e.type === 'InvoicePaid')!;
    expect(await queueReceipt(server.services, paid)).toBe(false);
    const mailer = smtpMailer(smtp.url);
    try {
      expect(await sendReceipt(server.services, mailer, invoiceId)).toBe('skipped');
    } finally {
      mailer.close();
    }
    expect(await receiptEvents(server, invoiceId)).toEqual(['ReceiptQueued', 'ReceiptSent']);
    expect(smtp.accepted.filter((m) => m.to.includes('twice@example.com'))).toHaveLength(1);
  });
});

describe('an SMTP server that fails first', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let server: TestServer;
  beforeAll(async () => {
    smtp = await startSmtpReceiver({ refuse: 1 });
    server = await startTestServer({ env: { ...RECEIPT_ENV, SMTP_URL: smtp.url } });
  });
  afterAll(async () => {
    await server?.close({ remove: true });
    await smtp?.close();
  });

  it('gets the receipt on a retry, once', async () => {
    const { invoiceId } = await purchase(server, 'retry@example.com');
    await vi.waitFor(async () => expect(await receiptEvents(server, invoiceId)).toEqual(['ReceiptQueued', 'ReceiptSendFailed', 'ReceiptSent']), WAIT);
    expect(smtp.refused()).toBe(1);
    expect(smtp.accepted).toHaveLength(1);
    expect(smtp.accepted[0]!.to).toEqual(['retry@example.com']);
    const failed = (await server.services.store.readStream(receiptStream(invoiceId))).find((e) => e.type === 'ReceiptSendFailed')!;
    expect((failed.data as Body).error).toMatch(/451|Try again later/);
  });
});

describe('no SMTP configured', { timeout: 120_000 }, () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: RECEIPT_ENV });
  });
  afterAll(() => server?.close({ remove: true }));

  it('keeps the receipt in the outbox, where the CLI shows it', async () => {
    const { invoiceId, number, organizationId } = await purchase(server, 'local@example.com');
    await vi.waitFor(async () => expect(await receiptEvents(server, invoiceId)).toEqual(['ReceiptQueued']), WAIT);
    await server.settle();

    const commerce = (...args: string[]) => runCli(args, { DATA_DIR: server.dataDir });
    const list = await commerce('outbox', 'list', '--org', organizationId, '--json');
    expect(list.code, list.stderr).toBe(0);
    const listed = JSON.parse(list.stdout) as Body;
    expect(listed.smtp).toBe(false);
    expect(listed.receipts).toEqual([expect.objectContaining({ invoice_id: invoiceId, invoice_number: number, to: 'local@example.com', total: '€24.00', status: 'queued', attempts: 0 })]);

    const show = await commerce('outbox', 'show', invoiceId);
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain('To: local@example.com');
    expect(show.stdout).toContain(`Invoice #${number}`);
    expect(show.stdout).toContain('Total: €24.00');
    const token = /\/receipts\/([A-Za-z0-9_-]{32})(?![A-Za-z0-9_-])/.exec(show.stdout)![1]!;
    const page = await server.fetch(`/receipts/${token}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(`Invoice #${number}`);
  });
});

describe('a receipt queued while no SMTP server was set', { timeout: 120_000 }, () => {
  it('goes out once the service restarts with SMTP_URL', async () => {
    const first = await startTestServer({ env: RECEIPT_ENV });
    const { invoiceId } = await purchase(first, 'later@example.com');
    await vi.waitFor(async () => expect(await receiptEvents(first, invoiceId)).toEqual(['ReceiptQueued']), WAIT);
    await first.close();

    const smtp = await startSmtpReceiver();
    const second = await startTestServer({ dataDir: first.dataDir, env: { ...RECEIPT_ENV, SMTP_URL: smtp.url } });
    try {
      await vi.waitFor(async () => expect(await receiptEvents(second, invoiceId)).toEqual(['ReceiptQueued', 'ReceiptSent']), WAIT);
      expect(smtp.accepted.map((m) => m.to)).toEqual([['later@example.com']]);
    } finally {
      await second.close({ remove: true });
      await smtp.close();
    }
  });
});
