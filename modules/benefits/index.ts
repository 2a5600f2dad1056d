// Files, licenses, portal, receipts and the dashboard build on these: nothing here may import them at run time.
export { grantIdFor } from './grantIds.ts';
// The demo seed and imports make benefits through the command the routes run.
export { createBenefit, loadProductBenefits, type CreateBenefitInput } from './benefitCommands.ts';
export { activeFileGrant, activeGrantsForCustomer, benefitsByIds, grantsForSource, presentGrant } from './benefitQueries.ts';
export { BENEFITS, benefitProjection } from './benefitProjection.ts';
export {
  BENEFIT_GRANTS,
  benefitGrantStream,
  productBenefitsStream,
  type BenefitGrantDoc,
  type BenefitGrantedData,
  type BenefitGrantEvent,
  type BenefitType,
  type FileBenefitProperties,
  type GrantSource,
  type LicenseKeyBenefitProperties,
  type ProductBenefitsEvent,
  type RevokeCause,
} from './domain/benefitTypes.ts';
export { BenefitGrantSchema, BenefitSchema } from './http/benefitSchemas.ts';
// The benefit.granted and benefit.revoked webhooks' object.
export { benefitGrantObject } from './grantObject.ts';
// Answers of the management routes, whose types the dashboard imports (type-only).
export type { BenefitGrantObject, BenefitObject } from './http/benefitSchemas.ts';
