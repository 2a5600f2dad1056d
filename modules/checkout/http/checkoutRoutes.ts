import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../../platform/runtime/index.ts';
import { checkoutAdminRoutes } from './checkoutAdminRoutes.ts';
import { checkoutPublicRoutes } from './checkoutPublicRoutes.ts';

/** Public routes in their own context (CORS + rate limit apply there only); protected ones beside them. */
export const checkoutRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  await app.register(checkoutPublicRoutes, { services, prefix: '/api/checkout' });
  await app.register(checkoutAdminRoutes, { services });
};
