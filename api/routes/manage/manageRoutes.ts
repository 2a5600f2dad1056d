import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../../app/services.ts';
import { accountRoutes } from './accountRoutes.ts';
import { automationManageRoutes } from './automationManageRoutes.ts';
import { checkoutManageRoutes } from './checkoutManageRoutes.ts';
import { eventLogRoutes } from './eventLogRoutes.ts';
import { oauthAppRoutes } from './oauthAppRoutes.ts';
import { offerRoutes } from './offerRoutes.ts';
import { organizationRoutes } from './organizationRoutes.ts';
import { productRoutes } from './productRoutes.ts';

/** Everything under /manage/api: sign-in and sessions, then the organization-scoped resources. */
export const manageRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  await app.register(accountRoutes, { services });
  await app.register(productRoutes, { services });
  await app.register(organizationRoutes, { services });
  await app.register(checkoutManageRoutes, { services });
  await app.register(offerRoutes, { services });
  await app.register(eventLogRoutes, { services });
  await app.register(automationManageRoutes, { services });
  await app.register(oauthAppRoutes, { services });
};
