import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { cancelSession, startSession } from '../../modules/checkout/sessionCommands.ts';
import { StoreUnavailableError, type EventStore, type NewEvent } from '../../platform/eventStore/eventStore.ts';
import { handleCommand } from '../../platform/es/handleCommand.ts';
import { checkoutSessionDecider, checkoutSessionStream } from '../../modules/checkout/domain/checkoutSession.ts';
import { invoiceDecider, invoiceStream } from '../../modules/checkout/domain/invoice.ts';
import { fold } from '../../platform/domain/decider.ts';
import { IDEMPOTENCY_LEASE_MS } from '../../modules/checkout/idempotency.ts';
import { withServices } from '../helpers/serverProcess.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { GOOD_CARD, json, makeOffer } from './checkoutFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * Faults injected into the server's event store, one per listed event type: the next append that
 * carries that type fails (as a full disk or a lost connection would), never settles (a process
 * frozen or killed at that point), or first lets `before` write (a concurrent request).
 */
type Fault = { type: string; do: 'fail' | 'hang' | { before: (store: EventStore) => Promise<void> } };

function injectFaults(server: TestServer): Fault[] {
  const faults: Fault[] = [];
  const store = server.services.store;
  const faulty: EventStore = Object.create(store) as EventStore;
  faulty.append = async (stream: string, events: NewEvent[], expected) => {
    const at = faults.findIndex((f) => events.some((e) => e.type === f.type));
    if (at >= 0) {
      const [fault] = faults.splice(at, 1);
      if (fault!.do === 'fail') throw new StoreUnavailableError(`injected: ${fault!.type} not appended`);
      if (fault!.do === 'hang') return new Promise(() => undefined);
      await fault!.do.before(store);
    }
    return store.append(stream, events, expected);
  };
  (server.services as { store: EventStore }).store = faulty;
  return faults;
}

describe('checkout recovers what a dead process left: keys, paid sessions, concurrent start and pay', () => {
  let server: TestServer;
  let org: Awaited<ReturnType<TestServer['identity']>>;
  let faults: Fault[];
  // The service's clock: the real time, plus what a test jumps over (a key's lease) instead of waiting it out.
  let skipped = 0;
  const clock = () => Date.now() + skipped;
  beforeAll(async () => {
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000' }, clock });
    org = await server.identity('Recovering seller');
    faults = injectFaults(server);
  });
  afterAll(() => server.close({ remove: true }));

  const post = async (path: string, body?: unknown, headers: Record<string, string> = {}, signal?: AbortSignal) => {
    const init = body === undefined ? { method: 'POST', headers } : json(body, headers);
    const response = await server.fetch(path, signal ? { ...init, signal } : init);
    return { status: response.status, body: (await response.json()) as Body, headers: response.headers };
  };
  const sessionEvents = async (id: string) => (await server.services.store.readStream(checkoutSessionStream(id))).map((e) => e.type);
  const sessionsOfOrg = async () =>
    (await server.services.store.readAll({ after: null, limit: 100_000 })).filter(
      (e) => e.type === 'CheckoutSessionCreated' && e.metadata.organization_id === org.organizationId,
    );

  it('a key whose request froze after creating its session replays that session to the retry within seconds', async () => {
    const offer = await makeOffer(server, org.organizationId);
    const body = { offer: offer.slug, metadata: { order: 'frozen' } };
    const headers = { 'Idempotency-Key': `frozen-${offer.slug}` };
    const before = (await sessionsOfOrg()).length;
    // The first request creates its session, then never records the key's completion.
    faults.push({ type: 'IdempotencyKeyCompleted', do: 'hang' });
    const first = new AbortController();
    const frozen = post('/api/checkout/sessions', body, headers, first.signal).catch(() => null);
    await vi.waitFor(async () => expect((await sessionsOfOrg()).length).toBe(before + 1), { timeout: 10_000, interval: 25 });
    first.abort();
    await frozen;

    // The retry comes once the frozen request's lease has ended.
    skipped += IDEMPOTENCY_LEASE_MS;
    const retried = await post('/api/checkout/sessions', body, headers);
    expect(retried.status).toBe(201);
    const created = (await sessionsOfOrg()).at(-1)!;
    expect(retried.body.session.id).toBe((created.data as { id: string }).id);
    expect(retried.body.session).toMatchObject({ status: 'open', invoice: null });
    await server.settle();
    // The creation's answer is what the GET serves, plus the url of the session's hosted page.
    const { url: retriedUrl, ...retriedSession } = retried.body;
    expect(retriedUrl).toContain(`?session=${retried.body.session.id}`);
    expect(await (await server.fetch(`/api/checkout/sessions/${retried.body.session.id}`)).json()).toEqual(retriedSession);
    // Settled: the next retry replays the stored answer at once, and only one session exists.
    const again = await post('/api/checkout/sessions', body, headers);
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(retried.body);
    expect((await sessionsOfOrg()).length).toBe(before + 1);
  }, 30_000);

  it('a key whose request failed and whose release failed too is free again once its lease ends', async () => {
    const offer = await makeOffer(server, org.organizationId);
    const body = { offer: offer.slug };
    const headers = { 'Idempotency-Key': `unreleased-${offer.slug}` };
    faults.push({ type: 'CheckoutSessionCreated', do: 'fail' }, { type: 'IdempotencyKeyReleased', do: 'fail' });
    const first = await post('/api/checkout/sessions', body, headers);
    expect(first.status).toBe(503);
    skipped += IDEMPOTENCY_LEASE_MS;
    const retried = await post('/api/checkout/sessions', body, headers);
    expect(retried.status).toBe(201);
    expect(await sessionEvents(retried.body.session.id)).toEqual(['CheckoutSessionCreated']);
  }, 30_000);

  it('a session left open with a paid invoice is completed by the subscriber, and cancel is refused', async () => {
    const offer = await makeOffer(server, org.organizationId);
    const { body: created } = await post('/api/checkout/sessions', { offer: offer.slug });
    const id = created.session.id as string;
    // The process stops between InvoicePaid and CheckoutSessionCompleted.
    faults.push({ type: 'CheckoutSessionCompleted', do: 'fail' });
    const pay = await post(`/api/checkout/sessions/${id}/pay`, { card: GOOD_CARD, email: 'buyer@example.com' });
    expect(pay.status).toBe(503);
    await vi.waitFor(async () => expect((await sessionEvents(id)).at(-1)).toBe('CheckoutSessionCompleted'), { timeout: 15_000, interval: 50 });
    const cancel = await post(`/api/checkout/sessions/${id}/cancel`);
    expect(cancel.status).toBe(409);
    expect(await sessionEvents(id)).not.toContain('CheckoutSessionCancelled');
  }, 30_000);

  it('a pay is billed to the email it sent, though a start with another email came in between', async () => {
    const offer = await makeOffer(server, org.organizationId);
    const { body: created } = await post('/api/checkout/sessions', { offer: offer.slug });
    const id = created.session.id as string;
    // Between the pay's own start and its payment claim, another tab starts with another email.
    faults.push({
      type: 'CheckoutSessionPaymentAttempted',
      do: {
        before: async (store) => {
          await startSession({ ...server.cliContext(org.organizationId), store }, id, { email: 'other@example.com' });
        },
      },
    });
    const pay = await post(`/api/checkout/sessions/${id}/pay`, { card: GOOD_CARD, email: 'payer@example.com' });
    const invoiceId = (await server.services.store.readStream(checkoutSessionStream(id))).find((e) => e.type === 'CheckoutSessionStarted')!
      .data as { invoice_id: string };
    const invoice = fold(invoiceDecider, (await server.services.store.readStream(invoiceStream(invoiceId.invoice_id))) as never);
    if (pay.status === 200) {
      expect(invoice).toMatchObject({ status: 'paid', invoice: { customer: { email: 'payer@example.com' } } });
    } else {
      expect(pay.status).toBe(409);
      expect(invoice.status).toBe('open');
    }
    const session = fold(checkoutSessionDecider, (await server.services.store.readStream(checkoutSessionStream(id))) as never);
    if (pay.status === 200) expect(session).toMatchObject({ status: 'completed', customer: { email: 'payer@example.com' } });
  }, 30_000);

  it('a pay racing five starts with other emails is billed to its own email, or answers 409', async () => {
    const offer = await makeOffer(server, org.organizationId);
    for (let round = 0; round < 8; round++) {
      const { body: created } = await post('/api/checkout/sessions', { offer: offer.slug });
      const id = created.session.id as string;
      await post(`/api/checkout/sessions/${id}/start`, { email: 'first@example.com' });
      const [pay] = await Promise.all([
        post(`/api/checkout/sessions/${id}/pay`, { card: GOOD_CARD, email: 'payer@example.com' }),
        ...Array.from({ length: 5 }, (_, n) => post(`/api/checkout/sessions/${id}/start`, { email: `other${n}@example.com` })),
      ]);
      const invoice = fold(invoiceDecider, (await server.services.store.readStream(invoiceStream(await readInvoiceId(id)))) as never);
      if (pay!.status === 200) {
        expect(invoice, `round ${round}`).toMatchObject({ status: 'paid', invoice: { customer: { email: 'payer@example.com' } } });
      } else {
        expect(pay!.status, `round ${round}`).toBe(409);
        expect(invoice.status).toBe('open');
      }
    }
  }, 60_000);

  const readInvoiceId = async (id: string) =>
    ((await server.services.store.readStream(checkoutSessionStream(id))).find((e) => e.type === 'CheckoutSessionStarted')!.data as { invoice_id: string }).invoice_id;
});

describe('checkout completes a paid session after a restart', () => {
  it('a session whose process died between InvoicePaid and CheckoutSessionCompleted is completed once the service is back', async () => {
    let server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000' } });
    const org = await server.identity('Restarted seller');
    const offer = await makeOffer(server, org.organizationId);
    const created = await (await server.fetch('/api/checkout/sessions', json({ offer: offer.slug }))).json();
    const id = (created as Body).session.id as string;
    const started = (await (await server.fetch(`/api/checkout/sessions/${id}/start`, json({ email: 'buyer@example.com' }))).json()) as Body;
    const dataDir = server.dataDir;
    await server.close();
    // What the killed process had written: the charge claimed and the invoice paid, nothing after.
    await withServices(dataDir, async (_services, ctx) => {
      const c = ctx(org.organizationId);
      await handleCommand(c, checkoutSessionStream(id), checkoutSessionDecider, { type: 'AttemptPayment', attemptId: 'pa_killed', now: c.metadata.occurred_at });
      await handleCommand(c, invoiceStream(started.invoice.id), invoiceDecider, {
        type: 'PayInvoice',
        attemptId: 'pa_killed',
        card: { brand: 'visa', last4: '4242' },
        customer: null,
        now: c.metadata.occurred_at,
      });
      // No subscriber runs here: the session is still open, and a cancel is refused on the paid invoice.
      await expect(cancelSession(c, id)).rejects.toMatchObject({ code: 'invoice_paid' });
    });
    server = await startTestServer({ dataDir, env: { CHECKOUT_RATE_LIMIT: '10000' } });
    try {
      await vi.waitFor(
        async () => {
          await server.settle();
          const read = (await (await server.fetch(`/api/checkout/sessions/${id}`)).json()) as Body;
          expect(read.session).toMatchObject({ status: 'completed', invoice: { status: 'paid' } });
        },
        { timeout: 15_000, interval: 100 },
      );
      expect((await server.fetch(`/api/checkout/sessions/${id}/cancel`, { method: 'POST' })).status).toBe(409);
    } finally {
      await server.close({ remove: true });
    }
  }, 60_000);
});

describe('write routes answer from the write, with projections stopped', () => {
  it('create, start, pay and cancel answer what the GET serves once projections run again', async () => {
    let server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000' } });
    const org = await server.identity('Lagging seller');
    const offer = await makeOffer(server, org.organizationId);
    const dataDir = server.dataDir;
    await server.close();
    // No projection runs in this process: the read models stay where they were.
    server = await startTestServer({ dataDir, runProjections: false, env: { CHECKOUT_RATE_LIMIT: '10000' } });
    const call = async (path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const response = await server.fetch(path, body === undefined ? { method: 'POST', headers } : json(body, headers));
      return {
        status: response.status,
        body: (await response.json()) as Body,
        etag: response.headers.get('etag'),
        exposed: response.headers.get('access-control-expose-headers'),
      };
    };
    let cancelled: Awaited<ReturnType<typeof call>>;
    let keyed: Awaited<ReturnType<typeof call>>;
    let started: Awaited<ReturnType<typeof call>>;
    let paid: Awaited<ReturnType<typeof call>>;
    try {
      keyed = await call('/api/checkout/sessions', { offer: offer.slug }, { 'Idempotency-Key': `lagging-${offer.slug}`, origin: 'https://shop.example' });
      expect(keyed.status).toBe(201);
      expect(keyed.exposed?.toLowerCase()).toContain('etag');
      expect(keyed.etag).toBe('W/"0"');
      expect(keyed.body.session).toMatchObject({ status: 'open', invoice: null });
      const replay = await call('/api/checkout/sessions', { offer: offer.slug }, { 'Idempotency-Key': `lagging-${offer.slug}` });
      expect(replay.body).toEqual(keyed.body);
      cancelled = await call(`/api/checkout/sessions/${keyed.body.session.id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.etag).toBe('W/"1"');

      const created = await call('/api/checkout/sessions', { offer: offer.slug });
      expect(created.status).toBe(201);
      const id = created.body.session.id as string;
      started = await call(`/api/checkout/sessions/${id}/start`, { email: 'buyer@example.com' });
      expect(started.status).toBe(200);
      expect(started.body).toMatchObject({ session: { id, status: 'open', invoice: { status: 'open' } }, invoice: { status: 'open', number: 1 } });
      expect(started.etag).toBe('W/"1.0"');
      paid = await call(`/api/checkout/sessions/${id}/pay`, { card: GOOD_CARD });
      expect(paid.status).toBe(200);
      expect(paid.body).toMatchObject({ session: { id, status: 'completed', invoice: { status: 'paid' } }, invoice: { status: 'paid' } });
      expect(paid.etag).toBe('W/"3.1"');
      // Nothing reached the read model.
      expect((await server.fetch(`/api/checkout/sessions/${id}`)).status).toBe(404);
    } finally {
      await server.close();
    }

    server = await startTestServer({ dataDir, env: { CHECKOUT_RATE_LIMIT: '10000' } });
    try {
      await server.settle();
      const etags = new Map<string, string | null>();
      const read = async (id: string) => {
        const response = await server.fetch(`/api/checkout/sessions/${id}`);
        etags.set(id, response.headers.get('etag'));
        return (await response.json()) as Body;
      };
      const first = await read(keyed.body.session.id);
      // The creation's answer is what the GET serves, plus the url of the session's hosted page.
      const { url: keyedUrl, ...keyedSession } = keyed.body;
      expect(keyedUrl).toContain(`?session=${keyed.body.session.id}`);
      expect(first).toEqual(keyedSession);
      expect(etags.get(keyed.body.session.id)).toBe(cancelled.etag);
      expect(first.session).toEqual(cancelled.body.session);
      const second = await read(paid.body.session.id);
      expect(second.session).toEqual(paid.body.session);
      expect(second.session.invoice).toEqual(paid.body.invoice);
      expect(second.session.invoice.id).toBe(started.body.invoice.id);
      expect(etags.get(paid.body.session.id)).toBe(paid.etag);
    } finally {
      await server.close({ remove: true });
    }
  }, 60_000);
});
