import { fold } from '../../../platform/domain/index.ts';
import type { BenefitType, ProductBenefitsEvent } from '../../benefits/domain/benefitTypes.ts';
import { liveBenefits, productBenefitsDecider } from '../../benefits/domain/productBenefits.ts';

export type ExpectedBenefit = { id: string; type: BenefitType };

/**
 * The benefits a purchase made at `at` (unix seconds) should have granted: those of the product's
 * stream created by then and not deleted since. A benefit added after the sale was never part of
 * it, and a deleted one is revoked, so neither is waited for.
 */
export function expectedBenefits(events: readonly ProductBenefitsEvent[], at: number): ExpectedBenefit[] {
  return liveBenefits(fold(productBenefitsDecider, events)).filter((b) => b.created_at <= at).map(({ id, type }) => ({ id, type }));
}
