import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { DECLINED_CARD, GOOD_CARD, json, makeOffer } from './checkoutFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A buyer who typed a wrong email, had a card declined, corrected it and paid: the paid invoice is theirs. */
describe('correcting the email or name before paying', () => {
  let server: TestServer;
  let org: Awaited<ReturnType<TestServer['identity']>>;
  beforeAll(async () => {
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000' } });
    org = await server.identity('Seller');
  });
  afterAll(() => server.close({ remove: true }));

  const post = async (path: string, body?: unknown) => {
    const response = await server.fetch(path, body === undefined ? { method: 'POST' } : json(body));
    return { status: response.status, body: (await response.json()) as Body };
  };
  const newSession = async (customer?: unknown) => {
    const offer = await makeOffer(server, org.organizationId);
    const { body } = await post('/api/checkout/sessions', { offer: offer.slug, ...(customer ? { customer } : {}) });
    return body.session.id as string;
  };
  const history = async (id: string) => {
    const response = await server.fetch(`/api/checkout/sessions/${id}/history`, { token: org.token });
    expect(response.status).toBe(200);
    return (await response.json()) as Body;
  };
  const eventTypes = async (id: string) => ((await history(id)).data as Body[]).map((e) => e.type as string);

  it('start after a decline records the corrected email on the session and its invoice; the paid invoice carries it', async () => {
    const id = await newSession();
    const started = await post(`/api/checkout/sessions/${id}/start`, { email: 'ada@exmaple.com', name: 'Ada' });
    expect((await post(`/api/checkout/sessions/${id}/pay`, { card: DECLINED_CARD })).status).toBe(402);

    const corrected = await post(`/api/checkout/sessions/${id}/start`, { email: 'ada@example.com' });
    expect(corrected.status).toBe(200);
    expect(corrected.body.invoice).toEqual(started.body.invoice);
    const open = await history(id);
    expect(open.state.customer).toEqual({ email: 'ada@example.com', name: 'Ada', user_id: null });
    expect(open.state.invoice.customer).toEqual({ email: 'ada@example.com', name: 'Ada', user_id: null });

    // The same values again record nothing.
    const before = await eventTypes(id);
    expect((await post(`/api/checkout/sessions/${id}/start`, { email: 'ada@example.com', name: 'Ada' })).status).toBe(200);
    expect(await eventTypes(id)).toEqual(before);

    const paid = await post(`/api/checkout/sessions/${id}/pay`, { card: GOOD_CARD });
    expect(paid.status).toBe(200);
    expect(paid.body.invoice).toMatchObject({ id: started.body.invoice.id, status: 'paid' });
    const done = await history(id);
    expect(done.state).toMatchObject({ status: 'completed', customer: { email: 'ada@example.com' }, invoice: { status: 'paid', customer: { email: 'ada@example.com', name: 'Ada' } } });
    expect(await eventTypes(id)).toEqual([
      'CheckoutSessionCreated',
      'CheckoutSessionStarted',
      'InvoiceCreated',
      'CheckoutSessionPaymentAttempted',
      'CheckoutSessionPaymentDeclined',
      'CheckoutSessionCustomerChanged',
      'InvoiceCustomerChanged',
      'CheckoutSessionPaymentAttempted',
      'InvoicePaid',
      'CheckoutSessionCompleted',
    ]);
    const changed = ((done.data as Body[]).find((e) => e.type === 'CheckoutSessionCustomerChanged'))!;
    expect(changed).toMatchObject({ stream: 'session', actor: { type: 'public' }, state: { customer: { email: 'ada@example.com' }, invoice: { customer: { email: 'ada@exmaple.com' } } } });

    // Paid is final: the customer no longer changes.
    const late = await post(`/api/checkout/sessions/${id}/start`, { email: 'someone@example.com' });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('session_completed');
    expect((await history(id)).state.invoice.customer.email).toBe('ada@example.com');
  });

  it('pay takes the email and name as the buyer last typed them', async () => {
    const id = await newSession();
    await post(`/api/checkout/sessions/${id}/start`, { email: 'ada@exmaple.com' });
    expect((await post(`/api/checkout/sessions/${id}/pay`, { email: 'ada@exmaple.com', card: DECLINED_CARD })).status).toBe(402);
    const paid = await post(`/api/checkout/sessions/${id}/pay`, { email: 'ada@example.com', name: 'Ada Lovelace', card: GOOD_CARD });
    expect(paid.status).toBe(200);
    const { state } = await history(id);
    expect(state.customer).toEqual({ email: 'ada@example.com', name: 'Ada Lovelace', user_id: null });
    expect(state.invoice).toMatchObject({ status: 'paid', customer: { email: 'ada@example.com', name: 'Ada Lovelace', user_id: null } });
  });

  it('pay without a start fills in the customer from its own fields', async () => {
    const id = await newSession();
    expect((await post(`/api/checkout/sessions/${id}/pay`, { email: 'ada@example.com', card: GOOD_CARD })).status).toBe(200);
    expect((await history(id)).state.invoice.customer).toEqual({ email: 'ada@example.com', name: null, user_id: null });
  });

  it("keeps a signed identity's verified email; its name can still change", async () => {
    const me = (await (await server.fetch('/api/users/me', { token: org.token })).json()) as Body;
    const id = await newSession({ token: me.service_jwt });
    await post(`/api/checkout/sessions/${id}/start`, { email: 'mallory@example.com' });
    expect((await post(`/api/checkout/sessions/${id}/pay`, { card: DECLINED_CARD })).status).toBe(402);
    const before = await eventTypes(id);
    await post(`/api/checkout/sessions/${id}/start`, { email: 'mallory@example.com' });
    expect(await eventTypes(id)).toEqual(before);
    const paid = await post(`/api/checkout/sessions/${id}/pay`, { email: 'mallory@example.com', name: 'Ada', card: GOOD_CARD });
    expect(paid.status).toBe(200);
    const { state } = await history(id);
    const verified = { email: org.email, name: 'Ada', user_id: org.userId };
    expect(state.customer).toEqual(verified);
    expect(state.invoice.customer).toEqual(verified);
  });

  it.each([
    ['start', { email: 'not-an-email' }, 'email'],
    ['start', { name: '' }, 'name'],
    ['pay', { email: 'not-an-email', card: GOOD_CARD }, 'email'],
    ['pay', { email: 42, card: GOOD_CARD }, 'email'],
    ['pay', { name: 'x'.repeat(201), card: GOOD_CARD }, 'name'],
  ])('%s refuses %j with 422 on the field, and records nothing', async (action, body, field) => {
    const id = await newSession();
    await post(`/api/checkout/sessions/${id}/start`, { email: 'ada@example.com' });
    const before = await eventTypes(id);
    const result = await post(`/api/checkout/sessions/${id}/${action}`, body);
    expect(result.status).toBe(422);
    expect(result.body.code).toBe('validation_failed');
    expect(Object.keys(result.body.errors)).toContain(field);
    expect(await eventTypes(id)).toEqual(before);
  });
});
