import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { loadSession, loadUser, SESSION_TOUCH_EVERY_SECONDS, touchSession } from '../accountCommands.ts';
import { csrfTokenFor, csrfTokenMatches, parseSessionCookie, secretHashMatches } from '../accountSecrets.ts';
import type { Role } from '../domain/user.ts';
import { sessionLive } from '../domain/userSession.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { baseUrl } from '../../../platform/http/index.ts';
import { HttpError, unauthenticated, unauthorized } from '../../../platform/http/index.ts';

export const SESSION_COOKIE = 'commerce_session';
export const CSRF_HEADER = 'x-csrf-token';

export type SessionContext = {
  sessionId: string;
  userId: string;
  email: string;
  /** The organization the user works in now, and their role there (null when in none). */
  organizationId: string | null;
  role: Role | null;
  memberships: string[];
  cookieValue: string;
};

declare module 'fastify' {
  interface FastifyRequest {
    userSession: SessionContext | null;
  }
  interface FastifyInstance {
    /** onRequest hook of the management routes: the session cookie, and on writes the CSRF check. */
    authenticateSession: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    /** authenticateSession, then 403 unless the person owns the organization they work in. */
    authenticateOwner: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
    /**
     * The session of the cookie, without the CSRF check: for server-rendered pages whose forms
     * carry the CSRF token in their body (the OAuth consent page checks it itself).
     */
    sessionOfCookie: (request: FastifyRequest, reply: FastifyReply) => Promise<SessionContext>;
    /** onRequest hook of the routes that start a session: refuses a cross-site form (login CSRF). */
    sameOriginOnly: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The value of the request's cookie `name`, or null. */
export function cookieValue(request: FastifyRequest, name: string): string | null {
  const header = request.headers.cookie;
  if (typeof header !== 'string') return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

export const sessionCookieValue = (request: FastifyRequest) => cookieValue(request, SESSION_COOKIE);

/** HttpOnly (scripts never read it), SameSite=Lax (no cross-site POST carries it), Secure over https. */
export function setSessionCookie(request: FastifyRequest, reply: FastifyReply, value: string, maxAgeSeconds: number): void {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  reply.header('set-cookie', `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure}`);
}

export function clearSessionCookie(request: FastifyRequest, reply: FastifyReply): void {
  setSessionCookie(request, reply, '', 0);
}

const csrfRefused = () => new HttpError(403, 'csrf_failed', 'The request failed the CSRF check.');

/**
 * Fetch metadata first (a browser says where the request comes from, and a page cannot forge it),
 * then Origin against our own; either may be absent from non-browser clients, which the token
 * still covers.
 */
export function crossSite(services: Services, request: FastifyRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') return true;
  const origin = request.headers.origin;
  if (origin !== undefined && origin !== new URL(baseUrl(services, request)).origin) return true;
  return false;
}

export const sessionAuthPlugin = fp(
  async (app: FastifyInstance, { services }: { services: Services }) => {
    app.decorateRequest('userSession', null);
    const nowSeconds = () => Math.floor(services.clock() / 1000);

    app.decorate('sameOriginOnly', async (request: FastifyRequest) => {
      if (crossSite(services, request)) throw csrfRefused();
    });

    const sessionOfCookie = async (request: FastifyRequest, reply: FastifyReply, checkCsrfHeader: boolean): Promise<SessionContext> => {
      const cookie = sessionCookieValue(request);
      const parsed = cookie ? parseSessionCookie(cookie) : null;
      if (!cookie || !parsed) throw unauthenticated();
      // The session's own stream, not a read model: a revocation or sign-out counts at once.
      const session = await loadSession(services.store, parsed.sessionId);
      const now = nowSeconds();
      if (session.status === 'none' || !secretHashMatches(parsed.secret, session.secretHash) || !sessionLive(session, now)) {
        clearSessionCookie(request, reply);
        throw unauthenticated();
      }
      if (checkCsrfHeader && !SAFE_METHODS.has(request.method)) {
        const token = request.headers[CSRF_HEADER];
        if (crossSite(services, request) || typeof token !== 'string' || !csrfTokenMatches(cookie, token)) throw csrfRefused();
      }
      const user = await loadUser(services.store, session.userId);
      if (!user) throw unauthenticated();
      if (now - session.lastSeenAt >= SESSION_TOUCH_EVERY_SECONDS) {
        await touchSession(
          { store: services.store, metadata: { correlation_id: request.id, actor: { type: 'user', id: user.id }, organization_id: null, occurred_at: now } },
          session.id,
        );
      }
      const organizationId = user.currentOrganizationId;
      return {
        sessionId: session.id,
        userId: user.id,
        email: user.email,
        organizationId,
        role: organizationId ? (user.roles[organizationId] ?? null) : null,
        memberships: user.memberships,
        cookieValue: cookie,
      };
    };

    app.decorate('authenticateSession', async (request: FastifyRequest, reply: FastifyReply) => {
      request.userSession = await sessionOfCookie(request, reply, true);
    });
    // Before the body is validated: a member learns nothing of what only owners may send.
    app.decorate('authenticateOwner', async (request: FastifyRequest, reply: FastifyReply) => {
      request.userSession = await sessionOfCookie(request, reply, true);
      requireOwner(request);
    });
    app.decorate('sessionOfCookie', async (request: FastifyRequest, reply: FastifyReply) => {
      request.userSession = await sessionOfCookie(request, reply, false);
      return request.userSession;
    });
  },
  { name: 'session-auth' },
);

export function requireSession(request: FastifyRequest): SessionContext {
  if (!request.userSession) throw unauthenticated();
  return request.userSession;
}

/** The session and the organization it works in; a user in no organization may do nothing here. */
export function requireOrganization(request: FastifyRequest): SessionContext & { organizationId: string; role: Role } {
  const session = requireSession(request);
  if (!session.organizationId || !session.role) throw unauthorized();
  return session as SessionContext & { organizationId: string; role: Role };
}

export function requireOwner(request: FastifyRequest): SessionContext & { organizationId: string; role: Role } {
  const session = requireOrganization(request);
  if (session.role !== 'owner') throw unauthorized();
  return session;
}

export const csrfTokenOf = (session: SessionContext) => csrfTokenFor(session.cookieValue);
