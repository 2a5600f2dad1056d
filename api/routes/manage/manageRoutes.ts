import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../../app/services.ts';
import { accountRoutes } from './accountRoutes.ts';

/** Everything under /manage/api: sign-in and sessions, then the organization-scoped resources. */
export const manageRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  await app.register(accountRoutes, { services });
};
