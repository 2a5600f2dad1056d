import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../platform/runtime/services.ts';
import { accountRoutes } from '../modules/identity/http/accountRoutes.ts';
import { automationManageRoutes } from '../api/routes/manage/automationManageRoutes.ts';
import { catalogFacetRoutes } from '../modules/catalog/http/catalogFacetRoutes.ts';
import { checkoutManageRoutes } from '../modules/checkout/http/checkoutManageRoutes.ts';
import { eventLogRoutes } from '../modules/reporting/http/eventLogRoutes.ts';
import { offerPreviewRoutes } from '../modules/checkout/http/offerPreviewRoutes.ts';
import { oauthAppRoutes } from '../modules/oauth/http/oauthAppRoutes.ts';
import { offerRoutes } from '../modules/checkout/http/offerRoutes.ts';
import { organizationRoutes } from '../modules/identity/http/organizationRoutes.ts';
import { passkeyRoutes } from '../modules/identity/http/passkeyRoutes.ts';
import { paymentRoutes } from '../modules/payments/http/paymentRoutes.ts';
import { productRoutes } from '../modules/catalog/http/productRoutes.ts';
import { salesStatsRoutes } from '../modules/reporting/http/salesStatsRoutes.ts';
import { webhookEndpointManageRoutes } from '../api/routes/webhooks/webhookEndpointRoutes.ts';

/** Everything under /manage/api: sign-in and sessions, then the organization-scoped resources. */
export const manageRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  await app.register(accountRoutes, { services });
  await app.register(productRoutes, { services });
  await app.register(catalogFacetRoutes, { services });
  await app.register(organizationRoutes, { services });
  await app.register(checkoutManageRoutes, { services });
  await app.register(offerPreviewRoutes, { services });
  await app.register(offerRoutes, { services });
  await app.register(eventLogRoutes, { services });
  await app.register(automationManageRoutes, { services });
  await app.register(salesStatsRoutes, { services });
  await app.register(passkeyRoutes, { services });
  await app.register(paymentRoutes, { services });
  await app.register(webhookEndpointManageRoutes, { services });
  await app.register(oauthAppRoutes, { services });
};
