import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishOffer, upsertOffer } from '../../modules/checkout/offerCommands.ts';
import { offerContent } from '../checkout/checkoutFixtures.ts';
import { signedInPerson, type ManageClient } from '../helpers/manageClient.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';

type Page = { data: Array<Record<string, unknown> & { id: string }>; meta: { total: number } };

describe('checkout sessions and invoices for a signed-in person', () => {
  let server: TestServer;
  const clock = manualClock(Date.UTC(2026, 0, 10));
  let owner: ManageClient;
  let stranger: ManageClient;
  const ids: Record<string, string> = {};
  let invoiceId: string;
  let t0: number;

  const session = async (slug: string, email?: string) => {
    const response = await server.fetch('/api/checkout/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ offer: slug, ...(email ? { customer: { email } } : {}) }),
    });
    expect(response.status).toBe(201);
    return ((await response.json()) as { session: { id: string } }).session.id;
  };

  beforeAll(async () => {
    server = await startTestServer({ clock });
    const person = await signedInPerson(server);
    owner = person.client;
    const other = await signedInPerson(server);
    stranger = other.client;
    const offer = await upsertOffer(server.cliContext(person.organizationId), { organizationId: person.organizationId, slug: 'lists-offer', ...offerContent() });
    await publishOffer(server.cliContext(person.organizationId), offer.uuid);
    await server.settle();
    t0 = Math.floor(clock() / 1000);
    ids.a = await session('lists-offer', 'ann@example.com');
    clock.advance(3600_000);
    ids.b = await session('lists-offer', 'bob@example.com');
    clock.advance(3600_000);
    ids.c = await session('lists-offer', 'ann@example.com');
    const started = await server.fetch(`/api/checkout/sessions/${ids.c}/start`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(started.status).toBe(200);
    invoiceId = ((await started.json()) as { session: { invoice: { id: string } } }).session.invoice.id;
    // Two idle hours went by: sign in again.
    for (const p of [person, other]) expect((await p.client.json('POST', '/manage/api/sign-in', { email: p.email, password: p.password })).status).toBe(200);
    await server.settle();
  });
  afterAll(() => server.close({ remove: true }));

  it('lists sessions newest first, filtered by buyer email, status and creation time', async () => {
    const all = await owner.json<Page>('GET', '/manage/api/checkout/sessions');
    expect(all.body.data.map((s) => s.id)).toEqual([ids.c, ids.b, ids.a]);
    expect(all.body.data[0]).toMatchObject({ status: 'open', customer: { email: 'ann@example.com' }, offer: { slug: 'lists-offer' } });
    expect((await owner.json<Page>('GET', '/manage/api/checkout/sessions?email=ann@example.com')).body.data.map((s) => s.id)).toEqual([ids.c, ids.a]);
    const window = await owner.json<Page>('GET', `/manage/api/checkout/sessions?created_from=${t0 + 1800}&created_to=${t0 + 5400}`);
    expect(window.body.data.map((s) => s.id)).toEqual([ids.b]);
    expect((await owner.json<Page>('GET', '/manage/api/checkout/sessions?status=completed')).body.meta.total).toBe(0);
    const paged = await owner.json<Page>('GET', '/manage/api/checkout/sessions?per_page=2&page=2');
    expect(paged.body).toMatchObject({ data: [{ id: ids.a }], meta: { total: 3, current_page: 2, last_page: 2 } });
    // Page by page, from either end of the list, the same order as the whole list.
    const oneByOne = [];
    for (let p = 1; p <= 4; p++) oneByOne.push(...(await owner.json<Page>('GET', `/manage/api/checkout/sessions?per_page=1&page=${p}`)).body.data.map((s) => s.id));
    expect(oneByOne).toEqual([ids.c, ids.b, ids.a]);
    expect((await owner.json<Page>('GET', '/manage/api/checkout/sessions?status=open')).body.meta.total).toBe(3);
    expect((await owner.json<Page>('GET', '/manage/api/checkout/sessions?status=expired')).body.meta.total).toBe(0);
  });

  it('counts a session made after a list was read', async () => {
    expect((await owner.json<Page>('GET', '/manage/api/checkout/sessions')).body.meta.total).toBe(3);
    clock.advance(1000);
    const d = await session('lists-offer', 'dan@example.com');
    await server.settle();
    const after = await owner.json<Page>('GET', '/manage/api/checkout/sessions');
    expect(after.body.meta.total).toBe(4);
    expect(after.body.data[0]!.id).toBe(d);
    ids.d = d;
  });

  it('shows a session and an invoice with the audit history', async () => {
    const detail = await owner.json<{ id: string; history: Array<{ type: string; actor: unknown }> }>('GET', `/manage/api/checkout/sessions/${ids.c}`);
    expect(detail.status).toBe(200);
    expect(detail.body.history.map((h) => h.type)).toEqual(['CheckoutSessionCreated', 'CheckoutSessionStarted', 'InvoiceCreated']);
    const invoices = await owner.json<Page>('GET', '/manage/api/invoices?status=open');
    expect(invoices.body.data).toEqual([expect.objectContaining({ id: invoiceId, status: 'open', session: expect.objectContaining({ id: ids.c }) })]);
    expect((await owner.json<Page>('GET', '/manage/api/invoices?email=bob@example.com')).body.meta.total).toBe(0);
    const invoice = await owner.json<{ id: string; session_id: string; history: unknown[] }>('GET', `/manage/api/invoices/${invoiceId}`);
    expect(invoice.body).toMatchObject({ id: invoiceId, session_id: ids.c, status: 'open' });
    expect(invoice.body.history).toHaveLength(3);
  });

  it('refuses bad filters with 422, and answers another organization\'s ids as unknown ones', async () => {
    for (const query of ['status=paid', 'created_from=yesterday', 'per_page=101', 'page=0', `email=${'x'.repeat(300)}`]) {
      const response = await owner.json('GET', `/manage/api/checkout/sessions?${query}`);
      expect(response.status, query).toBe(422);
    }
    expect((await stranger.json<Page>('GET', '/manage/api/checkout/sessions')).body.meta.total).toBe(0);
    expect((await stranger.json<Page>('GET', '/manage/api/invoices')).body.meta.total).toBe(0);
    const foreign = await stranger.json('GET', `/manage/api/checkout/sessions/${ids.a}`);
    expect(foreign).toEqual(await stranger.json('GET', '/manage/api/checkout/sessions/cs_nothere'));
    expect(foreign.status).toBe(404);
    const foreignInvoice = await stranger.json('GET', `/manage/api/invoices/${invoiceId}`);
    expect(foreignInvoice).toEqual(await stranger.json('GET', '/manage/api/invoices/in_nothere'));
    expect(foreignInvoice.status).toBe(404);
  });
});
