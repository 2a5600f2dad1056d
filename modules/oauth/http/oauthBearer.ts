import type { FastifyReply, FastifyRequest } from 'fastify';
import { loadOAuthApp, loadOAuthGrant } from '../oauthCommands.ts';
import { findAccessToken } from './oidcStorage.ts';
import { scopeForRoute } from '../domain/oauthScopes.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { HttpError, unauthenticated } from '../../../platform/http/index.ts';
import { checkBearerRole } from './bearerRole.ts';

/** Opaque access tokens as oidc-provider mints them: base64url, 43 characters. */
const ACCESS_TOKEN_SHAPE = /^[A-Za-z0-9_-]{20,200}$/;

/**
 * An OAuth access token: found by its hash, alive, its grant still granted and its app not deleted
 * (their streams: a revocation counts at once), its user's role allowing the route now (else 401 or
 * 403), and the route one its scopes name (else 403 insufficient_scope, RFC 6750, with the scope).
 */
export async function oauthBearer(services: Services, request: FastifyRequest, reply: FastifyReply, token: string): Promise<void> {
  if (!ACCESS_TOKEN_SHAPE.test(token)) throw unauthenticated();
  const found = await findAccessToken(services.readStore, token, services.clock());
  if (!found) throw unauthenticated();
  const [grant, app] = await Promise.all([loadOAuthGrant(services.store, found.grantId), loadOAuthApp(services.store, found.clientId)]);
  if (grant.status !== 'granted' || grant.clientId !== found.clientId || grant.userId !== found.accountId) throw unauthenticated();
  if (app.status !== 'active') throw unauthenticated();
  // Never beyond what the granting person may do now, whatever the scopes say (a member's grant
  // of an owner's scope, an owner's grant after their demotion).
  await checkBearerRole(services, request, found.accountId, grant.organizationId);
  const needed = scopeForRoute(request.method, request.routeOptions.url ?? '');
  if (needed === null || !found.scopes.includes(needed) || !grant.scopes.includes(needed)) {
    reply.header(
      'www-authenticate',
      `Bearer error="insufficient_scope", error_description="The access token does not grant this route."${needed ? `, scope="${needed}"` : ''}`,
    );
    throw new HttpError(403, 'insufficient_scope', 'This action is unauthorized.');
  }
  request.auth = {
    apiKeyId: null,
    oauth: { clientId: found.clientId, grantId: found.grantId, scopes: found.scopes },
    userId: found.accountId,
    organizationId: grant.organizationId,
  };
}
