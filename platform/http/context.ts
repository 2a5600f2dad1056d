import type { FastifyRequest } from 'fastify';
import type { Actor, EventMetadata } from '../eventStore/eventStore.ts';
import type { CommandContext } from '../es/handleCommand.ts';
import type { Services } from '../runtime/services.ts';

/** The metadata every event of this request carries: request id, actor, organization, time. */
export function commandContext(services: Services, request: FastifyRequest, organizationId?: string | null): CommandContext {
  const auth = request.auth;
  const actor: Actor = auth?.oauth
    ? { type: 'oauth_app', id: auth.oauth.clientId, user_id: auth.userId, grant_id: auth.oauth.grantId }
    : auth?.apiKeyId
      ? { type: 'api_key', id: auth.apiKeyId, user_id: auth.userId }
      : { type: 'public', ip: request.ip };
  const metadata: EventMetadata = {
    correlation_id: request.id,
    actor,
    organization_id: organizationId ?? request.auth?.organizationId ?? null,
    occurred_at: Math.floor(services.clock() / 1000),
  };
  return { store: services.store, metadata };
}

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
/** A DNS name or IPv4 address, or a bracketed IPv6 address, with an optional port. */
const PLAUSIBLE_HOST = new RegExp(`^(?:${LABEL}(?:\\.${LABEL})*|\\[[0-9A-Fa-f:.]{2,45}\\])(?::\\d{1,5})?$`);

/**
 * Absolute base of links: BASE_URL when configured, else the request's own scheme and host. The
 * Host header is the caller's to choose: one that is not a plausible host (spaces, slashes, `@`,
 * quotes, a missing one) is replaced by the address the server listens on, so a link can never
 * point at a path or a userinfo trick of the caller's making.
 */
export function baseUrl(services: Services, request: FastifyRequest): string {
  if (services.config.BASE_URL) return services.config.BASE_URL;
  const host = request.host;
  if (typeof host === 'string' && host.length <= 260 && PLAUSIBLE_HOST.test(host)) {
    return `${request.protocol}://${host.toLowerCase()}`;
  }
  const configured = services.config.HOST;
  const listening = configured === '0.0.0.0' || configured === '::' ? '127.0.0.1' : configured;
  const port = request.socket.localPort ?? services.config.PORT;
  return `${request.protocol}://${listening.includes(':') ? `[${listening}]` : listening}:${port}`;
}
