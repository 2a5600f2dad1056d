// The buyer's view of what a purchase delivered: the receipt (page and email) and the portal use these.
export { deliverGrants, purchaseBenefits, type DeliveredBenefit, type DeliveredFile, type DeliveredKey, type PurchaseBenefits } from './purchaseBenefits.ts';
export { BENEFITS_STYLE, benefitsSection, keyStanding } from './renderBenefits.ts';
export { PurchaseBenefitsSchema } from './http/deliverySchemas.ts';
