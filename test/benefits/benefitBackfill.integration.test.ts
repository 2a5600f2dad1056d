import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundJobs } from '../../app/backgroundJobs.ts';
import { createBenefit, deleteBenefit } from '../../modules/benefits/benefitCommands.ts';
import { benefitGrantStream } from '../../modules/benefits/domain/benefitTypes.ts';
import { benefitGrantsJob } from '../../modules/benefits/jobs/benefitGrants.ts';
import { grantIdFor, grantsForSource } from '../../modules/benefits/index.ts';
import { loadProductByKey } from '../../modules/catalog/index.ts';
import { refundInvoice } from '../../modules/payments/index.ts';
import { invoiceMirrorJob } from '../../modules/subscriptions/jobs/invoiceMirror.ts';
import { subscriptionCreationJob } from '../../modules/subscriptions/jobs/subscriptionCreation.ts';
import { GOOD_CARD } from '../checkout/checkoutFixtures.ts';
import { clockApp, waitFor, type ClockApp } from '../subscriptions/clockApp.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Source = { type: 'checkout_session' | 'subscription'; id: string };

const CHECKPOINT = 'job:benefit-grants';
const silent = { error: (o: unknown, m: string) => console.error(m, o), info: () => undefined };

/** A benefit added to a product already sold goes to the buyers whose purchase entitles them now. */
describe('a benefit added to a product already sold', () => {
  let harness: ClockApp;
  let seller: { organizationId: string; token: string };
  const products = { zine: '', app: '' };

  beforeAll(async () => {
    harness = await clockApp();
    seller = await harness.identity();
    await harness.offerOf(seller.organizationId, 'zine', 'one_time');
    await harness.offerOf(seller.organizationId, 'app-monthly', 'recurring', { renew: 'P1M' });
    products.zine = (await loadProductByKey(harness.ctx(), seller.organizationId, 'zine-product'))!.routeKey;
    products.app = (await loadProductByKey(harness.ctx(), seller.organizationId, 'app-monthly-product'))!.routeKey;
  });
  afterAll(async () => harness.close());

  const call = (method: 'GET' | 'POST', url: string, body?: unknown) => harness.call(method, url, { token: seller.token, ...(body !== undefined ? { body } : {}) });
  const buy = async (offer: string, email: string) => {
    const created = await call('POST', '/api/checkout/sessions', { offer });
    const paid = await harness.call('POST', `/api/checkout/sessions/${created.body.session.id}/pay`, { body: { email, card: GOOD_CARD } });
    expect(paid.status).toBe(200);
    return { sessionId: created.body.session.id as string, invoiceId: paid.body.invoice.id as string, subscriptionId: (paid.body.session.subscription?.id ?? null) as string | null };
  };
  const addBenefit = async (product: string, description: string) => {
    const { benefit, position } = await createBenefit(harness.ctx(seller.organizationId), {
      organizationId: seller.organizationId,
      product,
      type: 'file',
      description,
      properties: { files: ['file_bonus'] },
    });
    return { id: benefit.id, position: position! };
  };
  const handledUpTo = (position: number) => waitFor('the job', () => harness.services.readStore.readCheckpoint(CHECKPOINT), (c) => c !== null && c >= position, 20_000);
  const grantOf = async (benefitId: string, source: Source) => {
    await harness.settle();
    return (await grantsForSource(harness.services.readStore, seller.organizationId, source)).find((g) => g.benefit_id === benefitId) ?? null;
  };
  const grantEvents = async (benefitId: string, source: Source) => (await harness.services.store.readStream(benefitGrantStream(grantIdFor(benefitId, source)))).map((e) => e.type);

  it('grants it to each one-payment buyer not refunded in full, once, even when the job starts over', { timeout: 60_000 }, async () => {
    const kept = await buy('zine', 'ada@example.com');
    const refunded = await buy('zine', 'bob@example.com');
    const partly = await buy('zine', 'cy@example.com');
    await refundInvoice(harness.ctx(seller.organizationId), harness.services, seller.organizationId, refunded.invoiceId, 4900);
    await refundInvoice(harness.ctx(seller.organizationId), harness.services, seller.organizationId, partly.invoiceId, 100);
    let jobs = await startBackgroundJobs(harness.services, silent, [benefitGrantsJob]);
    try {
      const bonus = await addBenefit(products.zine, 'Bonus chapter');
      await handledUpTo(bonus.position);
      const source = (s: { sessionId: string }) => ({ type: 'checkout_session', id: s.sessionId }) as const;
      expect(await grantOf(bonus.id, source(kept))).toMatchObject({ status: 'granted', product_id: products.zine });
      expect(await grantOf(bonus.id, source(partly))).toMatchObject({ status: 'granted' });
      expect(await grantOf(bonus.id, source(refunded))).toBeNull();
      const granted = (await harness.services.store.readStream(benefitGrantStream(grantIdFor(bonus.id, source(kept)))))[0]!;
      expect(granted.data).toMatchObject({ cause: 'benefit.created', invoice_id: kept.invoiceId });

      // Handled again from the start (a checkpoint a crash lost): nothing twice.
      await jobs.stop();
      await harness.services.readStore.commit(CHECKPOINT, [], { expected: await harness.services.readStore.readCheckpoint(CHECKPOINT), next: 0 });
      jobs = await startBackgroundJobs(harness.services, silent, [benefitGrantsJob]);
      await handledUpTo(bonus.position);
      expect(await grantEvents(bonus.id, source(kept))).toEqual(['BenefitGranted']);
      expect(await grantEvents(bonus.id, source(refunded))).toEqual([]);

      // A later buyer gets it as their purchase completes.
      const later = await buy('zine', 'dee@example.com');
      await waitFor('the later grant', () => grantOf(bonus.id, source(later)), (g) => g?.status === 'granted', 20_000);
      expect((await harness.services.store.readStream(benefitGrantStream(grantIdFor(bonus.id, source(later)))))[0]!.data).toMatchObject({ cause: 'checkout.completed' });
    } finally {
      await jobs.stop();
    }
  });

  it('grants it to each entitled subscription of the product, not to a canceled one', { timeout: 60_000 }, async () => {
    const jobs = await startBackgroundJobs(harness.services, silent, [subscriptionCreationJob, invoiceMirrorJob]);
    let grants: { stop(): Promise<void> } | undefined;
    try {
      const active = await buy('app-monthly', 'eve@example.com');
      const ended = await buy('app-monthly', 'fay@example.com');
      for (const s of [active, ended]) await waitFor('the subscription', () => call('GET', `/api/subscriptions/${s.subscriptionId}`), (r) => r.status === 200, 20_000);
      expect((await call('POST', `/api/subscriptions/${ended.subscriptionId}/cancel`, { at_period_end: false })).body).toMatchObject({ status: 'canceled', entitled: false });
      grants = await startBackgroundJobs(harness.services, silent, [benefitGrantsJob]);
      const manual = await addBenefit(products.app, 'Manual');
      await handledUpTo(manual.position);
      const source = (s: { subscriptionId: string | null }) => ({ type: 'subscription', id: s.subscriptionId! }) as const;
      expect(await grantOf(manual.id, source(active))).toMatchObject({ status: 'granted' });
      expect((await harness.services.store.readStream(benefitGrantStream(grantIdFor(manual.id, source(active)))))[0]!.data).toMatchObject({ cause: 'benefit.created' });
      expect(await grantOf(manual.id, source(ended))).toBeNull();
      // The one-payment product's benefits stay its own.
      expect((await grantsForSource(harness.services.readStore, seller.organizationId, source(active))).map((g) => g.benefit_id)).toEqual([manual.id]);
    } finally {
      await grants?.stop();
      await jobs.stop();
    }
  });

  it('grants nothing of a benefit deleted before the job came to it', { timeout: 60_000 }, async () => {
    const sale = await buy('zine', 'gus@example.com');
    const gone = await addBenefit(products.zine, 'Withdrawn');
    const deleted = await deleteBenefit(harness.ctx(seller.organizationId), seller.organizationId, gone.id);
    const jobs = await startBackgroundJobs(harness.services, silent, [benefitGrantsJob]);
    try {
      await handledUpTo(deleted.position!);
      expect(await grantEvents(gone.id, { type: 'checkout_session', id: sale.sessionId })).toEqual([]);
      expect((await harness.services.store.readStream(`benefit_grant_ledger-${gone.id}`)).map((e) => (e.data as Body).grant_id)).toEqual([]);
    } finally {
      await jobs.stop();
    }
  });
});
