import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { parseApiKey, secretMatches } from '../../commands/identity/credentials.ts';
import { API_KEYS, identityProjection, type ApiKeyDoc } from '../../projections/identity/identityProjection.ts';
import type { Services } from '../../app/services.ts';
import { unauthenticated } from '../errors.ts';

export type AuthContext = { apiKeyId: string; userId: string; organizationId: string };

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
  }
  interface FastifyInstance {
    /** preHandler of every protected route: resolves the API key or answers 401. */
    authenticate: (request: FastifyRequest) => Promise<void>;
  }
}

/** RFC 9745: the date from which `?api_token=` is deprecated (2026-01-01). */
const API_TOKEN_DEPRECATED_SINCE = '@1767225600';

function bearerToken(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer +([^\s]+) *$/i.exec(header);
    return match ? match[1]! : null;
  }
  const query = request.query as Record<string, unknown> | undefined;
  const legacy = query?.api_token;
  if (typeof legacy === 'string') {
    request.usedLegacyToken = true;
    return legacy;
  }
  return null;
}

declare module 'fastify' {
  interface FastifyRequest {
    usedLegacyToken?: boolean;
  }
}

export const authPlugin = fp(
  async (app: FastifyInstance, { services }: { services: Services }) => {
    app.decorateRequest('auth', null);
    app.addHook('onSend', async (request, reply) => {
      if (request.usedLegacyToken) reply.header('deprecation', API_TOKEN_DEPRECATED_SINCE);
    });
    // Key documents change only through the identity projection: while its checkpoint stands
    // still, a key read once is still current (a revocation moves the checkpoint and clears this).
    // The running projection's checkpoint costs nothing to read; a revocation the CLI applied from
    // another process is seen once this process's subscription meets it (its next poll, < 1 s).
    const keys = new Map<string, ApiKeyDoc | null>();
    let keysAt: number | null | undefined;
    const loadKey = async (id: string): Promise<ApiKeyDoc | null> => {
      const checkpoint = services.projections?.checkpointOf(identityProjection.name);
      if (checkpoint === undefined) return services.readStore.get<ApiKeyDoc>(API_KEYS, id);
      if (checkpoint !== keysAt) {
        keys.clear();
        keysAt = checkpoint;
      }
      const cached = keys.get(id);
      if (cached !== undefined) return cached;
      const key = await services.readStore.get<ApiKeyDoc>(API_KEYS, id);
      if (keys.size >= 10_000) keys.clear();
      keys.set(id, key);
      return key;
    };
    app.decorate('authenticate', async (request: FastifyRequest) => {
      const token = bearerToken(request);
      const parsed = token ? parseApiKey(token) : null;
      if (!parsed) throw unauthenticated();
      const key = await loadKey(parsed.id);
      // Compare even when the key is unknown, so timing does not tell which key ids exist.
      const matches = secretMatches(parsed.secret, key?.secret_hash ?? '0'.repeat(64));
      if (!key || !matches || key.revoked_at !== null) throw unauthenticated();
      request.auth = { apiKeyId: key.id, userId: key.user_id, organizationId: key.organization_id };
    });
  },
  { name: 'auth' },
);

export function requireAuth(request: FastifyRequest): AuthContext {
  if (!request.auth) throw unauthenticated();
  return request.auth;
}
