import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../../app/services.ts';
import { accountRoutes } from './accountRoutes.ts';
import { automationManageRoutes } from './automationManageRoutes.ts';
import { catalogFacetRoutes } from './catalogFacetRoutes.ts';
import { checkoutManageRoutes } from './checkoutManageRoutes.ts';
import { eventLogRoutes } from './eventLogRoutes.ts';
import { offerPreviewRoutes } from './offerPreviewRoutes.ts';
import { oauthAppRoutes } from './oauthAppRoutes.ts';
import { offerRoutes } from './offerRoutes.ts';
import { organizationRoutes } from './organizationRoutes.ts';
import { passkeyRoutes } from './passkeyRoutes.ts';
import { paymentRoutes } from './paymentRoutes.ts';
import { productRoutes } from './productRoutes.ts';
import { salesStatsRoutes } from './salesStatsRoutes.ts';
import { webhookEndpointManageRoutes } from '../webhooks/webhookEndpointRoutes.ts';

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
