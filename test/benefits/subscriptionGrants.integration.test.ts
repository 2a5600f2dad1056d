import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundJobs } from '../../app/backgroundJobs.ts';
import { createBenefit } from '../../modules/benefits/benefitCommands.ts';
import { benefitGrantStream } from '../../modules/benefits/domain/benefitTypes.ts';
import { benefitGrantsJob } from '../../modules/benefits/jobs/benefitGrants.ts';
import { grantIdFor, grantsForSource } from '../../modules/benefits/index.ts';
import { loadProductByKey } from '../../modules/catalog/index.ts';
import { useSavedCard } from '../../modules/subscriptions/index.ts';
import { invoiceMirrorJob } from '../../modules/subscriptions/jobs/invoiceMirror.ts';
import { subscriptionCreationJob } from '../../modules/subscriptions/jobs/subscriptionCreation.ts';
import { GOOD_CARD } from '../checkout/checkoutFixtures.ts';
import { clockApp, waitFor, type ClockApp } from '../subscriptions/clockApp.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const DAY = 86_400;
const T0 = Date.UTC(2027, 0, 31, 12) / 1000;
const FAILS_LATER = { ...GOOD_CARD, number: '4000 0000 0000 0341' };
const silent = { error: (o: unknown, m: string) => console.error(m, o), info: () => undefined };

/** Access follows `entitled` on a test clock: lost after the grace of a failing renewal, back when paid. */
describe('benefit grants of a subscription', () => {
  let harness: ClockApp;
  let seller: { organizationId: string; token: string };
  let jobs: { stop(): Promise<void> } | undefined;
  const benefits: Record<'file' | 'bound' | 'perpetual', string> = { file: '', bound: '', perpetual: '' };

  beforeAll(async () => {
    harness = await clockApp();
    seller = await harness.identity();
    await harness.offerOf(seller.organizationId, 'app-monthly', 'recurring', { renew: 'P1M' });
    const productId = (await loadProductByKey(harness.ctx(), seller.organizationId, 'app-monthly-product'))!.routeKey;
    const ctx = harness.ctx(seller.organizationId);
    const organizationId = seller.organizationId;
    const key = (bound_to: 'subscription' | 'perpetual') => ({ prefix: 'APP', activation_limit: 1, expires_after_days: null, bound_to });
    benefits.file = (await createBenefit(ctx, { organizationId, product: productId, type: 'file', description: 'Manual', properties: { files: ['file_manual'] } })).benefit.id;
    benefits.bound = (await createBenefit(ctx, { organizationId, product: productId, type: 'license_key', description: 'Pro key', properties: key('subscription') })).benefit.id;
    benefits.perpetual = (await createBenefit(ctx, { organizationId, product: productId, type: 'license_key', description: 'v1 key', properties: key('perpetual') })).benefit.id;
    await harness.startAdvanceJob();
    jobs = await startBackgroundJobs(harness.services, silent, [subscriptionCreationJob, invoiceMirrorJob, benefitGrantsJob]);
  });
  afterAll(async () => {
    await jobs?.stop();
    await harness.close();
  });

  const call = (method: 'GET' | 'POST', url: string, body?: unknown) => harness.call(method, url, { token: seller.token, ...(body !== undefined ? { body } : {}) });
  async function advance(clock: string, to: number) {
    expect((await call('POST', `/api/test_clocks/${clock}/advance`, { frozen_time: to })).status).toBe(200);
    await waitFor('the clock', () => call('GET', `/api/test_clocks/${clock}`), (r) => r.body.status === 'ready', 60_000);
  }
  const statuses = async (subscriptionId: string) => {
    await harness.settle();
    const grants = await grantsForSource(harness.services.readStore, seller.organizationId, { type: 'subscription', id: subscriptionId });
    const of = (id: string) => grants.find((g) => g.benefit_id === id)?.status ?? 'none';
    return { file: of(benefits.file), bound: of(benefits.bound), perpetual: of(benefits.perpetual) };
  };

  async function subscribe(card = GOOD_CARD) {
    const clock = (await call('POST', '/api/test_clocks', { frozen_time: T0 })).body.id as string;
    const created = await call('POST', '/api/checkout/sessions', { offer: 'app-monthly', test_clock: clock });
    const paid = await harness.call('POST', `/api/checkout/sessions/${created.body.session.id}/pay`, { body: { email: 'ada@example.com', card } });
    expect(paid.status).toBe(200);
    return { clock, id: paid.body.session.subscription.id as string };
  }

  it('revokes files and subscription-bound keys when entitlement ends, keeps perpetual keys, and grants again when paid', { timeout: 120_000 }, async () => {
    const { clock, id } = await subscribe(FAILS_LATER);
    const all = { file: 'granted', bound: 'granted', perpetual: 'granted' };
    await waitFor('grants', () => statuses(id), (s) => JSON.stringify(s) === JSON.stringify(all), 20_000);
    // A one-payment grant is never made for a subscription's checkout.
    const sessionId = (await harness.services.store.readStream(`subscription-${id}`))[0]!.data as Body;
    expect(await grantsForSource(harness.services.readStore, seller.organizationId, { type: 'checkout_session', id: sessionId.session_id })).toEqual([]);

    // The renewal fails: past_due but entitled through the grace, then not.
    const renewal = Date.UTC(2027, 1, 28, 12) / 1000;
    await advance(clock, renewal + 7 * DAY - 1);
    expect((await call('GET', `/api/subscriptions/${id}`)).body).toMatchObject({ status: 'past_due', entitled: true });
    expect(await statuses(id)).toEqual(all);
    await advance(clock, renewal + 7 * DAY);
    expect((await call('GET', `/api/subscriptions/${id}`)).body).toMatchObject({ status: 'past_due', entitled: false });
    const lost = { file: 'revoked', bound: 'revoked', perpetual: 'granted' };
    await waitFor('revocations', () => statuses(id), (s) => JSON.stringify(s) === JSON.stringify(lost), 20_000);
    const source = { type: 'subscription' as const, id };
    const revoked = (await harness.services.store.readStream(benefitGrantStream(grantIdFor(benefits.bound, source)))).at(-1)!;
    expect(revoked).toMatchObject({ type: 'BenefitRevoked', data: { cause: 'subscription.not_entitled' } });

    // A good card pays the open invoice at the next run: entitled again, the same grants again.
    const saved = await useSavedCard(harness.ctx(seller.organizationId), id, { id: 'pm_card_visa', provider: 'test', card: { brand: 'visa', last4: '4242' }, exp_month: 12, exp_year: 2040 });
    expect(saved.status).toBe('saved');
    await advance(clock, renewal + 7 * DAY + 60);
    expect((await call('GET', `/api/subscriptions/${id}`)).body).toMatchObject({ status: 'active', entitled: true });
    await waitFor('grants again', () => statuses(id), (s) => JSON.stringify(s) === JSON.stringify(all), 20_000);
    const types = async (benefitId: string) => (await harness.services.store.readStream(benefitGrantStream(grantIdFor(benefitId, source)))).map((e) => e.type);
    expect(await types(benefits.file)).toEqual(['BenefitGranted', 'BenefitRevoked', 'BenefitGranted']);
    expect(await types(benefits.perpetual)).toEqual(['BenefitGranted']);
    const regrant = (await harness.services.store.readStream(benefitGrantStream(grantIdFor(benefits.file, source)))).at(-1)!;
    expect((regrant.data as Body).cause).toBe('subscription.entitled');
    expect((regrant.data as Body).invoice_id).toMatch(/^in_/);
  });

  it('revokes on an immediate cancel what ends with the subscription', { timeout: 60_000 }, async () => {
    const { id } = await subscribe();
    await waitFor('grants', () => statuses(id), (s) => s.file === 'granted' && s.bound === 'granted' && s.perpetual === 'granted', 20_000);
    const canceled = await call('POST', `/api/subscriptions/${id}/cancel`, { at_period_end: false });
    expect(canceled.body).toMatchObject({ status: 'canceled', entitled: false });
    await waitFor('revocations', () => statuses(id), (s) => s.file === 'revoked' && s.bound === 'revoked', 20_000);
    expect((await statuses(id)).perpetual).toBe('granted');
  });
});
