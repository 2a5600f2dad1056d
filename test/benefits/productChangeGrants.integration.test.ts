import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundJobs } from '../../app/backgroundJobs.ts';
import { createBenefit } from '../../modules/benefits/benefitCommands.ts';
import { benefitGrantStream } from '../../modules/benefits/domain/benefitTypes.ts';
import { benefitGrantsJob } from '../../modules/benefits/jobs/benefitGrants.ts';
import { grantIdFor, grantsForSource } from '../../modules/benefits/index.ts';
import { loadProductByKey } from '../../modules/catalog/index.ts';
import { invoiceMirrorJob } from '../../modules/subscriptions/jobs/invoiceMirror.ts';
import { subscriptionCreationJob } from '../../modules/subscriptions/jobs/subscriptionCreation.ts';
import { GOOD_CARD } from '../checkout/checkoutFixtures.ts';
import { clockApp, waitFor, type ClockApp } from '../subscriptions/clockApp.ts';

const silent = { error: (o: unknown, m: string) => console.error(m, o), info: () => undefined };

/** A subscription moved to another product's plan (Stripe's price of another product): its benefits move with it. */
describe('a plan change to another product', () => {
  let harness: ClockApp;
  let seller: { organizationId: string; token: string };
  let jobs: { stop(): Promise<void> } | undefined;
  const products = { starter: { id: '', plan: '', benefit: '' }, team: { id: '', plan: '', benefit: '' } };

  beforeAll(async () => {
    harness = await clockApp();
    seller = await harness.identity();
    for (const name of ['starter', 'team'] as const) {
      await harness.offerOf(seller.organizationId, name, 'recurring', { renew: 'P1M' });
      const product = (await loadProductByKey(harness.ctx(), seller.organizationId, `${name}-product`))!;
      const { benefit } = await createBenefit(harness.ctx(seller.organizationId), {
        organizationId: seller.organizationId,
        product: product.routeKey,
        type: 'file',
        description: `The ${name} handbook`,
        properties: { files: [`file_${name}`] },
      });
      products[name] = { id: product.routeKey, plan: product.plans[0]!.id, benefit: benefit.id };
    }
    jobs = await startBackgroundJobs(harness.services, silent, [subscriptionCreationJob, invoiceMirrorJob, benefitGrantsJob]);
  });
  afterAll(async () => {
    await jobs?.stop();
    await harness.close();
  });

  const call = (method: 'GET' | 'POST', url: string, body?: unknown) => harness.call(method, url, { token: seller.token, ...(body !== undefined ? { body } : {}) });
  const statuses = async (subscriptionId: string) => {
    await harness.settle();
    const grants = await grantsForSource(harness.services.readStore, seller.organizationId, { type: 'subscription', id: subscriptionId });
    return Object.fromEntries(grants.map((g) => [g.benefit_id === products.starter.benefit ? 'starter' : 'team', g.status]));
  };

  it("moves the subscription, prorated, and its benefits: the old product's revoked, the new one's granted", { timeout: 60_000 }, async () => {
    const created = await call('POST', '/api/checkout/sessions', { offer: 'starter' });
    const paid = await harness.call('POST', `/api/checkout/sessions/${created.body.session.id}/pay`, { body: { email: 'ada@example.com', card: GOOD_CARD } });
    const id = paid.body.session.subscription.id as string;
    await waitFor('the grant', () => statuses(id), (s) => s.starter === 'granted', 20_000);

    const unknown = await call('POST', `/api/subscriptions/${id}/change_plan`, { plan: products.team.plan, product: 'nosuchproduct' });
    expect(unknown.status).toBe(422);
    expect(unknown.body).toMatchObject({ code: 'product_not_found', errors: { product: [expect.any(String)] } });
    // Without `product`, a plan is looked for in the subscription's own product only.
    expect((await call('POST', `/api/subscriptions/${id}/change_plan`, { plan: products.team.plan })).body.code).toBe('plan_not_found');

    const moved = await call('POST', `/api/subscriptions/${id}/change_plan`, { plan: products.team.plan, product: products.team.id, proration_behavior: 'none' });
    expect(moved.status).toBe(200);
    expect(moved.body).toMatchObject({ status: 'active', plan: { id: products.team.plan, product_id: products.team.id } });
    await waitFor('the benefits moved', () => statuses(id), (s) => s.starter === 'revoked' && s.team === 'granted', 20_000);
    const source = { type: 'subscription' as const, id };
    const revoked = (await harness.services.store.readStream(benefitGrantStream(grantIdFor(products.starter.benefit, source)))).at(-1)!;
    expect(revoked).toMatchObject({ type: 'BenefitRevoked', data: { cause: 'subscription.plan_changed' } });
    const granted = (await harness.services.store.readStream(benefitGrantStream(grantIdFor(products.team.benefit, source)))).at(-1)!;
    expect(granted).toMatchObject({ type: 'BenefitGranted', data: { cause: 'subscription.plan_changed' } });
  });
});
