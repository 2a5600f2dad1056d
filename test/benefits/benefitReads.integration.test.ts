import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBenefit, deleteBenefit, updateBenefit } from '../../modules/benefits/benefitCommands.ts';
import { benefitGrantDecider } from '../../modules/benefits/domain/benefitGrant.ts';
import { benefitGrantStream, type GrantSource } from '../../modules/benefits/domain/benefitTypes.ts';
import { activeFileGrant, activeGrantsForCustomer, benefitsByIds, grantIdFor, grantsForSource } from '../../modules/benefits/index.ts';
import { loadProductByKey } from '../../modules/catalog/index.ts';
import { handleCommand } from '../../platform/es/handleCommand.ts';
import { clockApp, type ClockApp } from '../subscriptions/clockApp.ts';

describe('benefits read models (the exports other modules build on)', () => {
  let harness: ClockApp;
  let seller: { organizationId: string; token: string };
  let other: { organizationId: string; token: string };
  let productId: string;

  beforeAll(async () => {
    harness = await clockApp();
    seller = await harness.identity();
    other = await harness.identity();
    await harness.offerOf(seller.organizationId, 'zine', 'one_time');
    productId = (await loadProductByKey(harness.ctx(), seller.organizationId, 'zine-product'))!.routeKey;
  });
  afterAll(async () => harness.close());

  const grant = async (organizationId: string, benefitId: string, type: 'file' | 'license_key', customerId: string, source: GrantSource) => {
    const grantId = grantIdFor(benefitId, source);
    await handleCommand(harness.ctx(organizationId), benefitGrantStream(grantId), benefitGrantDecider, {
      type: 'Grant',
      regrant: false,
      grant: { grant_id: grantId, organization_id: organizationId, mode: 'test', benefit_id: benefitId, benefit_type: type, product_id: productId, customer_id: customerId, source, cause: 'checkout.completed', invoice_id: null, granted_at: 1_700_000_000 },
    });
    return grantId;
  };

  it('derives one grant id per benefit and source', () => {
    const a = grantIdFor('ben_1', { type: 'checkout_session', id: 'cs_1' });
    expect(a).toMatch(/^bgr_[0-9a-f]{32}$/);
    expect(grantIdFor('ben_1', { type: 'checkout_session', id: 'cs_1' })).toBe(a);
    expect(grantIdFor('ben_1', { type: 'subscription', id: 'cs_1' })).not.toBe(a);
    expect(grantIdFor('ben_2', { type: 'checkout_session', id: 'cs_1' })).not.toBe(a);
  });

  it("answers a customer's grants, a source's grants, the grant of a file, and benefits by id, in the organization only", async () => {
    const ctx = harness.ctx(seller.organizationId);
    const { benefit: file } = await createBenefit(ctx, { organizationId: seller.organizationId, product: productId, type: 'file', description: 'The PDF', properties: { files: ['file_a', 'file_b'] } });
    const { benefit: key } = await createBenefit(ctx, {
      organizationId: seller.organizationId,
      product: productId,
      type: 'license_key',
      description: 'App key',
      properties: { prefix: 'ZINE', activation_limit: 3, expires_after_days: null, bound_to: 'perpetual' },
    });
    const source: GrantSource = { type: 'checkout_session', id: 'cs_test_1' };
    const g1 = await grant(seller.organizationId, file.id, 'file', 'cus_a', source);
    const g2 = await grant(seller.organizationId, key.id, 'license_key', 'cus_a', source);
    await harness.settle();

    const mine = await activeGrantsForCustomer(harness.services.readStore, seller.organizationId, 'cus_a');
    expect(mine.map((g) => g.id).sort()).toEqual([g1, g2].sort());
    expect(mine.find((g) => g.id === g1)).toMatchObject({ benefit_id: file.id, benefit_type: 'file', product_id: productId, customer_id: 'cus_a', source, status: 'granted', revoked_at: null });
    expect(await activeGrantsForCustomer(harness.services.readStore, other.organizationId, 'cus_a')).toEqual([]);
    expect((await grantsForSource(harness.services.readStore, seller.organizationId, source)).map((g) => g.id).sort()).toEqual([g1, g2].sort());
    expect(await grantsForSource(harness.services.readStore, other.organizationId, source)).toEqual([]);

    expect((await activeFileGrant(harness.services.readStore, { organizationId: seller.organizationId, customerId: 'cus_a', fileId: 'file_b' }))?.id).toBe(g1);
    expect(await activeFileGrant(harness.services.readStore, { organizationId: seller.organizationId, customerId: 'cus_b', fileId: 'file_b' })).toBeNull();
    expect(await activeFileGrant(harness.services.readStore, { organizationId: other.organizationId, customerId: 'cus_a', fileId: 'file_b' })).toBeNull();

    const objects = await benefitsByIds(harness.services.readStore, seller.organizationId, [key.id, file.id, 'ben_unknown']);
    expect(objects).toEqual([
      { id: key.id, object: 'benefit', type: 'license_key', description: 'App key', product_id: productId, properties: { prefix: 'ZINE', activation_limit: 3, expires_after_days: null, bound_to: 'perpetual' }, created: key.created_at },
      { id: file.id, object: 'benefit', type: 'file', description: 'The PDF', product_id: productId, properties: { files: ['file_a', 'file_b'] }, created: file.created_at },
    ]);
    expect(await benefitsByIds(harness.services.readStore, other.organizationId, [key.id, file.id])).toEqual([]);

    // A file taken off the benefit no longer opens through it.
    await updateBenefit(ctx, seller.organizationId, file.id, { properties: { files: ['file_a'] } });
    await harness.settle();
    expect(await activeFileGrant(harness.services.readStore, { organizationId: seller.organizationId, customerId: 'cus_a', fileId: 'file_b' })).toBeNull();
    expect((await activeFileGrant(harness.services.readStore, { organizationId: seller.organizationId, customerId: 'cus_a', fileId: 'file_a' }))?.id).toBe(g1);

    // A revoked grant is no longer active.
    await handleCommand(ctx, benefitGrantStream(g1), benefitGrantDecider, { type: 'Revoke', cause: 'refund', now: 1_700_000_100 });
    await harness.settle();
    expect(await activeFileGrant(harness.services.readStore, { organizationId: seller.organizationId, customerId: 'cus_a', fileId: 'file_a' })).toBeNull();
    expect((await activeGrantsForCustomer(harness.services.readStore, seller.organizationId, 'cus_a')).map((g) => g.id)).toEqual([g2]);
    expect((await grantsForSource(harness.services.readStore, seller.organizationId, source)).find((g) => g.id === g1)).toMatchObject({ status: 'revoked', revoked_at: 1_700_000_100, revoke_cause: 'refund' });

    // A deleted benefit still answers by id: its grants outlive it.
    await deleteBenefit(ctx, seller.organizationId, key.id);
    await harness.settle();
    expect(await benefitsByIds(harness.services.readStore, seller.organizationId, [key.id])).toHaveLength(1);
  });
});
