import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testClockStream } from '../../modules/subscriptions/domain/testClock.ts';
import { toNewEvent } from '../../platform/es/handleCommand.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';
import { DAY, importPlans, SubscriptionLog } from './subscriptionFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const MAR10 = Date.UTC(2026, 2, 10) / 1000;
const MAR16 = Date.UTC(2026, 2, 16) / 1000;
const APR10 = Date.UTC(2026, 3, 10) / 1000;

/** The seller's actions over HTTP: each answers the subscription after it, and a GET right after sees it. */
describe('subscription actions', () => {
  let server: TestServer;
  const clock = manualClock(MAR16 * 1000);
  let org: { organizationId: string; token: string };
  let plans: Awaited<ReturnType<typeof importPlans>>;
  const get = async (path: string) => {
    const response = await server.fetch(path, { token: org.token });
    return { status: response.status, body: (await response.json()) as Body };
  };
  const post = async (path: string, body?: unknown) => {
    const response = await server.fetch(path, { method: 'POST', token: org.token, ...(body === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }) });
    return { status: response.status, body: (await response.json()) as Body, position: response.headers.get('commerce-position') };
  };
  const subscription = (options: { trialDays?: number } = {}) =>
    SubscriptionLog.create(server, org.organizationId, { plan: plans.terms('basic'), amount: 1000, at: MAR10, ...options });

  beforeAll(async () => {
    server = await startTestServer({ clock });
    org = await server.identity('Seller');
    plans = await importPlans(server, org.organizationId);
  }, 30_000);
  afterAll(() => server.close({ remove: true }));

  it('cancels at period end, reactivates, pauses, resumes and cancels now; then refuses to pause', async () => {
    const sub = await subscription();
    const base = `/api/subscriptions/${sub.id}`;

    const scheduled = await post(`${base}/cancel`, { at_period_end: true });
    expect(scheduled.status).toBe(200);
    expect(scheduled.position).toMatch(/^\d+$/);
    expect(scheduled.body).toMatchObject({ id: sub.id, status: 'active', entitled: true, cancel_at_period_end: true, cancel_at: APR10, canceled_at: null, sequence: 2 });
    // Read-your-writes: the same key's GET waits for the read model.
    expect((await get(base)).body).toMatchObject({ cancel_at_period_end: true, cancel_at: APR10, sequence: 2 });

    const reactivated = await post(`${base}/reactivate`);
    expect(reactivated.body).toMatchObject({ status: 'active', cancel_at_period_end: false, cancel_at: null, sequence: 3 });
    expect((await get(base)).body).toMatchObject({ cancel_at_period_end: false });

    const paused = await post(`${base}/pause`);
    expect(paused.body).toMatchObject({ status: 'paused', entitled: false, pause_collection: { behavior: 'void', paused_at: MAR16, resumes_at: null } });
    expect((await get(base)).body).toMatchObject({ status: 'paused', entitled: false });

    clock.set((MAR16 + DAY) * 1000);
    const resumed = await post(`${base}/resume`);
    expect(resumed.body).toMatchObject({ status: 'active', entitled: true, pause_collection: null, billing_cycle_anchor: MAR16 + DAY, current_period_start: MAR16 + DAY });

    const canceled = await post(`${base}/cancel`, {});
    expect(canceled.body).toMatchObject({ status: 'canceled', entitled: false, canceled_at: MAR16 + DAY, ended_at: MAR16 + DAY, cancel_at_period_end: false });
    expect((await get(base)).body).toMatchObject({ status: 'canceled', entitled: false });

    const refused = await post(`${base}/pause`);
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ code: 'subscription_canceled' });
    expect((await post(`${base}/resume`)).status).toBe(409);
    clock.set(MAR16 * 1000);
  });

  it('refuses what cannot be done: resume an active one, cancel at period end with a refund, bad bodies', async () => {
    const sub = await subscription();
    const base = `/api/subscriptions/${sub.id}`;
    const resume = await post(`${base}/resume`);
    expect(resume.status).toBe(409);
    expect(resume.body.code).toBe('subscription_not_paused');
    const both = await post(`${base}/cancel`, { at_period_end: true, refund: 'prorated' });
    expect(both.status).toBe(422);
    expect(both.body.code).toBe('refund_at_period_end');
    expect((await post(`${base}/cancel`, { at_period_end: 'yes' })).status).toBe(422);
    expect((await post(`${base}/cancel`, { refund: 'all' })).status).toBe(422);
    expect((await post(`${base}/cancel`, { surprise: true })).status).toBe(422);
    const malformed = await server.fetch(`${base}/cancel`, { method: 'POST', token: org.token, headers: { 'content-type': 'application/json' }, body: '{"at_period_end":' });
    expect(malformed.status).toBe(400);
    expect((await get(base)).body).toMatchObject({ status: 'active', sequence: 1 });
    expect((await post('/api/subscriptions/sub_unknown/pause')).status).toBe(404);
  });

  it('cancels now with a prorated refund of the unused time', async () => {
    const sub = await subscription();
    // Mar 10 → Apr 10 is 31 days; canceled on Mar 16 with 25 left: 1000 × 25/31 = 806.45 → 806.
    const canceled = await post(`/api/subscriptions/${sub.id}/cancel`, { refund: 'prorated' });
    expect(canceled.status).toBe(200);
    expect(canceled.body).toMatchObject({ status: 'canceled', entitled: false });
    // The refund subscriber pays it back, dated at the cancellation.
    const statement = async () => (await get(`/api/subscriptions/${sub.id}/statement?as_of=${MAR16}`)).body;
    await expect.poll(async () => (await statement()).totals.refunded, { timeout: 20_000 }).toBe(806);
    const settled = await statement();
    expect(settled.totals).toMatchObject({ paid: 1000, refunded: 806, refund_due: 0 });
    expect(settled.entries.at(-1)).toMatchObject({ type: 'refund', amount: 806, reason: 'prorated_cancellation', proration: { seconds_left: 25 * DAY, rounding: 'per_line_half_away_from_zero' } });
  });

  it('changes plan: prorations on the next invoice, or none, and refuses plans it cannot move to', async () => {
    const sub = await subscription();
    const base = `/api/subscriptions/${sub.id}`;
    const change = (plan: string, extra: Record<string, unknown> = {}) => post(`${base}/change_plan`, { plan, ...extra });

    const unknown = await change('zzzzzzzz');
    expect(unknown.status).toBe(422);
    expect(unknown.body).toMatchObject({ code: 'plan_not_found', errors: { plan: [expect.any(String)] } });
    expect((await change(plans.plan('usd').id)).body.code).toBe('plan_other_currency');
    expect((await change(plans.plan('once').id)).body.code).toBe('plan_not_recurring');
    expect((await change(plans.plan('yearly').id)).body.code).toBe('plan_other_interval');
    const same = await change(plans.plan('basic').id);
    expect(same.status).toBe(409);
    expect(same.body.code).toBe('same_plan');
    expect((await change(plans.plan('pro').id, { proration_behavior: 'sometimes' })).status).toBe(422);
    expect((await post(`${base}/change_plan`, {})).status).toBe(422);

    const none = await change(plans.plan('pro').id, { proration_behavior: 'none' });
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ plan: { id: plans.plan('pro').id, name: 'pro' }, amount: 3000, status: 'active' });
    expect((await get(`${base}/statement?as_of=${MAR16}`)).body.totals.pending_prorations).toBe(0);

    const back = await change(plans.plan('basic').id);
    expect(back.body).toMatchObject({ plan: { name: 'basic' }, amount: 1000 });
    // Pro → basic on Mar 16 with 25 of 31 days left: −2419 for pro, +806 for basic.
    const statement = (await get(`${base}/statement?as_of=${MAR16}`)).body;
    expect(statement.pending_prorations.map((l: Body) => l.amount)).toEqual([-2419, 806]);
    expect((await get(base)).body).toMatchObject({ plan: { name: 'basic' }, amount: 1000 });
  });

  it('changes a trial’s plan without prorating it', async () => {
    const sub = await subscription({ trialDays: 30 });
    const changed = await post(`/api/subscriptions/${sub.id}/change_plan`, { plan: plans.plan('pro').id, proration_behavior: 'always_invoice' });
    expect(changed.body).toMatchObject({ status: 'trialing', amount: 3000 });
    expect((await get(`/api/subscriptions/${sub.id}/statement?as_of=${MAR16}`)).body.entries.find((e: Body) => e.type === 'plan_change').lines).toEqual([]);
  });

  it('acts and reads in the time of the subscription’s test clock', async () => {
    // A clock frozen in 2025, as test clocks record it.
    const frozen = Date.UTC(2025, 5, 1) / 1000;
    const clockId = 'clock_actions';
    const ctx = server.cliContext(org.organizationId);
    await ctx.store.append(testClockStream(clockId), [toNewEvent({ type: 'TestClockCreated', data: { id: clockId, organization_id: org.organizationId, name: null, frozen_time: frozen, created_at: MAR16 } }, ctx.metadata)], 'no_stream');
    const sub = await SubscriptionLog.create(server, org.organizationId, { plan: plans.terms('basic'), amount: 1000, at: frozen - 5 * DAY, testClock: clockId });
    const paused = await post(`/api/subscriptions/${sub.id}/pause`);
    expect(paused.body).toMatchObject({ status: 'paused', test_clock: clockId, pause_collection: { paused_at: frozen } });
    // Without as_of, the statement and the history are as of the clock's time, not the wall clock's.
    const statement = (await get(`/api/subscriptions/${sub.id}/statement`)).body;
    expect(statement).toMatchObject({ as_of: frozen, status: 'paused', totals: { paid: 1000 } });
    const history = (await get(`/api/subscriptions/${sub.id}/history`)).body;
    expect(history).toMatchObject({ at: frozen, state: { status: 'paused' } });
    expect(history.data.map((e: Body) => e.at)).toEqual([frozen - 5 * DAY, frozen]);
  });
});
