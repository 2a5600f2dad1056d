import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiceDecider, invoiceStream } from '../../modules/checkout/domain/invoice.ts';
import { createApiKey, createUser } from '../../modules/identity/identityCommands.ts';
import { handleCommand } from '../../platform/es/handleCommand.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';
import { signedInPerson } from '../helpers/manageClient.ts';
import { DAY, importPlans, SubscriptionLog, T0 } from './subscriptionFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const FEB15 = Date.UTC(2026, 1, 15) / 1000;
const FEB20 = Date.UTC(2026, 1, 20) / 1000;
const FEB15_NOON = Date.UTC(2026, 1, 15, 12) / 1000;
const MAR15_NOON = Date.UTC(2026, 2, 15, 12) / 1000;
const FEB25 = Date.UTC(2026, 1, 25) / 1000;
const MAR15 = Date.UTC(2026, 2, 15) / 1000;
const MAR16 = Date.UTC(2026, 2, 16) / 1000;

/**
 * Subscriptions as a seller and an integrator read them, from the log a billing run leaves:
 * sub1 renews, changes plan (through the route) and renews again; sub5's renewal is declined;
 * a trial, a yearly one and one canceled at once sit beside them; another organization has one.
 */
describe('subscription and invoice reads', () => {
  let server: TestServer;
  const clock = manualClock(T0 * 1000);
  let org: { organizationId: string; token: string };
  let other: { organizationId: string; token: string };
  let plans: Awaited<ReturnType<typeof importPlans>>;
  let sub1: SubscriptionLog;
  let sub2: SubscriptionLog;
  let sub3: SubscriptionLog;
  let sub4: SubscriptionLog;
  let sub5: SubscriptionLog;
  let foreign: SubscriptionLog;
  let failedInvoice: string;
  const get = async (path: string, token = org.token) => {
    const response = await server.fetch(path, { token });
    return { status: response.status, body: (await response.json()) as Body };
  };
  const post = async (path: string, body?: unknown, token = org.token) => {
    const response = await server.fetch(path, { method: 'POST', token, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
    return { status: response.status, body: (await response.json()) as Body };
  };

  beforeAll(async () => {
    server = await startTestServer({ clock });
    org = await server.identity('Seller');
    other = await server.identity('Other');
    plans = await importPlans(server, org.organizationId);
    // The log is written in the subscriptions' own time while the service's clock stays where
    // nothing of it is due, so no billing run of the service's acts on it in between.
    sub1 = await SubscriptionLog.create(server, org.organizationId, { plan: plans.terms('basic'), amount: 1000, at: T0, email: 'one@example.com' });
    await sub1.bill(FEB15);
    sub2 = await SubscriptionLog.create(server, org.organizationId, { plan: plans.terms('basic'), amount: 1000, at: FEB15, email: 'trial@example.com', trialDays: 60 });
    sub3 = await SubscriptionLog.create(server, org.organizationId, { plan: plans.terms('yearly'), amount: 12000, at: FEB15, email: 'yearly@example.com' });
    sub5 = await SubscriptionLog.create(server, org.organizationId, { plan: plans.terms('basic'), amount: 1000, at: FEB15_NOON, email: 'five@example.com' });
    clock.set(FEB25 * 1000);
    const changed = await post(`/api/subscriptions/${sub1.id}/change_plan`, { plan: plans.plan('pro').id });
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    await sub1.bill(MAR15);
    sub4 = await SubscriptionLog.create(server, org.organizationId, { plan: plans.terms('basic'), amount: 1000, at: MAR15, email: 'gone@example.com' });
    await sub4.act({ type: 'Cancel', atPeriodEnd: false, refund: 'none', requestedBy: 'seller', now: MAR15 + 3600 });
    failedInvoice = await sub5.bill(MAR15_NOON, { decline: 'generic_decline' });
    foreign = await SubscriptionLog.create(server, other.organizationId, { plan: plans.terms('basic'), amount: 1000, at: MAR15, email: 'one@example.com' });
    clock.set(MAR16 * 1000);
    for (const sub of [sub1, sub2, sub3, sub4, sub5, foreign]) {
      const due = await sub.nextDue();
      expect(due === null || due > MAR16).toBe(true);
    }
    await server.settle();
  }, 60_000);
  afterAll(() => server.close({ remove: true }));

  it('lists the organization’s subscriptions newest first, by status and buyer email, a page at a time', async () => {
    const all = await get('/api/subscriptions');
    expect(all.status).toBe(200);
    const ids = all.body.data.map((s: Body) => s.id);
    // sub2 and sub3 started at the same second: ties go by id.
    expect(ids).toEqual([sub4.id, sub5.id, ...[sub2.id, sub3.id].sort().reverse(), sub1.id]);
    const created = all.body.data.map((s: Body) => s.created_at as number);
    expect(created).toEqual([...created].sort((a, b) => b - a));
    expect(all.body.meta).toMatchObject({ total: 5, current_page: 1 });

    const trialing = await get('/api/subscriptions?status=trialing');
    expect(trialing.body.data.map((s: Body) => s.id)).toEqual([sub2.id]);
    const pastDue = await get('/api/subscriptions?status=past_due');
    expect(pastDue.body.data.map((s: Body) => s.id)).toEqual([sub5.id]);
    const byEmail = await get('/api/subscriptions?customer_email=one%40example.com');
    expect(byEmail.body.data.map((s: Body) => s.id)).toEqual([sub1.id]);

    const page1 = await get('/api/subscriptions?per_page=2');
    const page3 = await get('/api/subscriptions?per_page=2&page=3');
    expect(page1.body.data).toHaveLength(2);
    expect(page3.body.data).toHaveLength(1);
    expect(page1.body.meta).toMatchObject({ total: 5, last_page: 3, per_page: 2 });
    expect(page1.body.links.next).toContain('page=2');

    expect((await get('/api/subscriptions?status=nope')).status).toBe(422);
    expect((await get('/api/subscriptions?per_page=0')).status).toBe(422);
  });

  it('shows one subscription as Stripe does, with entitled, and hides another organization’s', async () => {
    const one = await get(`/api/subscriptions/${sub1.id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      id: sub1.id,
      object: 'subscription',
      status: 'active',
      entitled: true,
      mode: 'test',
      customer: { email: 'one@example.com', name: 'Buyer' },
      plan: { id: plans.plan('pro').id, name: 'pro', product_id: plans.product.routeKey, renew_interval: 'P1M', invoice_interval: 'P1M' },
      currency: 'EUR',
      amount: 3000,
      billing_cycle_anchor: T0,
      current_period_start: MAR15,
      current_period_end: Date.UTC(2026, 3, 15) / 1000,
      cancel_at_period_end: false,
      latest_invoice: { status: 'paid' },
      next_payment_attempt: null,
      test_clock: null,
      created_at: T0,
    });
    expect(one.body.state).toBeUndefined();
    expect(one.body.organization_id).toBeUndefined();
    const trial = await get(`/api/subscriptions/${sub2.id}`);
    expect(trial.body).toMatchObject({ status: 'trialing', entitled: true, trial_start: FEB15, trial_end: FEB15 + 60 * DAY });
    const late = await get(`/api/subscriptions/${sub5.id}`);
    expect(late.body).toMatchObject({ status: 'past_due', entitled: true, latest_invoice: { id: failedInvoice, status: 'open' }, next_payment_attempt: MAR15_NOON + DAY });

    expect((await get(`/api/subscriptions/${foreign.id}`)).status).toBe(404);
    expect((await get(`/api/subscriptions/${sub1.id}`, other.token)).status).toBe(404);
    expect((await get(`/api/subscriptions/${sub1.id}/history`, other.token)).status).toBe(404);
    expect((await get(`/api/subscriptions/${sub1.id}/statement`, other.token)).status).toBe(404);
    expect((await post(`/api/subscriptions/${sub1.id}/pause`, undefined, other.token)).status).toBe(404);
    expect((await get(`/api/invoices/${failedInvoice}`, other.token)).status).toBe(404);
    expect((await get('/api/subscriptions/sub_nope')).status).toBe(404);
  });

  it('replays the history: each event with the subscription after it, ?at= in its own time', async () => {
    const history = await get(`/api/subscriptions/${sub1.id}/history`);
    expect(history.status).toBe(200);
    const types = history.body.data.map((e: Body) => e.type);
    expect(types).toEqual([
      'SubscriptionCreated',
      'SubscriptionInvoiceCreated',
      'SubscriptionPaymentAttempted',
      'SubscriptionInvoicePaid',
      'SubscriptionPlanChanged',
      'SubscriptionInvoiceCreated',
      'SubscriptionPaymentAttempted',
      'SubscriptionInvoicePaid',
    ]);
    expect(history.body.data.map((e: Body) => e.sequence)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const change = history.body.data[4];
    expect(change).toMatchObject({ at: FEB25, actor: { type: 'api_key' }, state: { plan: { name: 'pro' }, amount: 3000, current_period_end: MAR15, sequence: 5 } });
    expect(history.body.data[3].state).toMatchObject({ plan: { name: 'basic' }, current_period_start: FEB15 });
    expect(history.body.state).toMatchObject({ sequence: 8, current_period_start: MAR15 });

    const before = await get(`/api/subscriptions/${sub1.id}/history?at=${FEB20}`);
    expect(before.body.data).toHaveLength(4);
    expect(before.body.state).toMatchObject({ plan: { name: 'basic' }, sequence: 4 });
  });

  it('states what was invoiced, paid, credited and owed as of an instant, with each line’s reason', async () => {
    const statement = async (id: string, asOf: number) => (await get(`/api/subscriptions/${id}/statement?as_of=${asOf}`)).body;

    const beforeRenewal = await statement(sub1.id, FEB15 - 1);
    expect(beforeRenewal.totals).toMatchObject({ invoiced: 1000, paid: 1000, owed: 0, credited: 0 });
    expect(beforeRenewal.entries.map((e: Body) => e.type)).toEqual(['invoice', 'payment']);
    expect(beforeRenewal.entries[0]).toMatchObject({ billing_reason: 'subscription_create', period: { start: T0, end: FEB15 } });

    const afterRenewal = await statement(sub1.id, FEB15 + 1);
    expect(afterRenewal.totals).toMatchObject({ invoiced: 2000, paid: 2000, owed: 0 });
    expect(afterRenewal.entries[2]).toMatchObject({ type: 'invoice', billing_reason: 'subscription_cycle', lines: [{ amount: 1000, reason: 'period', period: { start: FEB15, end: MAR15 } }] });

    // Changed on Feb 25 with 18 of 28 days left: 643 credited for basic, 1929 charged for pro, on the next invoice.
    const afterChange = await statement(sub1.id, FEB25 + 1);
    expect(afterChange.totals).toMatchObject({ invoiced: 2000, paid: 2000, pending_prorations: 1286 });
    const change = afterChange.entries.find((e: Body) => e.type === 'plan_change');
    expect(change).toMatchObject({ from: { plan_name: 'basic', amount: 1000 }, to: { plan_name: 'pro', amount: 3000 }, proration_behavior: 'create_prorations' });
    expect(change.lines.map((l: Body) => l.amount)).toEqual([-643, 1929]);
    expect(change.lines[0].proration).toMatchObject({ side: 'credit', old_price: 1000, new_price: 3000, seconds_used: 10 * DAY, seconds_left: 18 * DAY, rounding: 'per_line_half_away_from_zero' });

    const afterSecond = await statement(sub1.id, MAR15 + 1);
    expect(afterSecond.totals).toMatchObject({ invoiced: 1000 + 1000 + 1929 + 3000, credited: 643, amount_due: 1000 + 1000 + 4286, paid: 6286, owed: 0, pending_prorations: 0 });
    const third = afterSecond.entries.filter((e: Body) => e.type === 'invoice')[2];
    expect(third.lines.map((l: Body) => [l.reason, l.amount])).toEqual([['proration', -643], ['proration', 1929], ['period', 3000]]);
    expect(third.lines[0].proration).toMatchObject({ changed_at: FEB25, period_start: FEB15, period_end: MAR15 });

    // The same instant asked again later answers the same.
    expect(await statement(sub1.id, FEB25 + 1)).toEqual(afterChange);

    const declined = await statement(sub5.id, MAR15_NOON + 1);
    expect(declined.status).toBe('past_due');
    expect(declined.totals).toMatchObject({ invoiced: 2000, paid: 1000, owed: 1000 });
    expect(declined.entries.at(-1)).toMatchObject({ type: 'payment_failed', attempt: 1, code: 'card_declined', decline_code: 'generic_decline', next_payment_attempt: MAR15_NOON + DAY });

    const beforeIt = await statement(sub2.id, FEB15 - 1);
    expect(beforeIt).toMatchObject({ status: null, entries: [] });
    expect((await get(`/api/subscriptions/${sub1.id}/statement?as_of=-1`)).status).toBe(422);
  });

  it('lists invoices by subscription and status, each with its lines, periods and attempts', async () => {
    const ofSub1 = await get(`/api/invoices?subscription=${sub1.id}`);
    expect(ofSub1.status).toBe(200);
    expect(ofSub1.body.data.map((i: Body) => i.billing_reason)).toEqual(['subscription_cycle', 'subscription_cycle', 'subscription_create']);
    expect(ofSub1.body.data.every((i: Body) => i.object === 'invoice' && i.status === 'paid' && i.subscription === sub1.id)).toBe(true);
    expect(ofSub1.body.data[0]).toMatchObject({ amount_due: 4286, amount_paid: 4286, total: 4286, attempt_count: 1, attempts: [{ attempt: 1, outcome: 'succeeded' }], period: { start: MAR15 } });
    expect(ofSub1.body.data[0].lines[0].proration).toMatchObject({ side: 'credit' });
    expect(ofSub1.body.data[2]).toMatchObject({ billing_reason: 'subscription_create', period: { start: T0, end: FEB15 }, session_id: `cs_${sub1.id}` });

    const open = await get('/api/invoices?status=open');
    expect(open.body.data.map((i: Body) => i.id)).toEqual([failedInvoice]);
    expect(open.body.data[0]).toMatchObject({ attempt_count: 1, attempts: [{ outcome: 'failed', code: 'card_declined', decline_code: 'generic_decline', at: MAR15_NOON }], next_payment_attempt: MAR15_NOON + DAY, amount_paid: 0 });

    const one = await get(`/api/invoices/${failedInvoice}`);
    expect(one.body).toMatchObject({ id: failedInvoice, subscription: sub5.id, session_id: null, status: 'open' });
    // A one-time checkout's invoice is listed too, in Stripe's words.
    await handleCommand(server.cliContext(org.organizationId), invoiceStream('in_once'), invoiceDecider, {
      type: 'CreateInvoice',
      invoice: { id: 'in_once', number: 7, organization_id: org.organizationId, session_id: 'cs_once', lines: [{ name: 'Once', amount: 5000 }], currency: 'EUR', customer: { email: 'once@example.com', name: null, user_id: null } },
      now: MAR16,
    });
    const once = await get('/api/invoices/in_once');
    expect(once.body).toMatchObject({ billing_reason: 'manual', subscription: null, session_id: 'cs_once', status: 'open', amount_due: 5000, next_payment_attempt: null, customer: { email: 'once@example.com' } });
    const all = await get('/api/invoices?per_page=100');
    expect(all.body.meta.total).toBe(9);
    expect((await get('/api/invoices?status=late')).status).toBe(422);
  });

  it('measures MRR as Stripe does: active and past_due, trials out, a yearly plan a twelfth', async () => {
    const metrics = await get(`/api/metrics/subscriptions?mode=test&as_of=${MAR16}`);
    expect(metrics.status).toBe(200);
    // pro 3000 + yearly 12000/12 + past_due basic 1000; the trial and the canceled one count nothing.
    // New in the 30 days before: the yearly one, the past_due one and the canceled one.
    expect(metrics.body).toMatchObject({ mrr: { EUR: 5000 }, active_subscriptions: 3, new: 3, churned: 1, reactivated: 0, by_status: { active: 2, past_due: 1, trialing: 1, canceled: 1 } });
    const earlier = await get(`/api/metrics/subscriptions?mode=test&as_of=${FEB15 + 1}`);
    expect(earlier.body).toMatchObject({ mrr: { EUR: 2000 }, active_subscriptions: 2 });
    expect((await get(`/api/metrics/subscriptions?as_of=${MAR16}`)).body.mrr).toEqual({});
  });

  it('serves the dashboard the same answers under /manage/api', async () => {
    const person = await signedInPerson(server, { organizationId: org.organizationId, role: 'member' });
    const list = await person.client.json<Body>('GET', '/manage/api/subscriptions?status=active');
    expect(list.status).toBe(200);
    expect(new Set(list.body.data.map((s: Body) => s.id))).toEqual(new Set([sub1.id, sub3.id]));
    const invoices = await person.client.json<Body>('GET', `/manage/api/subscriptions/${sub5.id}/invoices`);
    expect(invoices.body.data).toHaveLength(2);
    expect((await person.client.json('GET', `/manage/api/subscriptions/${sub5.id}/invoices/${failedInvoice}`)).status).toBe(200);
    expect((await person.client.json('GET', `/manage/api/subscriptions/${sub1.id}/invoices/${failedInvoice}`)).status).toBe(404);
    expect((await person.client.json('GET', `/manage/api/subscriptions/${foreign.id}`)).status).toBe(404);
    expect((await person.client.json('GET', `/manage/api/subscriptions/${foreign.id}/invoices`)).status).toBe(404);

    const scheduled = await person.client.json<Body>('POST', `/manage/api/subscriptions/${sub3.id}/cancel`, { at_period_end: true });
    expect(scheduled.status).toBe(200);
    // A yearly term: it ends a year after it began.
    expect(scheduled.body).toMatchObject({ cancel_at_period_end: true, cancel_at: Date.UTC(2027, 1, 15) / 1000 });
    const undone = await person.client.json<Body>('POST', `/manage/api/subscriptions/${sub3.id}/reactivate`);
    expect(undone.body).toMatchObject({ cancel_at_period_end: false, cancel_at: null });
    const noCsrf = await fetch(`${server.url}/manage/api/subscriptions/${sub3.id}/pause`, {
      method: 'POST',
      headers: { accept: 'application/json', 'sec-fetch-site': 'same-origin', cookie: `commerce_session=${person.client.cookie}`, 'x-csrf-token': 'forged' },
    });
    expect(noCsrf.status).toBe(403);
    expect((await person.client.json<Body>('GET', `/manage/api/subscriptions/${sub3.id}`)).body.status).toBe('active');
    const metrics = await person.client.json<Body>('GET', `/manage/api/metrics/subscriptions?mode=test&as_of=${MAR16}`);
    expect(metrics.body.mrr).toEqual({ EUR: 5000 });
  });

  it('keeps a prorated refund to owners', async () => {
    const member = await createUser(server.cliContext(org.organizationId), { email: 'member@example.com', organizationId: org.organizationId, role: 'member' });
    const key = await createApiKey(server.cliContext(org.organizationId), { userId: member.id, organizationId: org.organizationId });
    await server.settle();
    const refused = await post(`/api/subscriptions/${sub3.id}/cancel`, { refund: 'prorated' }, key.token);
    expect(refused.status).toBe(403);
    expect((await get(`/api/subscriptions/${sub3.id}`)).body.status).toBe('active');
    const readable = await get(`/api/subscriptions/${sub3.id}`, key.token);
    expect(readable.status).toBe(200);
  });
});
