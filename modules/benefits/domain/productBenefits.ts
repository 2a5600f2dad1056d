import { conflict, invalid, notFound, type Decider } from '../../../platform/domain/index.ts';
import type { BenefitData, BenefitProperties, LicenseKeyBenefitProperties, ProductBenefitsEvent } from './benefitTypes.ts';

/** A benefit as its product's stream knows it; deleted ones stay, so their grants can still be found. */
export type BenefitState = BenefitData & { deleted: boolean; updated_at: number };

/** The benefits a product's stream holds, by id, in the order they were created. */
export type ProductBenefitsState = { benefits: Record<string, BenefitState> };

export type ProductBenefitsCommand =
  | { type: 'CreateBenefit'; benefit: BenefitData }
  | { type: 'UpdateBenefit'; id: string; description?: string; properties?: BenefitProperties; now: number }
  | { type: 'DeleteBenefit'; id: string; now: number };

/** A product may carry this many benefits (the grant subscriber grants them all on each purchase). */
export const MAX_BENEFITS_PER_PRODUCT = 50;

export const isLicenseKeyProperties = (p: BenefitProperties): p is LicenseKeyBenefitProperties => !('files' in p);

/** The benefits not deleted, oldest first. */
export const liveBenefits = (state: ProductBenefitsState): BenefitState[] => Object.values(state.benefits).filter((b) => !b.deleted);

/**
 * Whether the grant of this benefit ends when a subscription stops being entitled: files do,
 * and license keys bound to the subscription; perpetual keys stay with the buyer.
 */
export const endsWithEntitlement = (benefit: Pick<BenefitData, 'type' | 'properties'>): boolean =>
  benefit.type === 'file' || (isLicenseKeyProperties(benefit.properties) && benefit.properties.bound_to === 'subscription');

function checkProperties(type: BenefitData['type'], properties: BenefitProperties): void {
  if ((type === 'file') !== !isLicenseKeyProperties(properties)) {
    throw invalid('invalid_benefit_properties', `The properties do not fit a ${type} benefit.`, 'properties');
  }
}

export const productBenefitsDecider: Decider<ProductBenefitsState, ProductBenefitsCommand, ProductBenefitsEvent> = {
  initialState: () => ({ benefits: {} }),
  evolve(state, event) {
    switch (event.type) {
      case 'BenefitCreated':
        return { benefits: { ...state.benefits, [event.data.id]: { ...event.data, deleted: false, updated_at: event.data.created_at } } };
      case 'BenefitUpdated': {
        const b = state.benefits[event.data.id];
        if (!b) return state;
        return { benefits: { ...state.benefits, [b.id]: { ...b, description: event.data.description, properties: event.data.properties, updated_at: event.data.updated_at } } };
      }
      case 'BenefitDeleted': {
        const b = state.benefits[event.data.id];
        if (!b) return state;
        return { benefits: { ...state.benefits, [b.id]: { ...b, deleted: true, updated_at: event.data.deleted_at } } };
      }
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'CreateBenefit': {
        const existing = state.benefits[command.benefit.id];
        // The same creation run again (a retried request) decides nothing.
        if (existing) return [];
        checkProperties(command.benefit.type, command.benefit.properties);
        if (liveBenefits(state).length >= MAX_BENEFITS_PER_PRODUCT) {
          throw conflict('benefit_limit_reached', `A product has at most ${MAX_BENEFITS_PER_PRODUCT} benefits.`);
        }
        return { type: 'BenefitCreated', data: command.benefit };
      }
      case 'UpdateBenefit': {
        const b = state.benefits[command.id];
        if (!b || b.deleted) throw notFound('Benefit');
        const description = command.description ?? b.description;
        const properties = command.properties ?? b.properties;
        checkProperties(b.type, properties);
        if (description === b.description && JSON.stringify(properties) === JSON.stringify(b.properties)) return [];
        return { type: 'BenefitUpdated', data: { id: b.id, description, properties, updated_at: command.now } };
      }
      case 'DeleteBenefit': {
        const b = state.benefits[command.id];
        if (!b) throw notFound('Benefit');
        if (b.deleted) return [];
        return { type: 'BenefitDeleted', data: { id: b.id, deleted_at: command.now } };
      }
    }
  },
};
