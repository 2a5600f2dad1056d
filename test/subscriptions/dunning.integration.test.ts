import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { testPaymentProvider } from '../../modules/payments/testPaymentProvider.ts';
import { billingLinkStream } from '../../modules/subscriptions/domain/billingLink.ts';
import { subscriptionDecider, subscriptionStream } from '../../modules/subscriptions/domain/subscription.ts';
import { queuePaymentFailedEmail } from '../../modules/subscriptions/jobs/dunningEmails.ts';
import { invoiceStream } from '../../modules/checkout/domain/invoice.ts';
import { noticeStream } from '../../modules/receipts/domain/notice.ts';
import { fold } from '../../platform/domain/decider.ts';
import { loggedApp } from '../helpers/loggedApp.ts';
import { plainText, startSmtpReceiver } from '../helpers/smtpReceiver.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { DEFAULT_DUNNING } from '../../modules/subscriptions/domain/subscription.ts';
import { renewal } from './dunningFixtures.ts';

const ENV = { RECEIPT_POLL_INTERVAL_MS: '100', RECEIPT_RETRY_BASE_SECONDS: '1' };
const WAIT = { timeout: 20_000, interval: 50 };
const LINK = /https?:\/\/[^\s/]+\/billing\/([A-Za-z0-9_-]{32})(?![A-Za-z0-9_-])/;

/** Whether the payments module can keep a card for later charges (the saved-card step of the test provider). */
const savesCards = await (async () => {
  const charge = testPaymentProvider.charge as unknown as (request: Record<string, unknown>) => Promise<{ paymentMethod?: unknown }>;
  const result = await charge({ amount: 0, currency: 'EUR', card: { number: '4242424242424242', exp_month: 12, exp_year: 2040, cvc: '123' }, idempotencyKey: 'probe', description: 'probe', now: Date.now(), save: true });
  return result.paymentMethod !== undefined;
})();

describe('dunning: emails, the hosted card page', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let server: TestServer;
  let organizationId: string;
  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    server = await startTestServer({ env: { ...ENV, SMTP_URL: smtp.url } });
    organizationId = (await server.identity('Acme Tools')).organizationId;
  });
  afterAll(async () => {
    await server?.close({ remove: true });
    await smtp?.close();
  });

  const mailsTo = (to: string) => smtp.accepted.filter((m) => m.to.includes(to));
  const mailTo = async (to: string, count = 1) => {
    await vi.waitFor(() => expect(mailsTo(to).length).toBe(count), WAIT);
    const mail = mailsTo(to)[count - 1]!;
    return { raw: mail.raw, text: plainText(mail.raw), subject: /^Subject: (.*)$/m.exec(mail.raw)?.[1] ?? '' };
  };
  const page = (token: string) => server.fetch(`/billing/${token}`, { headers: { accept: 'text/html' } });
  const submit = (token: string, fields: Record<string, string>, headers: Record<string, string> = { origin: server.url }) =>
    server.fetch(`/billing/${token}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html', ...headers },
      body: new URLSearchParams(fields).toString(),
    });
  const stateOf = async (id: string) => fold(subscriptionDecider, (await server.services.store.readStream(subscriptionStream(id))) as never);

  it('emails the buyer once per failure: what failed, the next retry, and a private link whose token the log never holds', async () => {
    const sub = await renewal(server, organizationId, { email: 'once@example.com' });
    const mail = await mailTo('once@example.com');
    expect(mail.subject).toBe('Payment failed for your Pro subscription');
    expect(mail.text).toContain('We could not collect the payment for your subscription to Pro (Monthly) from Acme Tools.');
    expect(mail.text).toContain('Amount: €10.00');
    expect(mail.text).toContain('Card: visa ending in 0341');
    expect(mail.text).toContain('Reason: Your bank declined the payment.');
    const retryDay = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(new Date((sub.failedAt + 86_400) * 1000));
    expect(mail.text).toContain(`We will try the card again on ${retryDay}.`);
    const token = LINK.exec(mail.text)?.[1];
    expect(token).toBeDefined();

    // Only the token's hash is in the log: its link's stream, and no event anywhere holds the token.
    const hash = createHash('sha256').update(token!).digest('hex');
    const link = await server.services.store.readStream(billingLinkStream(hash));
    expect(link.map((e) => e.type)).toEqual(['BillingLinkIssued']);
    expect(link[0]!.data).toMatchObject({ subscription_id: sub.id, invoice_id: sub.invoiceId, organization_id: organizationId });
    const everything = await server.services.store.readAll({ after: null, limit: 100_000 });
    expect(everything.some((e) => JSON.stringify(e).includes(token!))).toBe(false);

    // The failure handled again (a redelivery) queues nothing more, and nothing more is sent.
    const failed = (await server.services.store.readStream(subscriptionStream(sub.id))).find((e) => e.type === 'SubscriptionPaymentFailed')!;
    const key = await queuePaymentFailedEmail(server.services, failed);
    expect((await server.services.store.readStream(noticeStream(key!))).map((e) => e.type)).toEqual(['NoticeQueued', 'NoticeSent']);
    await server.settle();
    expect(mailsTo('once@example.com')).toHaveLength(1);

    // The access log shows the route, never the token.
    const logged = await loggedApp(server.services);
    try {
      const lines = await logged.logOf(`/billing/${token!}`, { headers: { accept: 'text/html' } });
      expect(lines.join('\n')).toContain('/billing/[REDACTED]');
      expect(lines.some((l) => l.includes(token!))).toBe(false);
    } finally {
      await logged.app.close();
    }
  });

  it('shows the plan, the amount due and the last decline under strict headers, mobile-first', async () => {
    await renewal(server, organizationId, { email: 'page@example.com' });
    const token = LINK.exec((await mailTo('page@example.com')).text)![1]!;
    const response = await page(token);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('referrer-policy')).toBe('same-origin');
    expect(response.headers.get('x-frame-options')).toBe('DENY');
    const csp = response.headers.get('content-security-policy')!;
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).toMatch(/form-action 'self'/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(csp).not.toMatch(/script-src|unsafe-inline/);
    const html = await response.text();
    expect(html).toContain('name="viewport" content="width=device-width,initial-scale=1"');
    expect(html).toContain('<p id="seller">Acme Tools</p>');
    expect(html).toContain('Pro (Monthly)');
    expect(html).toContain('<dd id="amount-due">€10.00</dd>');
    expect(html).toContain('Your bank declined the payment.');
    expect(html).toContain(`action="/billing/${token}"`);
    expect(html).not.toContain('<script');
  });

  it('answers every other input with a page, never a 500, and takes the form only from its own page', async () => {
    const sub = await renewal(server, organizationId, { email: 'input@example.com' });
    const token = LINK.exec((await mailTo('input@example.com')).text)![1]!;
    for (const bad of ['A'.repeat(32), 'short', '%00', 'x'.repeat(90), token.slice(0, 31)]) {
      const response = await page(bad);
      expect(response.status, bad).toBe(404);
      expect(await response.text()).toContain('This link is no longer valid');
    }
    const before = (await server.services.store.readStream(subscriptionStream(sub.id))).length;
    const crossSite = await submit(token, { number: '4242424242424242', exp: '12/40', cvc: '123' }, { origin: 'https://evil.example' });
    expect(crossSite.status).toBe(403);
    const fetchSite = await submit(token, { number: '4242424242424242', exp: '12/40', cvc: '123' }, { 'sec-fetch-site': 'cross-site' });
    expect(fetchSite.status).toBe(403);
    for (const fields of [{}, { number: 'abc', exp: '12/40', cvc: '123' }, { number: '4242424242424242', exp: '13/40', cvc: '123' }, { number: '4242424242424242', exp: '12/40', cvc: 'x' }, { number: '4'.repeat(4000) }]) {
      const response = await submit(token, fields as Record<string, string>);
      expect(response.status, JSON.stringify(fields).slice(0, 80)).toBe(422);
      expect(await response.text()).toContain('id="error"');
    }
    const json = await server.fetch(`/billing/${token}`, { method: 'POST', headers: { 'content-type': 'application/json', origin: server.url }, body: '{"number":[1]}' });
    expect(json.status).toBe(422);
    const huge = await server.fetch(`/billing/${token}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', origin: server.url }, body: `number=${'4'.repeat(10_000)}` });
    expect(huge.status).toBe(413);
    const other = await server.fetch(`/billing/${token}`, { method: 'POST', headers: { 'content-type': 'text/plain', origin: server.url }, body: 'hello' });
    expect(other.status).toBe(415);
    expect((await server.services.store.readStream(subscriptionStream(sub.id))).length).toBe(before);
  });

  it('takes at most 20 tries of one link’s form in 15 minutes', async () => {
    await renewal(server, organizationId, { email: 'tries@example.com' });
    const token = LINK.exec((await mailTo('tries@example.com')).text)![1]!;
    const statuses: number[] = [];
    for (let i = 0; i < 21; i++) statuses.push((await submit(token, { number: '4000000000000002', exp: '12/40', cvc: '123' })).status);
    expect(statuses.slice(0, 20).every((s) => s === 402)).toBe(true);
    expect(statuses[20]).toBe(429);
    // Another link is not held back by this one.
    await renewal(server, organizationId, { email: 'tries2@example.com' });
    const other = LINK.exec((await mailTo('tries2@example.com')).text)![1]!;
    expect((await submit(other, { number: '4000000000000002', exp: '12/40', cvc: '123' })).status).toBe(402);
  });

  it('keeps the form with the decline in plain words when the new card is refused', async () => {
    const sub = await renewal(server, organizationId, { email: 'refused@example.com' });
    const token = LINK.exec((await mailTo('refused@example.com')).text)![1]!;
    const declined = await submit(token, { number: '4000 0000 0000 0002', exp: '12/40', cvc: '123' });
    expect(declined.status).toBe(402);
    const html = await declined.text();
    expect(html).toContain('<section class="error" role="alert" id="error"><p>Your bank declined the payment.</p></section>');
    expect(html).toContain('<form method="post"');
    expect((await stateOf(sub.id)).status).toBe('past_due');
    const expired = await submit(token, { number: '4242424242424242', exp: '01/20', cvc: '123' });
    expect(expired.status).toBe(402);
    expect(await expired.text()).toContain('The card has expired.');
  });

  it.runIf(savesCards)('recovers the subscription with a new card in the request, then the link stops working', async () => {
    const sub = await renewal(server, organizationId, { email: 'recover@example.com' });
    const token = LINK.exec((await mailTo('recover@example.com')).text)![1]!;
    const response = await submit(token, { number: '4242 4242 4242 4242', exp: '12 / 2040', cvc: '123' });
    const html = await response.text();
    expect(response.status).toBe(200);
    expect(html).toContain('Thank you, your subscription is active');
    const state = await stateOf(sub.id);
    expect(state.status).toBe('active');
    if (state.status === 'none') throw new Error('no subscription');
    expect(state.entitled).toBe(true);
    expect(state.payment_method?.card.last4).toBe('4242');
    expect(state.current_period_end).toBe(sub.periodEnd);
    const invoice = await server.services.store.readStream(invoiceStream(sub.invoiceId));
    expect(invoice.map((e) => e.type)).toContain('InvoicePaid');
    expect((await page(token)).status).toBe(404);
    // The receipt of the renewal says which period it pays.
    const receipt = await mailTo('recover@example.com', 2);
    expect(receipt.subject).toMatch(/^Your receipt from Acme Tools/);
    expect(receipt.text).toMatch(/For \d{1,2} \w{3} \d{4} – \d{1,2} \w{3} \d{4}/);
  });

  it.runIf(savesCards)('a saved card that fails again keeps the form with the decline, and the buyer is emailed about that failure too', async () => {
    const sub = await renewal(server, organizationId, { email: 'again@example.com' });
    const token = LINK.exec((await mailTo('again@example.com')).text)![1]!;
    const response = await submit(token, { number: '4000000000000341', exp: '12/40', cvc: '123' });
    expect(response.status).toBe(402);
    expect(await response.text()).toContain('Your bank declined the payment.');
    expect((await stateOf(sub.id)).status).toBe('past_due');
    await mailTo('again@example.com', 2);
  });

  it('on the last failure tells the buyer the subscription ended, with no link', async () => {
    const sub = await renewal(server, organizationId, { email: 'ended@example.com', settings: { ...DEFAULT_DUNNING, retry_days: [] } });
    expect(sub.state.status).toBe('canceled');
    const mail = await mailTo('ended@example.com');
    expect(mail.subject).toBe('Your Pro subscription has ended: the payment failed');
    expect(mail.text).toContain('That was the last attempt.');
    expect(mail.text).toContain('Your subscription has therefore ended; nothing more will be charged.');
    expect(mail.text).not.toMatch(/\/billing\//);
  });

  it('after a hard decline says no retry will come; an unpaid subscription keeps its link', async () => {
    const sub = await renewal(server, organizationId, {
      email: 'unpaid@example.com',
      decline: { code: 'expired_card', declineCode: null, message: 'Your card has expired.' },
      settings: { ...DEFAULT_DUNNING, final_action: 'unpaid' },
    });
    expect(sub.state.status).toBe('unpaid');
    const mail = await mailTo('unpaid@example.com');
    expect(mail.subject).toBe('Your Pro subscription is unpaid');
    expect(mail.text).toContain('Reason: The card has expired.');
    expect(mail.text).toContain('This card cannot be charged again, so no further attempt will be made.');
    expect(mail.text).toContain('Your subscription is now unpaid');
    const token = LINK.exec(mail.text)![1]!;
    const response = await page(token);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('Your subscription is unpaid');
  });

  it('emails nobody when the buyer has no email', async () => {
    const sub = await renewal(server, organizationId, { email: null });
    const failed = (await server.services.store.readStream(subscriptionStream(sub.id))).find((e) => e.type === 'SubscriptionPaymentFailed')!;
    expect(await queuePaymentFailedEmail(server.services, failed)).toBeNull();
  });

  it('in live mode asks the buyer to contact the seller', async () => {
    await renewal(server, organizationId, { email: 'live@example.com', mode: 'live' });
    const token = LINK.exec((await mailTo('live@example.com')).text)![1]!;
    const html = await (await page(token)).text();
    expect(html).toContain('To change the card of this subscription, please contact Acme Tools.');
    expect(html).not.toContain('<form');
    expect((await submit(token, { number: '4242424242424242', exp: '12/40', cvc: '123' })).status).toBe(409);
  });
});
