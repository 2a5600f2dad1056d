import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../platform/runtime/services.ts';
import { modules } from './modules.ts';

/** Everything under /manage/api: sign-in and sessions, then the organization-scoped resources. */
export const manageRoutes: FastifyPluginAsync<{ services: Services }> = async (app, { services }) => {
  const routes = await Promise.all(modules.map((m) => m.manageRoutes()));
  for (const route of routes.flat()) await app.register(route, { services });
};
