import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { CommandContext } from '../../../platform/es/index.ts';
import { commandContext, ErrorSchema, manageContext, manageErrors, manageRoute, protectedRoute } from '../../../platform/http/index.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { requireOrganization } from '../../identity/index.ts';
import { requireAuth } from './auth.ts';

/**
 * One set of handlers served twice: to the bearer API under `/api` and to the dashboard (a session
 * cookie) under `/manage/api`. A module spreads these and adds what its routes need besides.
 */
export type RouteAccess = {
  prefix: '/api' | '/manage/api';
  bearer: boolean;
  onRequest: (app: Parameters<FastifyPluginAsyncZod>[0]) => onRequestHookHandler;
  schema: Record<string, unknown>;
  errors: Record<number, typeof ErrorSchema>;
  organizationOf(request: FastifyRequest): string;
  context(services: Services, request: FastifyRequest): CommandContext;
};

export const bearerAccess: RouteAccess = {
  prefix: '/api',
  bearer: true,
  onRequest: (app) => app.authenticate,
  schema: protectedRoute,
  errors: { 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema, 422: ErrorSchema },
  organizationOf: (request) => requireAuth(request).organizationId,
  context: commandContext,
};

export const manageAccess: RouteAccess = {
  prefix: '/manage/api',
  bearer: false,
  onRequest: (app) => app.authenticateSession,
  schema: manageRoute,
  errors: manageErrors,
  organizationOf: (request) => requireOrganization(request).organizationId,
  context: manageContext,
};
