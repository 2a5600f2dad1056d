import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECEIPTS, type ReceiptDoc } from '../../modules/receipts/receiptProjection.ts';
import { issueCreditNotes } from '../../modules/creditNotes/creditNoteCommands.ts';
import { creditNotesStream } from '../../modules/creditNotes/domain/creditNote.ts';
import { createApiKey, createUser } from '../../modules/identity/identityCommands.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { eventuallyPasses } from '../helpers/serverProcess.ts';
import { handleCommand } from '../../platform/es/handleCommand.ts';
import { invoiceDecider, invoiceStream } from '../../modules/checkout/domain/invoice.ts';
import { signedInPerson, type ManageClient } from '../helpers/manageClient.ts';
import { GOOD_CARD, json, makeOffer } from '../checkout/checkoutFixtures.ts';
import { importPlans, SubscriptionLog, T0, DAY } from '../subscriptions/subscriptionFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Refunds as a seller sees them everywhere: states and filters of invoices and sessions, the
 * figures (API sums = sales statistics = the Sales list), credit notes and the receipt page.
 */
describe('refunds everywhere', { timeout: 60_000 }, () => {
  let server: TestServer;
  let owner: { client: ManageClient; organizationId: string };
  let token = '';
  const invoices: Record<string, { id: string; session: string | null; total: number }> = {};

  const api = async (path: string, init: RequestInit = {}) => {
    const response = await server.fetch(path, { ...init, token });
    return { status: response.status, body: (await response.json()) as Body };
  };
  const refund = (invoiceId: string, body: unknown, key = token) =>
    server.fetch(`/api/invoices/${invoiceId}/refunds`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body), token: key });

  async function buy(amount: number, email: string) {
    const offer = await makeOffer(server, owner.organizationId, { content: { plan: { product_id: crypto.randomUUID(), plan_id: 'p', plan_name: 'p', charges: [{ id: 'c1', name: `Item ${amount}`, amount }] } } });
    const created = (await (await server.fetch('/api/checkout/sessions', json({ offer: offer.slug }))).json()) as Body;
    const paid = await server.fetch(`/api/checkout/sessions/${created.session.id}/pay`, json({ card: GOOD_CARD, email }));
    expect(paid.status).toBe(200);
    const body = (await paid.json()) as Body;
    return { id: body.invoice.id as string, session: created.session.id as string, total: amount };
  }

  beforeAll(async () => {
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000' } });
    owner = await signedInPerson(server);
    const user = await createUser(server.cliContext(owner.organizationId), { email: `keys-${owner.organizationId}@example.com`, organizationId: owner.organizationId, role: 'owner' });
    token = (await createApiKey(server.cliContext(owner.organizationId), { userId: user.id, organizationId: owner.organizationId })).token;
    invoices.one = await buy(2400, 'one@example.com');
    invoices.two = await buy(500, 'two@example.com');
    invoices.three = await buy(1900, 'three@example.com');
    // A subscription's renewal, paid and then refunded too.
    const { terms } = await importPlans(server, owner.organizationId);
    const log = await SubscriptionLog.create(server, owner.organizationId, { plan: terms('basic'), amount: 1000, at: T0 });
    invoices.renewal = { id: await log.bill(T0 + 31 * DAY), session: null, total: 1000 };
    await server.settle();
  });
  afterAll(() => server?.close({ remove: true }));

  it('refunds in full and in part, and every list, filter and figure says so', async () => {
    const full = await refund(invoices.two!.id, {});
    expect(full.status).toBe(200);
    expect(await full.json()).toMatchObject({ amount: 500, amount_refunded: 500, fully_refunded: true, refund_status: 'refunded', invoice_total: 500, credit_note: { number: 'CN-0001' } });
    const part = await refund(invoices.three!.id, { amount: 100, reason: 'product_unsatisfactory' });
    expect(await part.json()).toMatchObject({ amount: 100, amount_refunded: 100, refund_status: 'partially_refunded', credit_note: { number: 'CN-0002' } });
    const renewal = await refund(invoices.renewal!.id, { amount: 1000 });
    expect(await renewal.json()).toMatchObject({ refund_status: 'refunded', credit_note: { number: 'CN-0003' } });
    await server.settle();

    // The invoices: status stays paid (Stripe's), refund_status says what happened.
    const all = (await api('/api/invoices?per_page=100')).body.data as Body[];
    const byId = new Map(all.map((i) => [i.id, i]));
    expect(byId.get(invoices.two!.id)).toMatchObject({ status: 'paid', amount_refunded: 500, refund_status: 'refunded' });
    expect(byId.get(invoices.three!.id)).toMatchObject({ status: 'paid', amount_refunded: 100, refund_status: 'partially_refunded' });
    expect(byId.get(invoices.renewal!.id)).toMatchObject({ status: 'paid', amount_refunded: 1000, refund_status: 'refunded' });
    expect(byId.get(invoices.one!.id)).toMatchObject({ status: 'paid', amount_refunded: 0, refund_status: null });
    const ids = (rows: Body[]) => rows.map((r) => r.id).sort();
    expect(ids((await api('/api/invoices?status=refunded')).body.data)).toEqual([invoices.two!.id, invoices.renewal!.id].sort());
    expect(ids((await api('/api/invoices?status=partially_refunded')).body.data)).toEqual([invoices.three!.id]);

    // The sessions, through the API and the dashboard's Sales list.
    expect(ids((await api('/api/checkout/sessions?status=refunded')).body.data)).toEqual([invoices.two!.session]);
    const partly = (await api('/api/checkout/sessions?status=partially_refunded')).body.data as Body[];
    expect(partly).toEqual([expect.objectContaining({ id: invoices.three!.session, status: 'completed', refund_status: 'partially_refunded', amount_refunded: 100 })]);
    const sales = await owner.client.json<{ data: Body[] }>('GET', '/manage/api/checkout/sessions?per_page=100');
    const sale = (id: string | null) => sales.body.data.find((s) => s.id === id)!;
    expect(sale(invoices.two!.session)).toMatchObject({ refund_status: 'refunded', amount_refunded: 500, invoice: { refund_status: 'refunded' } });
    expect(sale(invoices.one!.session)).toMatchObject({ refund_status: null, amount_refunded: 0 });
    const refundedSales = await owner.client.json<{ data: Body[] }>('GET', '/manage/api/checkout/sessions?status=refunded');
    expect(refundedSales.body.data.map((s) => s.id)).toEqual([invoices.two!.session]);
    const refundedInvoices = await owner.client.json<{ data: Body[] }>('GET', '/manage/api/invoices?status=partially_refunded');
    expect(refundedInvoices.body.data.map((i) => i.id)).toEqual([invoices.three!.id]);

    // The figures: the statistics agree with the sums of GET /api/invoices and with the Sales list.
    const paid = all.filter((i) => i.status === 'paid');
    const gross = paid.reduce((sum, i) => sum + i.amount_paid, 0);
    const refunded = all.reduce((sum, i) => sum + i.amount_refunded, 0);
    expect(gross).toBe(2400 + 500 + 1900 + 1000 + 1000);
    expect(refunded).toBe(1600);
    const stats = await owner.client.json<Body>('GET', '/manage/api/stats/sales?days=7');
    expect(stats.body.totals).toMatchObject({ gross: { EUR: gross }, refunds: { EUR: refunded }, net: { EUR: gross - refunded } });
    const days = stats.body.days as Body[];
    expect(days.reduce((sum, d) => sum + (d.net.EUR ?? 0), 0)).toBe(gross - refunded);
    const salesRefunded = sales.body.data.reduce((sum, s) => sum + s.amount_refunded, 0);
    // The Sales list holds the checkouts' refunds; the statistics add the renewal's.
    expect(salesRefunded + 1000).toBe(stats.body.totals.refunds.EUR);
    // And the CSV export of the invoices, what a seller's books read, sums to the same.
    const csv = await (await owner.client.request('GET', '/manage/api/exports/invoices.csv')).text();
    const [head, ...rows] = csv.trim().split('\r\n').map((line) => line.split(','));
    const column = (name: string) => head!.indexOf(name);
    const cents = (name: string) => rows.reduce((sum, r) => sum + Math.round(Number(r[column(name)]) * 100), 0);
    expect(rows).toHaveLength(all.length);
    expect(cents('amount_paid')).toBe(gross);
    expect(cents('amount_refunded')).toBe(refunded);
  });

  it('numbers credit notes per organization with no gap or duplicate, and serves them with their PDF', async () => {
    const list = await api('/api/credit_notes');
    expect(list.status).toBe(200);
    expect((list.body.data as Body[]).map((n) => n.number)).toEqual(['CN-0001', 'CN-0002', 'CN-0003']);
    const note = (list.body.data as Body[])[1]!;
    expect(note).toMatchObject({ object: 'credit_note', invoice: invoices.three!.id, amount: 100, currency: 'EUR', reason: 'product_unsatisfactory', customer: { email: 'three@example.com' } });
    expect(note.id).toMatch(/^cn_[a-f0-9]{24}$/);
    expect((await api(`/api/credit_notes?invoice=${invoices.three!.id}`)).body.data).toEqual([note]);
    expect((await api(`/api/credit_notes/${note.id}`)).body).toEqual(note);
    const pdf = await server.fetch(`/api/credit_notes/${note.id}/pdf`, { token });
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');

    // Issuing again (a redelivered refund, a crash's retry) adds nothing.
    const before = (await server.services.store.readStream(creditNotesStream(owner.organizationId))).length;
    await issueCreditNotes(server.cliContext(owner.organizationId), invoices.three!.id);
    await issueCreditNotes(server.cliContext(owner.organizationId), invoices.two!.id);
    expect((await server.services.store.readStream(creditNotesStream(owner.organizationId))).length).toBe(before);

    // Refunds at once each get their own next number.
    const answers = await Promise.all([100, 200, 300].map((amount) => refund(invoices.one!.id, { amount }).then((r) => r.json() as Promise<Body>)));
    const numbers = answers.map((a) => a.credit_note?.number).sort();
    expect(numbers).toEqual(['CN-0004', 'CN-0005', 'CN-0006']);

    // Another organization's key sees none of them.
    const other = await server.identity('Other shop');
    expect((await server.fetch(`/api/credit_notes/${note.id}`, { token: other.token })).status).toBe(404);
    expect(((await (await server.fetch('/api/credit_notes', { token: other.token })).json()) as Body).data).toEqual([]);
    expect((await refund(invoices.one!.id, { amount: 1 }, other.token)).status).toBe(404);
  });

  it('issues the credit note of a refund recorded without the route (Stripe-reported), from its subscriber', async () => {
    const invoice = await buy(700, 'reported@example.com');
    // As charge.refunded records a refund made in Stripe's dashboard: on the invoice alone.
    await handleCommand(server.cliContext(owner.organizationId), invoiceStream(invoice.id), invoiceDecider, { type: 'RecordRefund', refundId: 're_dash', chargeId: 'ch_x', amountRefunded: 700, now: 1 });
    await eventuallyPasses(async () => {
      const notes = (await api(`/api/credit_notes?invoice=${invoice.id}`)).body.data as Body[];
      expect(notes).toEqual([expect.objectContaining({ refund: 're_dash', amount: 700, invoice: invoice.id })]);
    });
  });

  it("shows each refund on the buyer's receipt page with its credit note", async () => {
    await server.settle();
    const receipt = await server.services.readStore.get<ReceiptDoc>(RECEIPTS, invoices.three!.id);
    const page = await server.fetch(`/receipts/${receipt!.token}`);
    const html = await page.text();
    expect(html).toContain('Refunded €1.00 of €19.00.');
    expect(html).toMatch(/€1\.00 refunded on \d+ \w+ \d{4} \(Product unsatisfactory\): <a href="\/receipts\/[\w-]+\/credit_notes\/cn_[a-f0-9]{24}\/pdf"[^>]*>credit note CN-0002 \(PDF\)<\/a>/);
    const link = /href="(\/receipts\/[\w-]+\/credit_notes\/cn_[a-f0-9]{24}\/pdf)"/.exec(html)![1]!;
    const pdf = await server.fetch(link);
    expect(pdf.status).toBe(200);
    expect(pdf.headers.get('cache-control')).toBe('no-store');
    expect(Buffer.from(await pdf.arrayBuffer()).subarray(0, 5).toString()).toBe('%PDF-');
    // A full refund says so; a receipt without refunds has no such section.
    const two = await server.services.readStore.get<ReceiptDoc>(RECEIPTS, invoices.two!.id);
    expect(await (await server.fetch(`/receipts/${two!.token}`)).text()).toContain('Refunded in full: €5.00.');
    const otherReceipt = await server.services.readStore.get<ReceiptDoc>(RECEIPTS, invoices.renewal!.id);
    if (otherReceipt) expect(await (await server.fetch(`/receipts/${otherReceipt.token}`)).text()).toContain('Refunded in full: €10.00.');
  });

  it('refuses bad refunds with clear errors', async () => {
    const tooMuch = await refund(invoices.three!.id, { amount: 1900 });
    expect(tooMuch.status).toBe(422);
    expect(await tooMuch.json()).toMatchObject({ code: 'invalid_refund_amount' });
    expect((await refund(invoices.two!.id, {})).status).toBe(409);
    expect((await refund(invoices.three!.id, { reason: 'because' })).status).toBe(422);
    const member = await createUser(server.cliContext(owner.organizationId), { email: `member-${owner.organizationId}@example.com`, organizationId: owner.organizationId, role: 'member' });
    const memberKey = (await createApiKey(server.cliContext(owner.organizationId), { userId: member.id, organizationId: owner.organizationId })).token;
    await server.settle();
    expect((await refund(invoices.three!.id, { amount: 1 }, memberKey)).status).toBe(403);
    expect((await server.fetch('/api/credit_notes', { token: memberKey })).status).toBe(200);
  });
});
