import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { enqueueBuyerEmail } from '../../modules/receipts/index.ts';
import { queueRefundEmail } from '../../modules/receipts/jobs/buyerEmails.ts';
import { GOOD_CARD, json, makeOffer } from '../checkout/checkoutFixtures.ts';
import { signedInPerson } from '../helpers/manageClient.ts';
import { plainText, startSmtpReceiver } from '../helpers/smtpReceiver.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { PNG_BASE64 } from './sellerFixtures.ts';
import { DAY, importPlans, SubscriptionLog } from '../subscriptions/subscriptionFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const WAIT = { timeout: 30_000, interval: 100 };

/** The text/html part of a message, quoted-printable decoded. */
function htmlPart(raw: string): string {
  const part = /Content-Type: text\/html[^\r\n]*\r?\n(?:[^\r\n]+\r?\n)*\r?\n([\s\S]*?)\r?\n--/i.exec(raw);
  const body = (part ? part[1]! : '').replace(/=\r?\n/g, '');
  return Buffer.from(body.replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8');
}
/** The Subject header, its RFC 2047 encoded words (Q) decoded. */
function subjectOf(raw: string): string {
  const header = /^Subject:(.*(?:\r?\n[ \t].*)*)/im.exec(raw)![1]!.replace(/\r?\n[ \t]/g, ' ').trim();
  return header
    .replace(/\?=\s+=\?/g, '?==?')
    .replace(/=\?UTF-8\?Q\?([^?]*)\?=/gi, (_m, q: string) =>
      Buffer.from(q.replace(/_/g, ' ').replace(/=([0-9A-F]{2})/gi, (_h, hex: string) => String.fromCharCode(parseInt(hex, 16))), 'latin1').toString('utf8'),
    );
}
const messageId = (raw: string) => /^Message-ID:\s*(<[^>]+>)/im.exec(raw)?.[1];

describe('buyer emails in one outbox: refund, and any kind through enqueueBuyerEmail', () => {
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

  it('a refund emails the buyer once (text and HTML, in the seller’s frame, with the receipt link), its Message-ID from the refund', { timeout: 90_000 }, async () => {
    const owner = await signedInPerson(server);
    await owner.client.json('PATCH', '/manage/api/organization', { name: 'Refund Shop BV', vat_number: 'NL111222333B01', logo: `data:image/png;base64,${PNG_BASE64}` });
    const offer = await makeOffer(server, owner.organizationId);
    const session = ((await (await server.fetch('/api/checkout/sessions', json({ offer: offer.slug }))).json()) as Body).session as Body;
    const paid = (await (await server.fetch(`/api/checkout/sessions/${session.id}/pay`, json({ email: 'refunded@example.com', name: 'Rae', card: GOOD_CARD }))).json()) as Body;
    const invoice = paid.invoice as Body;
    const mine = () => smtp.accepted.filter((m) => m.to.includes('refunded@example.com'));
    await vi.waitFor(() => expect(mine()).toHaveLength(1), WAIT);
    const receiptLink = /(http\S+\/receipts\/[A-Za-z0-9_-]{32})/.exec(plainText(mine()[0]!.raw))![1]!;

    const refund = await owner.client.json('POST', `/manage/api/invoices/${invoice.id}/refunds`, { amount: 500 });
    expect(refund.status, JSON.stringify(refund.body)).toBe(200);
    await vi.waitFor(() => expect(mine()).toHaveLength(2), WAIT);
    const raw = mine()[1]!.raw;
    expect(subjectOf(raw)).toBe(`Refund of €5.00: invoice #${invoice.number}`);
    const text = plainText(raw);
    expect(text).toContain(`€5.00 of your payment for invoice #${invoice.number} has been refunded`);
    expect(text).toContain('Refunded so far: €5.00 of €24.00.');
    expect(text).toContain(`Credit note: ${(refund.body as { credit_note: { number: string } }).credit_note.number}`);
    expect(text).toContain(`Your receipt: ${receiptLink}`);
    expect(text).toMatch(/Refund Shop BV\s+VAT NL111222333B01\s*$/);
    const html = htmlPart(raw);
    expect(html).toMatch(/<img src="http[^"]+\/logos\/org_[^"]+\.png" alt="Refund Shop BV"/);
    expect(html).toContain(`<a href="${receiptLink}">`);
    const [refundEvent] = (await server.services.store.readStream(`invoice-${invoice.id}`)).filter((e) => e.type === 'InvoiceRefunded');
    const refundId = (refundEvent!.data as { refund_id: string }).refund_id;
    expect(messageId(raw)).toBe(`<notice-refund-${invoice.id}-${refundId}@commerce.invalid>`);

    // The refund handled again (a subscriber re-run) queues nothing: the cause names the message.
    await queueRefundEmail(server.services, refundEvent!, (t) => t);
    await vi.waitFor(async () => {
      const events = await server.services.store.readStream(`notice-refund-${invoice.id}-${refundId}`);
      expect(events.map((e) => e.type)).toEqual(['NoticeQueued', 'NoticeSent']);
    }, WAIT);
    expect(mine()).toHaveLength(2);
  });

  it('enqueueBuyerEmail sends any buyer email once per cause; a confidential one is sealed in the log', { timeout: 60_000 }, async () => {
    const owner = await signedInPerson(server);
    const email = {
      kind: 'portal_sign_in' as const,
      cause: 'psr_abc123',
      organization_id: owner.organizationId,
      to: 'portal@example.com',
      subject: 'Your sign-in link',
      text: 'Sign in to see your purchases: https://shop.example/portal/x/signin?token=SECRET0123456789',
      about: 'cus_1',
      confidential: true,
    };
    expect(await enqueueBuyerEmail(server.services, email)).toEqual({ key: 'portal_sign_in-psr_abc123', queued: true });
    expect((await enqueueBuyerEmail(server.services, email)).queued).toBe(false);
    await expect(enqueueBuyerEmail(server.services, { ...email, cause: 'a b\r\n' })).rejects.toThrow('cause');

    await vi.waitFor(() => expect(smtp.accepted.filter((m) => m.to.includes('portal@example.com'))).toHaveLength(1), WAIT);
    const raw = smtp.accepted.find((m) => m.to.includes('portal@example.com'))!.raw;
    expect(plainText(raw)).toContain('token=SECRET0123456789');
    expect(htmlPart(raw)).toContain('<a href="https://shop.example/portal/x/signin?token=SECRET0123456789">');
    expect(messageId(raw)).toBe('<notice-portal_sign_in-psr_abc123@commerce.invalid>');
    const logged = await server.services.store.readStream('notice-portal_sign_in-psr_abc123');
    expect(JSON.stringify(logged)).not.toContain('SECRET0123456789');
  });

  it('tells the buyer before a trial ends and before a renewal charges them, once each', { timeout: 60_000 }, async () => {
    const org = await server.identity('Trial Shop');
    const plans = await importPlans(server, org.organizationId);
    const start = Math.floor(server.services.clock() / 1000);
    const trial = await SubscriptionLog.create(server, org.organizationId, { plan: plans.terms('basic'), amount: 1000, at: start, trialDays: 14, email: 'trial@example.com' });
    const paying = await SubscriptionLog.create(server, org.organizationId, { plan: plans.terms('basic'), amount: 1000, at: start, email: 'renewing@example.com' });
    await trial.act({ type: 'NoticeTrialWillEnd', now: start + 11 * DAY });
    await paying.act({ type: 'NoticeUpcoming', now: start + 20 * DAY });
    // Their first invoices' receipts go out too: the notices are the others.
    const notices = () => smtp.accepted.filter((m) => (m.to.includes('trial@example.com') || m.to.includes('renewing@example.com')) && messageId(m.raw)?.startsWith('<notice-'));
    await vi.waitFor(() => expect(notices()).toHaveLength(2), WAIT);

    const trialMail = notices().find((m) => m.to.includes('trial@example.com'))!.raw;
    expect(subjectOf(trialMail)).toMatch(/^Your trial of SaaS ends on \d{1,2} \w{3} \d{4}$/);
    expect(plainText(trialMail)).toContain('€10.00 will be charged');
    expect(plainText(trialMail)).toMatch(/Trial Shop\s*$/);
    expect(htmlPart(trialMail)).toContain('<strong style="font-size:18px">Trial Shop</strong>');
    expect(messageId(trialMail)).toBe(`<notice-trial_ending-${trial.id}-${start + 14 * DAY}@commerce.invalid>`);
    const renewal = notices().find((m) => m.to.includes('renewing@example.com'))!.raw;
    expect(subjectOf(renewal)).toMatch(/^Your subscription to SaaS renews on /);
    expect(plainText(renewal)).toContain(': €10.00 will be charged to your');
    expect(messageId(renewal)).toMatch(new RegExp(`^<notice-renewal_upcoming-${paying.id}-\\d+@commerce.invalid>$`));
  });
});

