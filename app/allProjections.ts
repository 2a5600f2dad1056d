import { automationProjection } from '../projections/automation/automationProjection.ts';
import { catalogFacetsProjection } from '../projections/catalog/catalogFacetsProjection.ts';
import { catalogProjection } from '../projections/catalog/catalogProjection.ts';
import { checkoutProjection } from '../projections/checkout/checkoutProjection.ts';
import { eventLogProjection } from '../projections/eventLog/eventLogProjection.ts';
import { identityProjection } from '../projections/identity/identityProjection.ts';
import { oauthProjection } from '../projections/oauth/oauthProjection.ts';
import type { Projection } from '../platform/es/projection.ts';
import { promoProjection } from '../projections/promos/promoProjection.ts';
import { receiptProjection } from '../projections/receipts/receiptProjection.ts';
import { salesStatsProjection } from '../projections/salesStats/salesStatsProjection.ts';
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
