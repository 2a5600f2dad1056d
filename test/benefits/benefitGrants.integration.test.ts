import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundJobs } from '../../app/backgroundJobs.ts';
import { createBenefit, deleteBenefit } from '../../modules/benefits/benefitCommands.ts';
import { benefitGrantStream } from '../../modules/benefits/domain/benefitTypes.ts';
import { benefitGrantsJob } from '../../modules/benefits/jobs/benefitGrants.ts';
import { grantIdFor, grantsForSource } from '../../modules/benefits/index.ts';
import { loadProductByKey } from '../../modules/catalog/index.ts';
import { refundInvoice } from '../../modules/payments/index.ts';
import { GOOD_CARD } from '../checkout/checkoutFixtures.ts';
import { clockApp, waitFor, type ClockApp } from '../subscriptions/clockApp.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const silent = { error: (o: unknown, m: string) => console.error(m, o), info: () => undefined };

describe('benefit grants on one-payment purchases', () => {
  let harness: ClockApp;
  let seller: { organizationId: string; token: string };
  let productId: string;
  let fileBenefit: string;
  let keyBenefit: string;
  let refundedSale: string;

  beforeAll(async () => {
    harness = await clockApp();
    seller = await harness.identity();
    await harness.offerOf(seller.organizationId, 'zine', 'one_time');
    productId = (await loadProductByKey(harness.ctx(), seller.organizationId, 'zine-product'))!.routeKey;
    const ctx = harness.ctx(seller.organizationId);
    fileBenefit = (await createBenefit(ctx, { organizationId: seller.organizationId, product: productId, type: 'file', description: 'The PDF', properties: { files: ['file_zine'] } })).benefit.id;
    keyBenefit = (
      await createBenefit(ctx, {
        organizationId: seller.organizationId,
        product: productId,
        type: 'license_key',
        description: 'Key',
        properties: { prefix: 'ZN', activation_limit: 2, expires_after_days: null, bound_to: 'perpetual' },
      })
    ).benefit.id;
  });
  afterAll(async () => harness.close());

  const buy = async (email: string) => {
    const created = await harness.call('POST', '/api/checkout/sessions', { token: seller.token, body: { offer: 'zine' } });
    expect(created.status).toBe(201);
    const paid = await harness.call('POST', `/api/checkout/sessions/${created.body.session.id}/pay`, { body: { email, card: GOOD_CARD } });
    expect(paid.status).toBe(200);
    const completed = (await harness.services.store.readStream(`checkout_session-${created.body.session.id}`)).find((e) => e.type === 'CheckoutSessionCompleted')!;
    return { sessionId: created.body.session.id as string, invoiceId: paid.body.invoice.id as string, customerId: (completed.data as Body).customer_id as string };
  };
  const grantsOf = (sessionId: string) => grantsForSource(harness.services.readStore, seller.organizationId, { type: 'checkout_session', id: sessionId });
  const grantEvents = async (grantId: string) => (await harness.services.store.readStream(benefitGrantStream(grantId))).map((e) => e.type);

  it('grants every benefit of the product on completion, and revokes them all on a full refund only', { timeout: 60_000 }, async () => {
    const jobs = await startBackgroundJobs(harness.services, silent, [benefitGrantsJob]);
    try {
      const sale = await buy('ada@example.com');
      refundedSale = sale.sessionId;
      const source = { type: 'checkout_session' as const, id: sale.sessionId };
      await waitFor('grants', async () => { await harness.settle(); return grantsOf(sale.sessionId); }, (g) => g.length === 2);
      const grants = await grantsOf(sale.sessionId);
      expect(grants.map((g) => g.id).sort()).toEqual([grantIdFor(fileBenefit, source), grantIdFor(keyBenefit, source)].sort());
      for (const g of grants) expect(g).toMatchObject({ customer_id: sale.customerId, product_id: productId, status: 'granted', source, mode: 'test' });
      const granted = (await harness.services.store.readStream(benefitGrantStream(grantIdFor(fileBenefit, source))))[0]!;
      expect(granted.data).toMatchObject({ cause: 'checkout.completed', invoice_id: sale.invoiceId });

      // A partial refund takes nothing back; the rest of it does.
      await refundInvoice(harness.ctx(seller.organizationId), harness.services, seller.organizationId, sale.invoiceId, 900);
      const partial = (await harness.services.store.readStream(`invoice-${sale.invoiceId}`)).at(-1)!;
      expect(partial.type).toBe('InvoiceRefunded');
      await waitFor('the partial refund handled', () => harness.services.readStore.readCheckpoint('job:benefit-grants'), (c) => c !== null && c >= partial.position);
      await harness.settle();
      expect((await grantsOf(sale.sessionId)).map((g) => g.status)).toEqual(['granted', 'granted']);
      await refundInvoice(harness.ctx(seller.organizationId), harness.services, seller.organizationId, sale.invoiceId, 4000);
      await waitFor('revocations', async () => { await harness.settle(); return grantsOf(sale.sessionId); }, (g) => g.every((x) => x.status === 'revoked'));
      for (const g of await grantsOf(sale.sessionId)) expect(g).toMatchObject({ status: 'revoked', revoke_cause: 'refund' });
      expect(await grantEvents(grantIdFor(fileBenefit, source))).toEqual(['BenefitGranted', 'BenefitRevoked']);
    } finally {
      await jobs.stop();
    }
  });

  it('finishes after a crash on the same grant streams, appending nothing twice', { timeout: 60_000 }, async () => {
    // No subscriber runs while the purchase happens: a crash before any grant.
    const sale = await buy('grace@example.com');
    const source = { type: 'checkout_session' as const, id: sale.sessionId };
    let jobs = await startBackgroundJobs(harness.services, silent, [benefitGrantsJob]);
    await waitFor('grants', async () => { await harness.settle(); return grantsOf(sale.sessionId); }, (g) => g.length === 2);
    await jobs.stop();

    // Replaying from the start (a checkpoint lost with a crash mid-batch) decides nothing new.
    const sessionEvents = await harness.services.store.readStream(`checkout_session-${sale.sessionId}`);
    const reached = sessionEvents[sessionEvents.length - 1]!.position;
    await harness.services.readStore.commit('job:benefit-grants', [], { expected: await harness.services.readStore.readCheckpoint('job:benefit-grants'), next: 0 });
    jobs = await startBackgroundJobs(harness.services, silent, [benefitGrantsJob]);
    try {
      await waitFor('replay', () => harness.services.readStore.readCheckpoint('job:benefit-grants'), (c) => c !== null && c >= reached);
      expect(await grantEvents(grantIdFor(fileBenefit, source))).toEqual(['BenefitGranted']);
      expect(await grantEvents(grantIdFor(keyBenefit, source))).toEqual(['BenefitGranted']);
      // The first sale's refunded grants stay revoked on a replay of its completion.
      expect(await grantEvents(grantIdFor(fileBenefit, { type: 'checkout_session', id: refundedSale }))).toEqual(['BenefitGranted', 'BenefitRevoked']);
      const ledger = await harness.services.store.readStream(`benefit_grant_ledger-${fileBenefit}`);
      expect(new Set(ledger.map((e) => (e.data as Body).grant_id)).size).toBe(2);

      // Deleting a benefit revokes its grants, and only its.
      await deleteBenefit(harness.ctx(seller.organizationId), seller.organizationId, fileBenefit);
      await waitFor('deletion', async () => { await harness.settle(); return grantsOf(sale.sessionId); }, (g) => g.find((x) => x.benefit_id === fileBenefit)?.status === 'revoked');
      const after = await grantsOf(sale.sessionId);
      expect(after.find((g) => g.benefit_id === fileBenefit)).toMatchObject({ status: 'revoked', revoke_cause: 'benefit.deleted' });
      expect(after.find((g) => g.benefit_id === keyBenefit)).toMatchObject({ status: 'granted' });
    } finally {
      await jobs.stop();
    }
  });
});
