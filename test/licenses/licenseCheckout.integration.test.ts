import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundJobs } from '../../app/backgroundJobs.ts';
import { grantIdFor } from '../../modules/benefits/index.ts';
import { benefitGrantsJob } from '../../modules/benefits/jobs/benefitGrants.ts';
import { loadProductByKey } from '../../modules/catalog/index.ts';
import { licenseKeysForGrants } from '../../modules/licenses/index.ts';
import { licenseKeyIssuerJob } from '../../modules/licenses/jobs/licenseKeyIssuer.ts';
import { refundInvoice } from '../../modules/payments/index.ts';
import { GOOD_CARD } from '../checkout/checkoutFixtures.ts';
import { clockApp, waitFor, type ClockApp } from '../subscriptions/clockApp.ts';

const silent = { error: (o: unknown, m: string) => console.error(m, o), info: () => undefined };

/** From a real checkout to a key an app activates, and a refund that disables it: both subscribers running. */
describe('a license key bought through checkout', () => {
  let harness: ClockApp;
  let seller: { organizationId: string; token: string };
  let jobs: { stop(): Promise<void> };

  beforeAll(async () => {
    harness = await clockApp();
    seller = await harness.identity();
    jobs = await startBackgroundJobs(harness.services, silent, [benefitGrantsJob, licenseKeyIssuerJob]);
  });
  afterAll(async () => {
    await jobs.stop();
    await harness.close();
  });

  it('is issued on payment with the benefit’s prefix and limit, activates, and is disabled by a full refund', { timeout: 60_000 }, async () => {
    await harness.offerOf(seller.organizationId, 'app', 'one_time');
    const product = (await loadProductByKey(harness.ctx(), seller.organizationId, 'app-product'))!.routeKey;
    const benefit = await harness.call('POST', `/api/products/${product}/benefits`, {
      token: seller.token,
      body: { type: 'license_key', description: 'App license', properties: { prefix: 'APP', activation_limit: 1, expires_after_days: null, bound_to: 'perpetual' } },
    });
    expect(benefit.status).toBe(201);

    const session = await harness.call('POST', '/api/checkout/sessions', { token: seller.token, body: { offer: 'app' } });
    const paid = await harness.call('POST', `/api/checkout/sessions/${session.body.session.id}/pay`, { body: { email: 'ada@example.com', card: GOOD_CARD } });
    expect(paid.status).toBe(200);
    const grantId = grantIdFor(benefit.body.id, { type: 'checkout_session', id: session.body.session.id });
    const [view] = await waitFor(
      'the key',
      async () => {
        await harness.settle();
        return licenseKeysForGrants(harness.services, seller.organizationId, [grantId]);
      },
      (keys) => keys.length === 1,
    );
    expect(view!.key).toMatch(/^APP(-[0-9A-HJKMNP-TV-Z]{4}){7}$/);
    expect(view).toMatchObject({ status: 'inactive', activation_limit: 1, activation_usage: 0, expires_at: null });

    const activated = await harness.call('POST', '/api/licenses/activate', { body: { key: view!.key, instance_name: 'Laptop' } });
    expect(activated.body).toMatchObject({ activated: true, license: { status: 'active', product_id: product } });
    expect((await harness.call('POST', '/api/licenses/activate', { body: { key: view!.key, instance_name: 'Second' } })).status).toBe(422);

    await refundInvoice(harness.ctx(seller.organizationId), harness.services, seller.organizationId, paid.body.invoice.id, 4900);
    const validated = await waitFor(
      'the key disabled',
      () => harness.call('POST', '/api/licenses/validate', { body: { key: view!.key, instance_id: activated.body.instance.id } }),
      (answer) => answer.body.license?.status === 'disabled',
    );
    expect(validated.body).toMatchObject({ valid: false, error: 'This license key is disabled.' });
    await harness.settle();
    const listed = await harness.call('GET', `/api/license_keys?status=disabled`, { token: seller.token });
    expect(listed.body.data).toEqual([expect.objectContaining({ id: view!.id, revoked: true, disabled_by_seller: false, activation_usage: 1 })]);
  });
});
