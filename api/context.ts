import type { FastifyRequest } from 'fastify';
import type { Actor, EventMetadata } from '../commands/eventStore.ts';
import type { CommandContext } from '../commands/handleCommand.ts';
import type { Services } from '../app/services.ts';

/** The metadata every event of this request carries: request id, actor, organization, time. */
export function commandContext(services: Services, request: FastifyRequest, organizationId?: string | null): CommandContext {
  const actor: Actor = request.auth
    ? { type: 'api_key', id: request.auth.apiKeyId, user_id: request.auth.userId }
    : { type: 'public', ip: request.ip };
  const metadata: EventMetadata = {
    correlation_id: request.id,
    actor,
    organization_id: organizationId ?? request.auth?.organizationId ?? null,
    occurred_at: Math.floor(services.clock() / 1000),
  };
  return { store: services.store, metadata };
}

/** Read-your-writes: wait until the read models include what this request appended. */
export async function afterWrite(services: Services, position: number | null): Promise<void> {
  if (position !== null && services.projections) await services.projections.waitFor(position);
}

/** Absolute base of links: BASE_URL when configured, else the request's own scheme and host. */
export function baseUrl(services: Services, request: FastifyRequest): string {
  return services.config.BASE_URL ?? `${request.protocol}://${request.host}`;
}
