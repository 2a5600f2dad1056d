import { describe, expect, it } from 'vitest';
import { benefitGrantDecider, type BenefitGrantState } from '../../modules/benefits/domain/benefitGrant.ts';
import type { BenefitData, BenefitGrantedData, BenefitGrantEvent } from '../../modules/benefits/domain/benefitTypes.ts';
import { endsWithEntitlement, MAX_BENEFITS_PER_PRODUCT, productBenefitsDecider, type ProductBenefitsState } from '../../modules/benefits/domain/productBenefits.ts';
import { asArray, DomainError, fold } from '../../platform/domain/index.ts';

const benefit = (id: string, over: Partial<BenefitData> = {}): BenefitData => ({
  id,
  organization_id: 'org',
  product_id: 'p1',
  type: 'file',
  description: 'PDF',
  properties: { files: ['file_a'] },
  created_at: 1,
  ...over,
});
const key = (bound_to: 'subscription' | 'perpetual') => ({ prefix: null, activation_limit: null, expires_after_days: null, bound_to });

const grant: BenefitGrantedData = {
  grant_id: 'bgr_1',
  organization_id: 'org',
  mode: 'test',
  benefit_id: 'ben_1',
  benefit_type: 'file',
  product_id: 'p1',
  customer_id: 'cus_1',
  source: { type: 'subscription', id: 'sub_1' },
  cause: 'subscription.entitled',
  invoice_id: null,
  granted_at: 10,
};
const after = (events: BenefitGrantEvent[]): BenefitGrantState => fold(benefitGrantDecider, events);
const granted: BenefitGrantEvent = { type: 'BenefitGranted', data: grant };
const revoked = (cause: 'refund' | 'subscription.not_entitled' | 'benefit.deleted'): BenefitGrantEvent => ({ type: 'BenefitRevoked', data: { grant_id: 'bgr_1', cause, revoked_at: 20 } });

describe('the product benefits decider', () => {
  const decide = (state: ProductBenefitsState, command: Parameters<typeof productBenefitsDecider.decide>[0]) => asArray(productBenefitsDecider.decide(command, state));

  it('refuses properties that do not fit the type, on creation and on update', () => {
    expect(() => decide({ benefits: {} }, { type: 'CreateBenefit', benefit: benefit('ben_1', { properties: key('perpetual') }) })).toThrow(DomainError);
    const state = fold(productBenefitsDecider, [{ type: 'BenefitCreated', data: benefit('ben_1') }]);
    expect(() => decide(state, { type: 'UpdateBenefit', id: 'ben_1', properties: key('perpetual'), now: 2 })).toThrow(/do not fit a file benefit/);
    expect(decide(state, { type: 'UpdateBenefit', id: 'ben_1', description: 'PDF', now: 2 })).toEqual([]);
  });

  it('creates once per id, deletes once, and keeps a product under its limit', () => {
    const one = fold(productBenefitsDecider, [{ type: 'BenefitCreated', data: benefit('ben_1') }]);
    expect(decide(one, { type: 'CreateBenefit', benefit: benefit('ben_1') })).toEqual([]);
    const deleted = fold(productBenefitsDecider, [{ type: 'BenefitCreated', data: benefit('ben_1') }, { type: 'BenefitDeleted', data: { id: 'ben_1', deleted_at: 3 } }]);
    expect(decide(deleted, { type: 'DeleteBenefit', id: 'ben_1', now: 4 })).toEqual([]);
    expect(() => decide(deleted, { type: 'UpdateBenefit', id: 'ben_1', description: 'x', now: 4 })).toThrow(/not found/);
    const full = fold(
      productBenefitsDecider,
      Array.from({ length: MAX_BENEFITS_PER_PRODUCT }, (_, i) => ({ type: 'BenefitCreated' as const, data: benefit(`ben_${i}`) })),
    );
    expect(() => decide(full, { type: 'CreateBenefit', benefit: benefit('ben_new') })).toThrow(/at most/);
  });

  it('ends files and subscription-bound keys with the entitlement, not perpetual keys', () => {
    expect(endsWithEntitlement(benefit('b'))).toBe(true);
    expect(endsWithEntitlement(benefit('b', { type: 'license_key', properties: key('subscription') }))).toBe(true);
    expect(endsWithEntitlement(benefit('b', { type: 'license_key', properties: key('perpetual') }))).toBe(false);
  });
});

describe('the grant decider', () => {
  const decide = (state: BenefitGrantState, command: Parameters<typeof benefitGrantDecider.decide>[0]) => asArray(benefitGrantDecider.decide(command, state));

  it('grants once, and revokes only what is granted', () => {
    expect(decide(after([]), { type: 'Grant', grant, regrant: false })).toEqual([granted]);
    expect(decide(after([granted]), { type: 'Grant', grant, regrant: true })).toEqual([]);
    expect(decide(after([]), { type: 'Revoke', cause: 'refund', now: 5 })).toEqual([]);
    expect(decide(after([granted, revoked('refund')]), { type: 'Revoke', cause: 'refund', now: 5 })).toEqual([]);
  });

  it("grants again a subscription's revoked grant, never a purchase's, nor a deleted benefit's", () => {
    const lost = after([granted, revoked('subscription.not_entitled')]);
    expect(decide(lost, { type: 'Grant', grant, regrant: true })).toEqual([granted]);
    expect(decide(lost, { type: 'Grant', grant, regrant: false })).toEqual([]);
    expect(decide(after([granted, revoked('benefit.deleted')]), { type: 'Grant', grant, regrant: true })).toEqual([]);
  });
});
