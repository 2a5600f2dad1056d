import { expect, it } from 'vitest';
import type { ProductBenefitsEvent } from '../../modules/benefits/index.ts';
import { expectedBenefits } from '../../modules/delivery/domain/expectedBenefits.ts';

const created = (id: string, type: 'file' | 'license_key', at: number): ProductBenefitsEvent => ({
  type: 'BenefitCreated',
  data: { id, organization_id: 'org_1', product_id: 'p1', type, description: id, properties: type === 'file' ? { files: [] } : { prefix: null, activation_limit: null, expires_after_days: null, bound_to: 'perpetual' }, created_at: at },
});

it('waits for the benefits the product had at the payment: not those added after, nor deleted ones', () => {
  const events: ProductBenefitsEvent[] = [
    created('ben_a', 'file', 100),
    created('ben_b', 'license_key', 150),
    { type: 'BenefitUpdated', data: { id: 'ben_a', description: 'A', properties: { files: ['file_1'] }, updated_at: 160 } },
    created('ben_c', 'file', 300),
    created('ben_d', 'file', 120),
    { type: 'BenefitDeleted', data: { id: 'ben_d', deleted_at: 180 } },
  ];
  expect(expectedBenefits(events, 200)).toEqual([
    { id: 'ben_a', type: 'file' },
    { id: 'ben_b', type: 'license_key' },
  ]);
  expect(expectedBenefits(events, 99)).toEqual([]);
});
