import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../platform/runtime/services.ts';
import { accountRoutes } from '../api/routes/manage/accountRoutes.ts';
import { automationManageRoutes } from '../api/routes/manage/automationManageRoutes.ts';
import { catalogFacetRoutes } from '../api/routes/manage/catalogFacetRoutes.ts';
import { checkoutManageRoutes } from '../api/routes/manage/checkoutManageRoutes.ts';
import { eventLogRoutes } from '../api/routes/manage/eventLogRoutes.ts';
import { offerPreviewRoutes } from '../api/routes/manage/offerPreviewRoutes.ts';
import { oauthAppRoutes } from '../api/routes/manage/oauthAppRoutes.ts';
import { offerRoutes } from '../api/routes/manage/offerRoutes.ts';
import { organizationRoutes } from '../api/routes/manage/organizationRoutes.ts';
import { passkeyRoutes } from '../api/routes/manage/passkeyRoutes.ts';
import { paymentRoutes } from '../api/routes/manage/paymentRoutes.ts';
import { productRoutes } from '../api/routes/manage/productRoutes.ts';
import { salesStatsRoutes } from '../api/routes/manage/salesStatsRoutes.ts';
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
