import { automationProjection } from './automation/automationProjection.ts';
import { catalogFacetsProjection } from './catalog/catalogFacetsProjection.ts';
import { catalogProjection } from './catalog/catalogProjection.ts';
import { checkoutProjection } from './checkout/checkoutProjection.ts';
import { eventLogProjection } from './eventLog/eventLogProjection.ts';
import { identityProjection } from './identity/identityProjection.ts';
import { oauthProjection } from './oauth/oauthProjection.ts';
import type { Projection } from './projection.ts';
import { promoProjection } from './promos/promoProjection.ts';
import { receiptProjection } from './receipts/receiptProjection.ts';
import { salesStatsProjection } from './salesStats/salesStatsProjection.ts';
import { webhookProjection } from './webhooks/webhookProjection.ts';

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
