import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../platform/runtime/services.ts';
import { modules } from './modules.ts';

/** Everything under /manage/api: sign-in and sessions, then the organization-scoped resources. */
export const manageRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  for (const route of modules.flatMap((m) => m.manageRoutes)) await app.register(route, { services });
};
