import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundJobs } from '../../app/backgroundJobs.ts';
import { checkoutSessionDecider, checkoutSessionStream, invoiceDecider, invoiceStream } from '../../modules/checkout/index.ts';
import { backfillCustomers } from '../../modules/customers/customerBackfill.ts';
import { ensureCustomer } from '../../modules/customers/index.ts';
import { handleCommand } from '../../platform/es/handleCommand.ts';
import { refundInvoice } from '../../modules/payments/index.ts';
import { subscriptionCreationJob } from '../../modules/subscriptions/jobs/subscriptionCreation.ts';
import { invoiceMirrorJob } from '../../modules/subscriptions/jobs/invoiceMirror.ts';
import { GOOD_CARD } from '../checkout/checkoutFixtures.ts';
import { clockApp, waitFor, type ClockApp } from '../subscriptions/clockApp.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const silent = { error: (o: unknown, m: string) => console.error(m, o), info: () => undefined };

describe('customers', () => {
  let harness: ClockApp;
  let seller: { organizationId: string; token: string };
  let other: { organizationId: string; token: string };

  beforeAll(async () => {
    harness = await clockApp();
    seller = await harness.identity();
    other = await harness.identity();
    await harness.offerOf(seller.organizationId, 'lifetime', 'one_time');
    await harness.offerOf(seller.organizationId, 'monthly', 'recurring');
    await harness.offerOf(other.organizationId, 'other-lifetime', 'one_time');
  });
  afterAll(async () => harness.close());

  const buy = async (offer: string, buyer: { email?: string; name?: string }, token?: string, customer?: Body) => {
    const created = await harness.call('POST', '/api/checkout/sessions', { ...(token ? { token } : {}), body: { offer, ...(customer ? { customer } : {}) } });
    expect(created.status).toBe(201);
    const paid = await harness.call('POST', `/api/checkout/sessions/${created.body.session.id}/pay`, { body: { ...buyer, card: GOOD_CARD } });
    expect(paid.status).toBe(200);
    return paid.body as Body;
  };
  const get = (url: string, token = seller.token) => harness.call('GET', url, { token });
  const completedOf = async (sessionId: string) =>
    (await harness.services.store.readStream(`checkout_session-${sessionId}`)).find((e) => e.type === 'CheckoutSessionCompleted')!.data as Body;

  it('makes one customer of the same person buying twice, whatever the case of their email', async () => {
    const first = await buy('lifetime', { email: 'Ada@Example.com', name: 'Ada' }, seller.token);
    const second = await buy('lifetime', { email: 'ADA@example.COM' }, seller.token);
    // The completion and the paid invoice carry the customer in the same request: no read model in between.
    const one = (await completedOf(first.session.id)).customer_id as string;
    expect(one).toMatch(/^cus_[A-Za-z0-9]{14}$/);
    expect((await completedOf(second.session.id)).customer_id).toBe(one);
    const invoicePaid = (await harness.services.store.readStream(`invoice-${first.invoice.id}`)).find((e) => e.type === 'InvoicePaid')!;
    expect((invoicePaid.data as Body).customer_id).toBe(one);

    await harness.settle();
    const read = await get(`/api/customers/${one}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      id: one,
      object: 'customer',
      email: 'Ada@Example.com',
      name: 'Ada',
      livemode: false,
      metadata: {},
      purchases_count: 2,
      invoices_count: 2,
      total_spent: { EUR: 9800 },
      total_refunded: {},
      subscriptions: [],
      redacted: false,
    });
    expect(read.body.created).toBe(read.body.created_at);
    expect(read.body.last_purchase_at).toBeGreaterThanOrEqual(read.body.created_at);

    // Sessions and invoices answer their customer.
    const invoice = await get(`/api/invoices/${first.invoice.id}`);
    expect(invoice.body.customer_id).toBe(one);
    const sessions = await get('/api/checkout/sessions');
    const listed = (sessions.body.data as Body[]).find((s) => s.id === second.session.id)!;
    expect(listed.customer_id).toBe(one);
  });

  it('finds a customer by email, pages the list, and keeps other organizations out', async () => {
    await buy('lifetime', { email: 'grace@example.com', name: 'Grace' }, seller.token);
    await buy('other-lifetime', { email: 'ada@example.com' }, other.token);
    await harness.settle();

    const found = await get('/api/customers?email=GRACE@example.com');
    expect(found.status).toBe(200);
    expect(found.body.data).toHaveLength(1);
    expect(found.body.data[0]).toMatchObject({ email: 'grace@example.com', purchases_count: 1 });
    expect(found.body.meta).toMatchObject({ total: 1, current_page: 1 });

    const page1 = await get('/api/customers?per_page=1');
    expect(page1.body.meta).toMatchObject({ total: 2, per_page: 1, last_page: 2 });
    expect(page1.body.links.next).toContain('page=2');
    const page2 = await get('/api/customers?per_page=1&page=2');
    // Newest first; customers made within one second tie, broken by id.
    expect([page1.body.data[0].email, page2.body.data[0].email].sort()).toEqual(['Ada@Example.com', 'grace@example.com']);
    expect(page1.body.data[0].created_at).toBeGreaterThanOrEqual(page2.body.data[0].created_at);

    // Another organization's Ada is another customer, unseen here and 404 by id.
    const theirs = await get('/api/customers?email=ada@example.com', other.token);
    expect(theirs.body.data).toHaveLength(1);
    const theirId = theirs.body.data[0].id as string;
    const ours = await get('/api/customers?email=ada@example.com');
    expect(ours.body.data[0].id).not.toBe(theirId);
    expect((await get(`/api/customers/${theirId}`)).status).toBe(404);
    expect((await get(`/api/customers/${theirId}/history`)).status).toBe(404);
    expect((await get('/api/customers/cus_doesnotexist00')).status).toBe(404);
    expect((await get('/api/customers/nope')).status).toBe(422);
    expect((await harness.call('GET', '/api/customers')).status).toBe(401);
  });

  it('counts refunds per currency from the invoice events', async () => {
    const bought = await buy('lifetime', { email: 'refund@example.com' }, seller.token);
    const ctx = harness.ctx(seller.organizationId);
    await refundInvoice(ctx, harness.services, seller.organizationId, bought.invoice.id, 900);
    await refundInvoice(harness.ctx(seller.organizationId), harness.services, seller.organizationId, bought.invoice.id, 100);
    await harness.settle();
    const found = await get('/api/customers?email=refund@example.com');
    expect(found.body.data[0]).toMatchObject({ total_spent: { EUR: 4900 }, total_refunded: { EUR: 1000 } });
    const invoices = await get(`/api/customers/${found.body.data[0].id}/invoices`);
    expect(invoices.status).toBe(200);
    expect(invoices.body.data).toEqual([
      { id: bought.invoice.id, number: bought.invoice.number, session_id: bought.session.id, subscription_id: null, currency: 'EUR', amount: 4900, created_at: expect.any(Number), paid_at: expect.any(Number), amount_refunded: 1000 },
    ]);
    expect((await get(`/api/customers/${found.body.data[0].id}/invoices`, other.token)).status).toBe(404);
  });

  it("tells every event of the customer's sessions and invoices, in log order", async () => {
    const bought = await buy('lifetime', { email: 'history@example.com' }, seller.token);
    await harness.settle();
    const id = (await completedOf(bought.session.id)).customer_id as string;
    const history = await get(`/api/customers/${id}/history`);
    expect(history.status).toBe(200);
    const entries = history.body.data as Body[];
    expect(entries.map((e) => e.type)).toEqual([
      'CheckoutSessionCreated',
      'CheckoutSessionStarted',
      'InvoiceCreated',
      'CheckoutSessionPaymentAttempted',
      'CustomerCreated',
      'InvoicePaid',
      'CheckoutSessionCompleted',
    ]);
    const positions = entries.map((e) => e.position as number);
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
    expect(entries[0]).toMatchObject({ sequence: 1, object: 'checkout_session', object_id: bought.session.id });
    expect(entries[2]).toMatchObject({ object: 'invoice', object_id: bought.invoice.id });
    expect(entries[4]).toMatchObject({ object: 'customer', object_id: id });
  });

  it("gives a recurring purchase's subscription and its invoices the session's customer", async () => {
    const jobs = await startBackgroundJobs(harness.services, silent, [subscriptionCreationJob, invoiceMirrorJob]);
    try {
      const bought = await buy('monthly', { email: 'sub@example.com' }, seller.token);
      const customerId = (await completedOf(bought.session.id)).customer_id as string;
      const subscriptionId = bought.session.subscription.id as string;
      const sub = await waitFor('the subscription', () => get(`/api/subscriptions/${subscriptionId}`), (r) => r.status === 200);
      expect(sub.body.customer_id).toBe(customerId);
      const customer = await waitFor('the customer', () => get(`/api/customers/${customerId}`), (r) => r.body.subscriptions?.length === 1);
      expect(customer.body).toMatchObject({ subscriptions: [{ id: subscriptionId, status: 'active' }], total_spent: { EUR: 1900 } });
      const history = await get(`/api/customers/${customerId}/history`);
      expect((history.body.data as Body[]).some((e) => e.object === 'subscription' && e.type === 'SubscriptionCreated')).toBe(true);

      // An erasure reaches the subscription and its invoices; its status and amounts stay.
      expect((await harness.call('POST', `/api/customers/${customerId}/redact`, { token: seller.token })).status).toBe(200);
      await harness.settle();
      const after = await get(`/api/subscriptions/${subscriptionId}`);
      expect(after.body).toMatchObject({ customer: { email: `redacted+${customerId}@invalid`, name: null }, customer_id: customerId, status: 'active', amount: 1900 });
      expect((await get(`/api/invoices/${bought.invoice.id}`)).body.customer.email).toBe(`redacted+${customerId}@invalid`);
    } finally {
      await jobs.stop();
    }
  });

  it('keys a signed identity by its user id; a later guest purchase with its email joins it', async () => {
    const me = await get('/api/users/me');
    const signed = await buy('lifetime', {}, seller.token, { token: me.body.service_jwt });
    const id = (await completedOf(signed.session.id)).customer_id as string;
    expect(id).toMatch(/^cus_/);
    const guest = await buy('lifetime', { email: (me.body.email as string).toUpperCase() }, seller.token);
    expect((await completedOf(guest.session.id)).customer_id).toBe(id);
  });

  it('agrees on one customer when the same person is ensured many times at once', async () => {
    const ctx = () => harness.ctx(seller.organizationId);
    const ids = await Promise.all(
      Array.from({ length: 8 }, () => ensureCustomer(ctx(), { organizationId: seller.organizationId, mode: 'test', email: 'race@example.com', name: null })),
    );
    expect(new Set(ids.map((r) => r!.id)).size).toBe(1);
    expect(ids.filter((r) => r!.created)).toHaveLength(1);
    expect(await ensureCustomer(ctx(), { organizationId: seller.organizationId, mode: 'test', email: null })).toBeNull();
    // Live and test customers are apart, as Stripe's.
    const live = await ensureCustomer(ctx(), { organizationId: seller.organizationId, mode: 'live', email: 'race@example.com' });
    expect(live!.id).not.toBe(ids[0]!.id);
  });

  it('erases a customer on request: personal data replaced, the claim released, totals and numbers kept', async () => {
    const first = await buy('lifetime', { email: 'erase@example.com', name: 'Eve Erase' }, seller.token);
    const second = await buy('lifetime', { email: 'erase@example.com' }, seller.token);
    const id = (await completedOf(first.session.id)).customer_id as string;
    await harness.settle();
    const numberBefore = (await get(`/api/invoices/${first.invoice.id}`)).body.number as number;

    expect((await harness.call('POST', `/api/customers/${id}/redact`, { token: other.token })).status).toBe(404);
    const redacted = await harness.call('POST', `/api/customers/${id}/redact`, { token: seller.token });
    expect(redacted.status).toBe(200);
    expect(redacted.body).toMatchObject({ id, email: `redacted+${id}@invalid`, name: null, redacted: true, purchases_count: 2, total_spent: { EUR: 9800 } });

    await harness.settle();
    expect((await get('/api/customers?email=erase@example.com')).body.data).toEqual([]);
    for (const bought of [first, second]) {
      const invoice = await get(`/api/invoices/${bought.invoice.id}`);
      expect(invoice.body.customer).toEqual({ email: `redacted+${id}@invalid`, name: null });
      expect(invoice.body.customer_id).toBe(id);
    }
    expect((await get(`/api/invoices/${first.invoice.id}`)).body.number).toBe(numberBefore);
    const sessions = (await get('/api/checkout/sessions?per_page=1000')).body.data as Body[];
    for (const bought of [first, second]) {
      const session = sessions.find((s) => s.id === bought.session.id)!;
      expect(session).toMatchObject({ customer_email: `redacted+${id}@invalid`, customer_name: null, customer_id: id });
    }
    const answer = JSON.stringify(await get(`/api/customers/${id}`));
    expect(answer).not.toContain('erase@example.com');
    expect(answer).not.toContain('Eve Erase');

    // Again: nothing more to do, same answer.
    const again = await harness.call('POST', `/api/customers/${id}/redact`, { token: seller.token });
    expect(again.status).toBe(200);
    expect(again.body.email).toBe(`redacted+${id}@invalid`);

    // The email is free: the next purchase with it makes a new customer.
    const later = await buy('lifetime', { email: 'erase@example.com' }, seller.token);
    const newId = (await completedOf(later.session.id)).customer_id as string;
    expect(newId).toMatch(/^cus_/);
    expect(newId).not.toBe(id);
    await harness.settle();
    expect((await get('/api/customers?email=erase@example.com')).body.data.map((c: Body) => c.id)).toEqual([newId]);
  });

  it('backfills the purchases completed before customers existed, once', async () => {
    const created = await harness.call('POST', '/api/checkout/sessions', { token: seller.token, body: { offer: 'lifetime' } });
    const sessionId = created.body.session.id as string;
    const started = await harness.call('POST', `/api/checkout/sessions/${sessionId}/start`, { body: { email: 'Old@example.com', name: 'Old Timer' } });
    const invoiceId = started.body.invoice.id as string;
    // Paid and completed as the code before customers recorded it: no customer_id anywhere.
    const ctx = () => harness.ctx(seller.organizationId);
    const now = ctx().metadata.occurred_at;
    const card = { brand: 'visa', last4: '4242' };
    await handleCommand(ctx(), checkoutSessionStream(sessionId), checkoutSessionDecider, { type: 'AttemptPayment', attemptId: 'pa_before', now });
    await handleCommand(ctx(), invoiceStream(invoiceId), invoiceDecider, { type: 'PayInvoice', attemptId: 'pa_before', card, customer: null, now });
    await handleCommand(ctx(), checkoutSessionStream(sessionId), checkoutSessionDecider, { type: 'CompleteSession', attemptId: 'pa_before', card, now: now + 1 });
    await harness.settle();
    expect((await get('/api/customers?email=old@example.com')).body.data).toEqual([]);

    const first = await backfillCustomers(harness.services.store, (organizationId) => harness.ctx(organizationId));
    expect(first).toEqual({ sessions: 1, linked: 1, customers: 1 });
    await harness.settle();
    const found = (await get('/api/customers?email=old@example.com')).body.data as Body[];
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({ email: 'Old@example.com', name: 'Old Timer', purchases_count: 1, invoices_count: 1, total_spent: { EUR: 4900 }, created_at: now + 1, last_purchase_at: now + 1 });
    const history = (await get(`/api/customers/${found[0]!.id}/history`)).body.data as Body[];
    expect(history.map((e) => e.type)).toContain('CustomerPurchaseLinked');
    expect(history[0]).toMatchObject({ type: 'CheckoutSessionCreated', object_id: sessionId });

    // Again: the completion is still without a customer_id, but nothing is linked twice.
    expect(await backfillCustomers(harness.services.store, (organizationId) => harness.ctx(organizationId))).toEqual({ sessions: 1, linked: 0, customers: 0 });
    await harness.settle();
    expect((await get(`/api/customers/${found[0]!.id}`)).body).toMatchObject({ purchases_count: 1, total_spent: { EUR: 4900 } });
    // The next purchase of the same person finds the backfilled customer.
    const next = await buy('lifetime', { email: 'old@example.com' }, seller.token);
    expect((await completedOf(next.session.id)).customer_id).toBe(found[0]!.id);
  });
});
