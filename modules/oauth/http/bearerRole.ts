import type { FastifyRequest } from 'fastify';
import { loadUser } from '../../identity/index.ts';
import { mayCallRoute } from '../../identity/index.ts';
import type { Role } from '../../identity/index.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { unauthenticated, unauthorized } from '../../../platform/http/index.ts';

/**
 * The bearer credential's person as they stand now, from their own stream, so a demotion or removal
 * counts from the next request on: not a member, 401 (the credential is dead); a route above their
 * role (domain/bearerAccess.ts), 403.
 */
export async function checkBearerRole(services: Services, request: FastifyRequest, userId: string, organizationId: string): Promise<Role> {
  const user = await loadUser(services.store, userId);
  const role = user && user.memberships.includes(organizationId) ? (user.roles[organizationId] ?? null) : null;
  if (role === null) throw unauthenticated();
  if (!mayCallRoute(role, request.method, request.routeOptions.url ?? '')) throw unauthorized();
  return role;
}
