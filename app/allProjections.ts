import { automationProjection } from '../projections/automation/automationProjection.ts';
import { catalogFacetsProjection } from '../modules/catalog/catalogFacetsProjection.ts';
import { catalogProjection } from '../modules/catalog/catalogProjection.ts';
import { checkoutProjection } from '../modules/checkout/checkoutProjection.ts';
import { eventLogProjection } from '../modules/reporting/eventLogProjection.ts';
import { identityProjection } from '../modules/identity/identityProjection.ts';
import { oauthProjection } from '../modules/oauth/oauthProjection.ts';
import type { Projection } from '../platform/es/projection.ts';
import { promoProjection } from '../modules/promos/promoProjection.ts';
import { receiptProjection } from '../modules/receipts/receiptProjection.ts';
import { salesStatsProjection } from '../modules/reporting/salesStatsProjection.ts';
import { webhookProjection } from '../projections/webhooks/webhookProjection.ts';

/** Every read model, in the order a rebuild runs them. */
export const allProjections: readonly Projection[] = [
  identityProjection,
  catalogProjection,
  catalogFacetsProjection,
  automationProjection,
  promoProjection,
  checkoutProjection,
  webhookProjection,
  receiptProjection,
  eventLogProjection,
  salesStatsProjection,
  oauthProjection,
];
