import type { BenefitType, ProductBenefitsEvent } from '../../benefits/domain/benefitTypes.ts';

export type ExpectedBenefit = { id: string; type: BenefitType };

/**
 * The benefits a purchase made at `at` (unix seconds) should have granted: those of the product's
 * stream created by then and not deleted since. A benefit added after the sale was never part of
 * it, and a deleted one is revoked, so neither is waited for.
 */
export function expectedBenefits(events: readonly ProductBenefitsEvent[], at: number): ExpectedBenefit[] {
  const benefits = new Map<string, ExpectedBenefit & { created_at: number }>();
  for (const event of events) {
    if (event.type === 'BenefitCreated') benefits.set(event.data.id, { id: event.data.id, type: event.data.type, created_at: event.data.created_at });
    if (event.type === 'BenefitDeleted') benefits.delete(event.data.id);
  }
  return [...benefits.values()].filter((b) => b.created_at <= at).map(({ id, type }) => ({ id, type }));
}
