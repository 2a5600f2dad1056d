import { PDFParse } from 'pdf-parse';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { receiptStream } from '../../modules/receipts/domain/receipt.ts';
import { subscriptionDecider, subscriptionStream } from '../../modules/subscriptions/domain/subscription.ts';
import { fold } from '../../platform/domain/decider.ts';
import { handleCommand, toNewEvent } from '../../platform/es/handleCommand.ts';
import { invoiceDecider, invoiceStream } from '../../modules/checkout/domain/invoice.ts';
import { GOOD_CARD, json, makeOffer } from '../checkout/checkoutFixtures.ts';
import { plainText, startSmtpReceiver } from '../helpers/smtpReceiver.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { renewal } from './dunningFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const WAIT = { timeout: 20_000, interval: 50 };
const day = (unix: number) => new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(new Date(unix * 1000));

async function pdfText(data: Uint8Array): Promise<string> {
  const parser = new PDFParse({ data });
  try {
    return (await parser.getText()).text;
  } finally {
    await parser.destroy();
  }
}

describe('a subscription receipt: the period it pays, and cancel at period end from it', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let server: TestServer;
  let organizationId: string;
  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    server = await startTestServer({ env: { RECEIPT_POLL_INTERVAL_MS: '100', SMTP_URL: smtp.url } });
    organizationId = (await server.identity('Acme Tools')).organizationId;
  });
  afterAll(async () => {
    await server?.close({ remove: true });
    await smtp?.close();
  });

  const receiptToken = async (invoiceId: string) => {
    let token = '';
    await vi.waitFor(async () => {
      const queued = (await server.services.store.readStream(receiptStream(invoiceId))).find((e) => e.type === 'ReceiptQueued');
      expect(queued).toBeDefined();
      token = (queued!.data as { token: string }).token;
    }, WAIT);
    await server.settle();
    return token;
  };
  const html = (path: string) => server.fetch(path, { headers: { accept: 'text/html' } });
  const post = (path: string, origin = server.url) =>
    server.fetch(path, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded', origin }, body: '' });
  const stateOf = async (id: string) => {
    const state = fold(subscriptionDecider, (await server.services.store.readStream(subscriptionStream(id))) as never);
    if (state.status === 'none') throw new Error('no subscription');
    return state;
  };

  it('says the period in the email, the page and the PDF, and cancels at period end and back from the page', async () => {
    const sub = await renewal(server, organizationId, { email: 'period@example.com', pays: true });
    const period = `For ${day(sub.periodStart)} – ${day(sub.periodEnd)}`;
    const token = await receiptToken(sub.invoiceId);

    await vi.waitFor(() => expect(smtp.accepted.filter((m) => m.to.includes('period@example.com'))).toHaveLength(1), WAIT);
    const mail = plainText(smtp.accepted.find((m) => m.to.includes('period@example.com'))!.raw);
    expect(mail).toContain('Thank you for your payment, Ada Buyer.');
    expect(mail).toContain(period);
    expect(mail).toContain(`To cancel your subscription (at the end of the period paid for): `);
    expect(mail).toMatch(new RegExp(`/receipts/${token}\\s*$`, 'm'));

    const page = await html(`/receipts/${token}`);
    expect(page.headers.get('content-security-policy')).toMatch(/form-action 'self'/);
    const before = await page.text();
    expect(before).toContain(`<p id="period">${period}</p>`);
    expect(before).toContain(`Your subscription renews on ${day(sub.periodEnd)}.`);
    expect(before).toContain(`<form method="post" action="/receipts/${token}/cancel">`);

    const pdf = await html(`/receipts/${token}/invoice.pdf`);
    expect(await pdfText(new Uint8Array(await pdf.arrayBuffer()))).toContain(period);

    // Another site's form cannot cancel with the receipt's link.
    expect((await post(`/receipts/${token}/cancel`, 'https://evil.example')).status).toBe(403);
    expect((await stateOf(sub.id)).cancel_at).toBeNull();

    const canceled = await post(`/receipts/${token}/cancel`);
    expect(canceled.status).toBe(303);
    expect(canceled.headers.get('location')).toBe(`/receipts/${token}`);
    const scheduled = await stateOf(sub.id);
    expect(scheduled.cancel_at).toBe(sub.periodEnd);
    expect(scheduled.status).toBe('active');
    const events = await server.services.store.readStream(subscriptionStream(sub.id));
    expect(events.at(-1)).toMatchObject({ type: 'SubscriptionCancelScheduled', data: { requested_by: 'customer', cancel_at: sub.periodEnd } });
    const after = await (await html(`/receipts/${token}`)).text();
    expect(after).toContain(`Your subscription is canceled. It stays active until ${day(sub.periodEnd)}`);
    expect(after).toContain(`<form method="post" action="/receipts/${token}/reactivate"><button type="submit" id="keep">Keep my subscription</button>`);
    // Twice is once.
    expect((await post(`/receipts/${token}/cancel`)).status).toBe(303);
    expect((await server.services.store.readStream(subscriptionStream(sub.id))).length).toBe(events.length);

    expect((await post(`/receipts/${token}/reactivate`)).status).toBe(303);
    expect((await stateOf(sub.id)).cancel_at).toBeNull();
    expect(await (await html(`/receipts/${token}`)).text()).toContain('<button type="submit" id="cancel">Cancel subscription</button>');
  });

  it('names the subscription on the receipt of the checkout that started it (its completion names it)', async () => {
    const sub = await renewal(server, organizationId, { email: 'first@example.com', pays: true });
    const sessionId = `cs_test_first_${sub.id}`;
    const invoiceId = `in_first_${sub.id}`;
    const metadata = { correlation_id: 'test', actor: { type: 'cli' as const }, organization_id: organizationId, occurred_at: sub.periodStart };
    // The checkout's own events as its completion records them for a recurring plan.
    await server.services.store.append(`checkout_session-${sessionId}`, [toNewEvent({ type: 'CheckoutSessionCompleted', data: { invoice_id: invoiceId, completed_at: sub.periodStart, subscription_id: sub.id } }, metadata)], 'no_stream');
    const ctx = { store: server.services.store, metadata };
    await handleCommand(ctx, invoiceStream(invoiceId), invoiceDecider, {
      type: 'CreateInvoice',
      invoice: { id: invoiceId, number: 1, organization_id: organizationId, session_id: sessionId, lines: [{ name: 'Pro monthly', amount: 1000 }], currency: 'EUR', customer: { email: 'first@example.com', name: 'Ada Buyer', user_id: null }, mode: 'test' },
      now: sub.periodStart,
    });
    await handleCommand(ctx, invoiceStream(invoiceId), invoiceDecider, { type: 'PayInvoice', attemptId: `${invoiceId}_a1`, card: { brand: 'visa', last4: '4242' }, customer: null, now: sub.periodStart });
    const token = await receiptToken(invoiceId);
    const queued = (await server.services.store.readStream(receiptStream(invoiceId))).find((e) => e.type === 'ReceiptQueued')!;
    expect((queued.data as Body).receipt).toMatchObject({ subscription_id: sub.id });
    expect((queued.data as Body).receipt.period).toBeUndefined();
    const page = await (await html(`/receipts/${token}`)).text();
    expect(page).toContain('<button type="submit" id="cancel">Cancel subscription</button>');
    expect(page).not.toContain('id="period"');
  });

  it('shows no cancel on a one-time purchase, and refuses a cancel of it or of an unknown receipt', async () => {
    const offer = await makeOffer(server, organizationId);
    const created = (await (await server.fetch('/api/checkout/sessions', json({ offer: offer.slug }))).json()) as Body;
    const paid = (await (await server.fetch(`/api/checkout/sessions/${created.session.id}/pay`, json({ email: 'once-off@example.com', name: 'Bo', card: GOOD_CARD }))).json()) as Body;
    const token = await receiptToken(paid.invoice.id as string);
    const page = await (await html(`/receipts/${token}`)).text();
    expect(page).not.toContain('id="subscription"');
    expect(page).not.toContain('id="period"');
    expect((await post(`/receipts/${token}/cancel`)).status).toBe(404);
    expect((await post(`/receipts/${'A'.repeat(32)}/cancel`)).status).toBe(404);
    expect((await post('/receipts/short/cancel')).status).toBe(422);
  });
});
