import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { timingSafeEqual } from 'node:crypto';
import { hashBytes, parseApiKey, secretMatches } from '../../identity/index.ts';
import { API_KEY_USE_EVERY_SECONDS, recordApiKeyUse } from '../../identity/index.ts';
import { API_KEYS, identityProjection, type ApiKeyDoc } from '../../identity/index.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { unauthenticated } from '../../../platform/http/index.ts';
import { checkBearerRole } from './bearerRole.ts';
import { readModelsAtHead } from '../../../platform/http/index.ts';
import { oauthBearer } from './oauthBearer.ts';

/**
 * Who calls: an API key (what its creator's role allows now), or an app's OAuth access token
 * (`oauth` set; the routes its scopes name, within its granting person's role now). Either way a
 * user acting in one organization.
 */
export type AuthContext = {
  apiKeyId: string | null;
  oauth: { clientId: string; grantId: string; scopes: string[] } | null;
  userId: string;
  organizationId: string;
};

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
  }
  interface FastifyInstance {
    /**
     * The onRequest hook of every protected route: resolves the API key or answers 401. onRequest
     * runs before the query, path and body are parsed and validated, so a caller without a key
     * learns nothing of a route's parameter rules (a preHandler would answer their 422 first).
     */
    authenticate: (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => void;
  }
}

/** RFC 9745: the date from which `?api_token=` is deprecated (2026-01-01). */
const API_TOKEN_DEPRECATED_SINCE = '@1767225600';

/**
 * The token of the Authorization header, else of the legacy `?api_token=`. A legacy token marks the
 * answer with its Deprecation header here, where it is read, rather than in an onSend hook that every
 * response of every route would run; fastify keeps the header on an error answer too.
 */
function bearerToken(request: FastifyRequest, reply: FastifyReply): string | null {
  const header = request.headers.authorization;
  if (header !== undefined) {
    const match = /^Bearer +([^\s]+) *$/i.exec(header);
    return match ? match[1]! : null;
  }
  const query = request.query as Record<string, unknown> | undefined;
  const legacy = query?.api_token;
  if (typeof legacy === 'string') {
    reply.header('deprecation', API_TOKEN_DEPRECATED_SINCE);
    return legacy;
  }
  return null;
}

type HookDone = (error?: Error) => void;

/**
 * A key document as the cache keeps it: its hash as bytes, decoded once, and the secret last
 * seen to match it (memory only, dropped with the cache), so a client's repeated requests cost
 * a constant-time compare instead of a hash each.
 */
type KnownKey = { doc: ApiKeyDoc; hash: Buffer; verified: Buffer | null } | null;

/**
 * Compared against when the key id is unknown, so an unknown id costs what a wrong secret does.
 * (A key id is not a secret: it is the public half of the token; the secret is what is checked.)
 */
const NO_HASH = Buffer.alloc(32);

export const authPlugin = fp(
  async (app: FastifyInstance, { services }: { services: Services }) => {
    app.decorateRequest('auth', null);
    // Key documents change only through the identity projection: while its checkpoint stands
    // still, a key read once is still current (a revocation moves the checkpoint and clears this).
    // The running projection's checkpoint costs nothing to read; a revocation the CLI applied from
    // another process is seen once this process's subscription meets it (its next poll, < 1 s).
    const keys = new Map<string, KnownKey>();
    let keysAt: number | null | undefined;
    /** The key if this process knows it is current, else undefined (then loadKey asks the store). */
    const cachedKey = (id: string): KnownKey | undefined => {
      const checkpoint = services.projections?.checkpointOf(identityProjection.name);
      if (checkpoint === undefined) return undefined;
      if (checkpoint !== keysAt) {
        keys.clear();
        keysAt = checkpoint;
      }
      return keys.get(id);
    };
    const loadKey = async (id: string): Promise<KnownKey> => {
      const checkpoint = services.projections?.checkpointOf(identityProjection.name);
      const doc = await services.readStore.get<ApiKeyDoc>(API_KEYS, id);
      const key = doc ? { doc, hash: hashBytes(doc.secret_hash), verified: null } : null;
      // Cached only when read at the checkpoint cachedKey will compare with.
      if (checkpoint !== undefined && checkpoint === services.projections?.checkpointOf(identityProjection.name)) {
        if (checkpoint !== keysAt) keys.clear();
        keysAt = checkpoint;
        if (keys.size >= 10_000) keys.clear();
        keys.set(id, key);
      }
      return key;
    };
    // Checked on every request, cached key or not: expiry is a time, not an event that moves the
    // checkpoint. A document written before keys could expire has no expires_at: it never expires.
    const expired = (doc: ApiKeyDoc): boolean => {
      const at = doc.expires_at ?? null;
      return at !== null && at * 1000 <= services.clock();
    };
    // Keys whose use this process recorded (or began recording), and when: the read model shows
    // a recorded use only once the projection applies it, and until then this keeps each request
    // from recording it again. The decider makes the limit hold across processes.
    const usesNoted = new Map<string, number>();
    const noteUse = (request: FastifyRequest, doc: ApiKeyDoc) => {
      const now = Math.floor(services.clock() / 1000);
      const last = Math.max(doc.last_used_at ?? -Infinity, usesNoted.get(doc.id) ?? -Infinity);
      if (now - last < API_KEY_USE_EVERY_SECONDS) return;
      if (usesNoted.size >= 10_000) usesNoted.clear();
      usesNoted.set(doc.id, now);
      // Not awaited: the request does not wait for a bookkeeping append, nor fails with it.
      const metadata = { correlation_id: request.id, actor: { type: 'api_key' as const, id: doc.id, user_id: doc.user_id }, organization_id: doc.organization_id, occurred_at: now };
      recordApiKeyUse({ store: services.store, metadata }, doc.id).catch((error: unknown) => {
        usesNoted.delete(doc.id);
        request.log.warn({ err: error, api_key: doc.id }, 'recording an API key use failed');
      });
    };
    const admit = (request: FastifyRequest, secret: string, key: KnownKey, done: HookDone): void => {
      const given = Buffer.from(secret);
      const seen = key?.verified;
      const matches = seen && seen.length === given.length ? timingSafeEqual(seen, given) : secretMatches(secret, key?.hash ?? NO_HASH);
      if (!key || !matches || key.doc.revoked_at !== null || expired(key.doc)) return done(unauthenticated());
      key.verified = given;
      const { doc } = key;
      // The key acts with its creator's rights as they are now (GitHub's rule for organization
      // tokens): narrowed by a demotion, dead once they leave, before its revocation is recorded.
      checkBearerRole(services, request, doc.user_id, doc.organization_id).then(
        () => {
          noteUse(request, doc);
          request.auth = { apiKeyId: doc.id, oauth: null, userId: doc.user_id, organizationId: doc.organization_id };
          done();
        },
        (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
      );
    };
    app.decorate('authenticate', (request: FastifyRequest, reply: FastifyReply, done: HookDone) => {
      const token = bearerToken(request, reply);
      if (!token) return done(unauthenticated());
      const parsed = parseApiKey(token);
      if (!parsed) {
        // Not an API key's shape: an OAuth access token, or nothing we issued.
        oauthBearer(services, request, reply, token).then(
          () => done(),
          (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
        );
        return;
      }
      const known = cachedKey(parsed.id);
      if (known) return admit(request, parsed.secret, known, done);
      // An unknown id may be a key made a moment ago: once the identity projection has applied
      // the log up to its head (bounded), look again before answering 401.
      const unknownAtHead = async (key: KnownKey) => (key === null && (await readModelsAtHead(services)) ? loadKey(parsed.id) : key);
      (known === null ? unknownAtHead(null) : loadKey(parsed.id).then(unknownAtHead)).then(
        (key) => admit(request, parsed.secret, key, done),
        (error: unknown) => done(error instanceof Error ? error : new Error(String(error))),
      );
    });
  },
  { name: 'auth' },
);

export function requireAuth(request: FastifyRequest): AuthContext {
  if (!request.auth) throw unauthenticated();
  return request.auth;
}
