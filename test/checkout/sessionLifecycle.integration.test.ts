import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { expireDueSessions } from '../../modules/checkout/jobs/checkoutSessionExpiry.ts';
import { handleCommand } from '../../platform/es/handleCommand.ts';
import { checkoutSessionDecider, checkoutSessionStream } from '../../modules/checkout/domain/checkoutSession.ts';
import { invoiceDecider, invoiceStream } from '../../modules/checkout/domain/invoice.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';
import { GOOD_CARD, json, makeOffer } from './checkoutFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('checkout session lifecycle (manual clock)', () => {
  const clock = manualClock(Date.UTC(2026, 10, 21, 12, 0, 0));
  let server: TestServer;
  let org: Awaited<ReturnType<TestServer['identity']>>;
  let other: Awaited<ReturnType<TestServer['identity']>>;
  beforeAll(async () => {
    // The job runs on its own timer too; the tests also call it directly to know when it ran.
    server = await startTestServer({ clock, env: { CHECKOUT_RATE_LIMIT: '10000', CHECKOUT_EXPIRY_INTERVAL_MS: '3600000' } });
    org = await server.identity('Seller');
    other = await server.identity('Other seller');
  });
  afterAll(() => server.close({ remove: true }));

  const post = async (path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await server.fetch(path, body === undefined ? { method: 'POST', headers } : json(body, headers));
    return { status: response.status, body: (await response.json()) as Body };
  };
  const get = async (path: string, token?: string) => {
    const response = await server.fetch(path, token ? { token } : {});
    return { status: response.status, body: (await response.json()) as Body };
  };
  const newSession = async (expiresIn = 1800) => {
    const offer = await makeOffer(server, org.organizationId);
    const { body } = await post('/api/checkout/sessions', { offer: offer.slug, expires_in: expiresIn });
    return body.session as Body;
  };

  it('reads expired from the due second on, before the job records it; then pay is refused with 410', async () => {
    const session = await newSession(1800);
    await post(`/api/checkout/sessions/${session.id}/start`);
    clock.advance(1799 * 1000);
    expect((await get(`/api/checkout/sessions/${session.id}`)).body.session.status).toBe('open');
    clock.advance(1000);
    const due = await get(`/api/checkout/sessions/${session.id}`);
    expect(due.body.session.status).toBe('expired');
    expect(due.body.session.invoice.status).toBe('open');
    const events = await server.services.store.readStream(`checkout_session-${session.id}`);
    expect(events.some((e) => e.type === 'CheckoutSessionExpired')).toBe(false);

    const pay = await post(`/api/checkout/sessions/${session.id}/pay`, { card: GOOD_CARD });
    expect(pay.status).toBe(410);
    expect(pay.body).toEqual({ message: 'The checkout session has expired. Create a new session to pay.', code: 'session_expired' });
    expect((await post(`/api/checkout/sessions/${session.id}/start`)).status).toBe(410);
    expect((await post(`/api/checkout/sessions/${session.id}/cancel`)).status).toBe(410);
  });

  it('the expiry job records the expiry and voids the invoice; expired is final', async () => {
    const session = await newSession(3600);
    const started = await post(`/api/checkout/sessions/${session.id}/start`);
    const unstarted = await newSession(3600);
    clock.advance(3600 * 1000);
    expect(await expireDueSessions(server.services)).toBeGreaterThanOrEqual(2);
    await server.settle();
    const events = await server.services.store.readStream(`checkout_session-${session.id}`);
    expect(events.map((e) => e.type)).toEqual(['CheckoutSessionCreated', 'CheckoutSessionStarted', 'CheckoutSessionExpired']);
    expect(events[2]!.metadata.actor).toEqual({ type: 'system', name: 'checkout-session-expiry' });
    const invoiceEvents = await server.services.store.readStream(`invoice-${started.body.invoice.id}`);
    expect(invoiceEvents.map((e) => e.type)).toEqual(['InvoiceCreated', 'InvoiceVoided']);
    const read = await get(`/api/checkout/sessions/${session.id}`);
    expect(read.body.session).toMatchObject({ status: 'expired', invoice: { status: 'void' } });
    expect((await get(`/api/checkout/sessions/${unstarted.id}`)).body.session).toMatchObject({ status: 'expired', invoice: null });
    // Running again changes nothing.
    expect(await expireDueSessions(server.services)).toBe(0);
    expect((await post(`/api/checkout/sessions/${session.id}/pay`, { card: GOOD_CARD })).status).toBe(410);
  });

  /** The invoice paid, the process gone before the session was completed. */
  async function paidButNotCompleted(expiresIn: number) {
    const session = await newSession(expiresIn);
    const started = await post(`/api/checkout/sessions/${session.id}/start`);
    const ctx = server.cliContext(org.organizationId);
    await handleCommand(ctx, checkoutSessionStream(session.id), checkoutSessionDecider, { type: 'AttemptPayment', attemptId: 'pa_crashed', now: ctx.metadata.occurred_at });
    await handleCommand(ctx, invoiceStream(started.body.invoice.id), invoiceDecider, {
      type: 'PayInvoice',
      attemptId: 'pa_crashed',
      card: { brand: 'visa', last4: '4242' },
      customer: null,
      now: ctx.metadata.occurred_at,
    });
    await server.settle();
    return { id: session.id as string, invoiceId: started.body.invoice.id as string };
  }

  it('a paid invoice whose session was not completed is completed by the completion subscriber; a pay then charges nothing', async () => {
    const { id, invoiceId } = await paidButNotCompleted(1800);
    await vi.waitFor(
      async () => {
        const events = await server.services.store.readStream(`checkout_session-${id}`);
        expect(events.at(-1)).toMatchObject({ type: 'CheckoutSessionCompleted', metadata: { actor: { type: 'system', name: 'checkout-completion' } } });
      },
      { timeout: 15_000, interval: 50 },
    );
    clock.advance(61_000);
    const pay = await post(`/api/checkout/sessions/${id}/pay`, { card: GOOD_CARD });
    expect(pay.status).toBe(409);
    expect(pay.body.code).toBe('session_completed');
    await server.settle();
    expect((await get(`/api/checkout/sessions/${id}`)).body.session).toMatchObject({ status: 'completed', invoice: { id: invoiceId, status: 'paid' } });
    const invoiceEvents = await server.services.store.readStream(`invoice-${invoiceId}`);
    expect(invoiceEvents.filter((e) => e.type === 'InvoicePaid')).toHaveLength(1);
  });

  it('…and by the expiry job at the due time, rather than expiring it', async () => {
    const { id } = await paidButNotCompleted(1800);
    clock.advance(1800 * 1000);
    await expireDueSessions(server.services);
    await server.settle();
    const events = await server.services.store.readStream(`checkout_session-${id}`);
    expect(events.at(-1)!.type).toBe('CheckoutSessionCompleted');
    expect((await get(`/api/checkout/sessions/${id}`)).body.session).toMatchObject({ status: 'completed', invoice: { status: 'paid' } });
  });

  it('a key is kept 24 hours, then free for a new request', async () => {
    const offer = await makeOffer(server, org.organizationId);
    const first = await post('/api/checkout/sessions', { offer: offer.slug }, { 'idempotency-key': 'ttl-key' });
    clock.advance(86_399 * 1000);
    expect((await post('/api/checkout/sessions', { offer: offer.uuid }, { 'idempotency-key': 'ttl-key' })).status).toBe(422);
    const replay = await post('/api/checkout/sessions', { offer: offer.slug }, { 'idempotency-key': 'ttl-key' });
    expect(replay.body.session.id).toBe(first.body.session.id);
    clock.advance(1000);
    const fresh = await post('/api/checkout/sessions', { offer: offer.uuid }, { 'idempotency-key': 'ttl-key' });
    expect(fresh.status).toBe(201);
    expect(fresh.body.session.id).not.toBe(first.body.session.id);
  });

  it('history: open → started → paid → completed, with actors and the state after each event; ?at= answers the past', async () => {
    const session = await newSession(7200);
    const t0 = Math.floor(clock() / 1000);
    clock.advance(10_000);
    await post(`/api/checkout/sessions/${session.id}/start`, { email: 'buyer@example.com' });
    clock.advance(10_000);
    await post(`/api/checkout/sessions/${session.id}/pay`, { card: GOOD_CARD });

    const history = await get(`/api/checkout/sessions/${session.id}/history`, org.token);
    expect(history.status).toBe(200);
    const entries = history.body.data as Body[];
    expect(entries.map((e) => e.type)).toEqual([
      'CheckoutSessionCreated',
      'CheckoutSessionStarted',
      'InvoiceCreated',
      'CheckoutSessionPaymentAttempted',
      'InvoicePaid',
      'CheckoutSessionCompleted',
    ]);
    expect(entries.map((e) => e.revision)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(entries.map((e) => e.state.status)).toEqual(['open', 'open', 'open', 'open', 'open', 'completed']);
    expect(entries.map((e) => e.state.invoice?.status ?? null)).toEqual([null, null, 'open', 'open', 'paid', 'paid']);
    expect(entries[0]!.occurred_at).toBe(t0);
    expect(entries[1]!.occurred_at).toBe(t0 + 10);
    expect(entries[0]!.actor).toMatchObject({ type: 'public' });
    expect(entries[5]!.state.payment).toEqual({ brand: 'visa', last4: '4242' });
    expect(entries[1]!.state.customer).toMatchObject({ email: 'buyer@example.com' });
    expect(history.body.state.status).toBe('completed');

    const past = await get(`/api/checkout/sessions/${session.id}/history?at=${t0 + 15}`, org.token);
    expect(past.body.state).toMatchObject({ status: 'open', invoice: { status: 'open' } });
    expect((past.body.data as Body[]).map((e) => e.type)).toEqual(['CheckoutSessionCreated', 'CheckoutSessionStarted', 'InvoiceCreated']);
    const before = await get(`/api/checkout/sessions/${session.id}/history?at=${t0 - 1}`, org.token);
    expect(before.body).toMatchObject({ state: null, data: [] });
  });

  it('history and list are organization-scoped; another organization sees 404 / nothing', async () => {
    const session = await newSession();
    const foreign = await get(`/api/checkout/sessions/${session.id}/history`, other.token);
    const unknown = await get('/api/checkout/sessions/cs_AAAAAAAAAAAAAAAAAAAAAAAA/history', other.token);
    expect(foreign).toEqual(unknown);
    expect(foreign.status).toBe(404);
    const list = await get('/api/checkout/sessions', other.token);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);
    expect((await get('/api/checkout/sessions')).status).toBe(401);
    expect((await get(`/api/checkout/sessions/${session.id}/history`)).status).toBe(401);
  });

  it('lists sessions newest first with status filters and pagination', async () => {
    const lister = await server.identity('Lister');
    const offer = await makeOffer(server, lister.organizationId);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      clock.advance(1000);
      ids.push((await post('/api/checkout/sessions', { offer: offer.slug, expires_in: 1800 })).body.session.id);
    }
    await post(`/api/checkout/sessions/${ids[0]}/pay`, { card: GOOD_CARD });
    const all = await get('/api/checkout/sessions?per_page=2', lister.token);
    expect(all.body.data.map((s: Body) => s.id)).toEqual([ids[2], ids[1]]);
    expect(all.body.meta).toMatchObject({ current_page: 1, last_page: 2, per_page: 2, total: 3, from: 1, to: 2 });
    expect(all.body.links.next).toMatch(/\/api\/checkout\/sessions\?page=2&per_page=2$/);
    expect(all.body.links.prev).toBeNull();
    const page2 = await get('/api/checkout/sessions?per_page=2&page=2', lister.token);
    expect(page2.body.data.map((s: Body) => s.id)).toEqual([ids[0]]);
    expect((await get('/api/checkout/sessions?status=completed', lister.token)).body.data.map((s: Body) => s.id)).toEqual([ids[0]]);
    expect((await get('/api/checkout/sessions?status=open', lister.token)).body.meta.total).toBe(2);
    clock.advance(1800 * 1000);
    expect((await get('/api/checkout/sessions?status=expired', lister.token)).body.meta.total).toBe(2);
    expect((await get('/api/checkout/sessions?status=open', lister.token)).body.meta.total).toBe(0);
    for (const bad of ['status=paid', 'per_page=0', 'per_page=abc', 'page=-1']) {
      const response = await get(`/api/checkout/sessions?${bad}`, lister.token);
      expect(response.status).toBe(422);
    }
    expect((await get(`/api/checkout/sessions/${ids[0]}/history?at=abc`, lister.token)).status).toBe(422);
  });
});
