import type { FastifyRequest } from 'fastify';
import type { Services } from '../../runtime/services.ts';
import type { CommandContext } from '../../es/handleCommand.ts';

/**
 * Event metadata of a management request: the signed-in person as actor, their current
 * organization. Before sign-in (sign-in, invitations) the actor is public, with the address.
 */
export function manageContext(services: Services, request: FastifyRequest): CommandContext {
  const session = request.userSession;
  return {
    store: services.store,
    metadata: {
      correlation_id: request.id,
      actor: session ? { type: 'user', id: session.userId } : { type: 'public', ip: request.ip },
      organization_id: session?.organizationId ?? null,
      occurred_at: Math.floor(services.clock() / 1000),
    },
  };
}
