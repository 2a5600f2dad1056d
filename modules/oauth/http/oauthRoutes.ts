import type { IncomingMessage } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import type { KoaContextWithOIDC, Provider } from 'oidc-provider';
import { z } from 'zod';
import { csrfTokenMatches } from '../../identity/index.ts';
import { loadOrganization, loadUser } from '../../identity/index.ts';
import type { CommandContext } from '../../../platform/es/index.ts';
import {
  denyConsent,
  grantConsent,
  newGrantId,
  recordTokenRevoked,
  recordTokensIssued,
  revokeOAuthGrant,
} from '../oauthCommands.ts';
import { requestedScopes, splitGrantable } from '../../identity/index.ts';
import type { Actor } from '../../../platform/eventStore/index.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { baseUrl } from '../../../platform/http/index.ts';
import { HttpError } from '../../../platform/http/index.ts';
import { DEFAULT_HTML_CSP } from '../../../platform/http/index.ts';
import { crossSite, csrfTokenOf } from '../../identity/index.ts';
import { consentPagePolicy, renderConsentPage, renderMessagePage } from './consentPage.ts';
import { appOfClient, interactionPath, oauthProviders, revokedInRequest } from './oauthProvider.ts';

/** The fastify request id of each request handed to the authorization server (its correlation id). */
const requestIds = new WeakMap<IncomingMessage, string>();

/**
 * After the authorization server answers, and before the answer leaves: what it did goes on the
 * grant's stream (tokens issued, a token revoked, a grant revoked). A failure to record answers
 * 500 rather than hand out tokens the audit trail does not know.
 */
function auditTrail(services: Services) {
  return async (ctx: KoaContextWithOIDC, next: () => Promise<void>) => {
    await next();
    const oidc = ctx.oidc as KoaContextWithOIDC['oidc'] | undefined;
    if (!oidc?.route) return;
    const clientId = oidc.client?.clientId;
    const actor: Actor = clientId ? { type: 'oauth_client', id: clientId } : { type: 'public', ip: ctx.ip };
    const cmd: CommandContext = {
      store: services.store,
      metadata: {
        correlation_id: requestIds.get(ctx.req) ?? 'oauth',
        actor,
        organization_id: null,
        occurred_at: Math.floor(services.clock() / 1000),
      },
    };
    if (oidc.route === 'revocation' && ctx.status === 200) {
      const token = oidc.entities.AccessToken ?? oidc.entities.RefreshToken;
      if (token?.grantId) await recordTokenRevoked(cmd, token.grantId, token.kind === 'AccessToken' ? 'access_token' : 'refresh_token');
    }
    const revoked = revokedInRequest.get(ctx) ?? [];
    for (const grantId of revoked) {
      await revokeOAuthGrant(cmd, grantId, oidc.route === 'token' ? 'refresh_token_reused' : 'app').catch(ignoreUnknownGrant);
    }
    const body = ctx.body as Record<string, unknown> | undefined;
    if (oidc.route === 'token' && ctx.status === 200 && body && typeof body.access_token === 'string') {
      const grantId = oidc.entities.Grant?.jti;
      const grantType = oidc.params?.grant_type;
      if (grantId && (grantType === 'authorization_code' || grantType === 'refresh_token')) {
        await recordTokensIssued(cmd, grantId, {
          grantType,
          scopes: String(body.scope ?? '').split(' ').filter(Boolean),
          refreshToken: typeof body.refresh_token === 'string',
        });
      }
    }
  };
}

/** A grant made outside the consent page (none are) has no stream to record on. */
const ignoreUnknownGrant = (error: unknown) => {
  if (!(error instanceof Error && 'kind' in error && error.kind === 'not_found')) throw error;
};

/**
 * The authorization server's error answers keep RFC 6749's `error` and `error_description` and
 * gain the `message` and `code` every other answer of the service has; a path it does not know
 * answers our JSON 404 rather than Koa's plain text.
 */
async function laravelErrors(ctx: KoaContextWithOIDC, next: () => Promise<void>) {
  await next();
  if (ctx.status < 400) return;
  const body = ctx.body as unknown;
  if (body && typeof body === 'object' && !Buffer.isBuffer(body) && typeof (body as { error?: unknown }).error === 'string') {
    const { error, error_description } = body as { error: string; error_description?: string };
    ctx.body = { message: error_description ?? error, code: error, ...(body as object) };
  } else if (ctx.status === 404 && (body === undefined || body === null || typeof body === 'string')) {
    ctx.status = 404;
    ctx.body = { message: 'Not found.', code: 'not_found' };
  }
}

const FormBody = z.object({
  csrf_token: z.string().max(200),
  organization_id: z.string().max(100),
  decision: z.enum(['allow', 'deny']),
});

function html(reply: FastifyReply, status: number, body: string, policy?: string) {
  if (policy) reply.header('content-security-policy', policy);
  // Not no-referrer: under it browsers send `Origin: null` with the form, which the CSRF check
  // (rightly) refuses; same-origin still sends nothing to the app's site.
  reply.header('referrer-policy', 'same-origin');
  reply.header('cache-control', 'no-store');
  return reply.code(status).type('text/html; charset=utf-8').send(body);
}

/**
 * The authorization server (oidc-provider, a Koa app) under /oauth, its metadata at both
 * well-known addresses, and the consent page it sends people to.
 */
export const oauthRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const providerFor = oauthProviders(services);
  const audited = new WeakSet<Provider>();
  const callbacks = new WeakMap<Provider, ReturnType<Provider['callback']>>();
  const providerOf = async (request: FastifyRequest): Promise<Provider> => {
    const provider = await providerFor(baseUrl(services, request));
    if (!audited.has(provider)) {
      audited.add(provider);
      provider.use(laravelErrors);
      provider.use(auditTrail(services));
    }
    return provider;
  };

  // Handed over untouched: the authorization server reads its own bodies and writes its own answers.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
    const forward = async (request: FastifyRequest, reply: FastifyReply, url?: string) => {
      // OAuth's endpoints take form bodies (RFC 6749 §3.2, RFC 7009, RFC 7662) and nothing else.
      const type = String(request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (request.method === 'POST' && type !== 'application/x-www-form-urlencoded') {
        throw new HttpError(415, 'unsupported_media_type', 'The OAuth endpoints take application/x-www-form-urlencoded bodies.');
      }
      const provider = await providerOf(request);
      let callback = callbacks.get(provider);
      if (!callback) callbacks.set(provider, (callback = provider.callback()));
      if (url) request.raw.url = url;
      requestIds.set(request.raw, request.id);
      // A hijacked answer skips fastify's hooks: the headers every answer carries (request id,
      // nosniff) go on the raw response now, with the strict policy of HTML pages (its error pages).
      for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
      reply.raw.setHeader('content-security-policy', DEFAULT_HTML_CSP);
      reply.raw.setHeader('x-frame-options', 'DENY');
      reply.raw.setHeader('referrer-policy', 'no-referrer');
      reply.hijack();
      void callback(request.raw, reply.raw);
    };
    // The methods OAuth uses (OPTIONS: CORS preflight of browser apps at the token endpoint).
    scope.route({ method: ['GET', 'POST', 'OPTIONS'], url: '/oauth/*', schema: { hide: true }, handler: (request, reply) => forward(request, reply) });
    scope.get('/.well-known/openid-configuration', { schema: { hide: true } }, (request, reply) => forward(request, reply));
    // RFC 8414: the issuer has no path, so its metadata is here; the same document.
    scope.get('/.well-known/oauth-authorization-server', { schema: { hide: true } }, (request, reply) =>
      forward(request, reply, '/.well-known/openid-configuration'),
    );
  });

  await app.register(async (plain) => {
    const scope = plain.withTypeProvider<ZodTypeProvider>();
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4096 }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    const Params = z.object({ uid: z.string().min(1).max(100) });
    const expired = (reply: FastifyReply) =>
      html(reply, 400, renderMessagePage('This request has expired', 'Go back to the app and connect it again.'));

    /** The flow's details, if this browser started it (its signed cookie) and it is still open. */
    const detailsOf = async (request: FastifyRequest, reply: FastifyReply, uid: string) => {
      try {
        const provider = await providerOf(request);
        const details = await provider.interactionDetails(request.raw, reply.raw);
        return details.uid === uid ? { provider, details } : null;
      } catch {
        return null;
      }
    };

    scope.get('/oauth/interaction/:uid', { schema: { hide: true, params: Params } }, async (request, reply) => {
      const flow = await detailsOf(request, reply, request.params.uid);
      if (!flow) return expired(reply);
      const session = await scope.sessionOfCookie(request, reply).catch(() => null);
      if (!session) {
        // The dashboard's sign-in page comes back to `next` once signed in.
        const returnTo = interactionPath(request.params.uid);
        return reply.redirect(`/dashboard/sign-in?next=${encodeURIComponent(returnTo)}`, 303);
      }
      const clientId = String(flow.details.params.client_id ?? '');
      const oauthApp = await appOfClient(services, clientId);
      if (!oauthApp) return expired(reply);
      const organizations: Array<{ id: string; name: string }> = [];
      for (const id of session.memberships) {
        const org = await loadOrganization(services.store, id);
        if (org) organizations.push({ id: org.id, name: org.name });
      }
      if (organizations.length === 0) {
        return html(reply, 403, renderMessagePage('No organization', 'You are not a member of any organization, so there is nothing to connect.'));
      }
      organizations.sort((a, b) => a.name.localeCompare(b.name));
      // Each scope offered only where the person's role lets them grant it (their stream: now).
      const roles = (await loadUser(services.store, session.userId))?.roles ?? {};
      const offered: Array<{ scope: string; onlyIn: string[] | null }> = [];
      const refused: string[] = [];
      for (const scope of requestedScopes(String(flow.details.params.scope ?? ''))) {
        const where = organizations.filter((o) => splitGrantable(roles[o.id] ?? null, [scope]).granted.length > 0);
        if (where.length === 0) refused.push(scope);
        else offered.push({ scope, onlyIn: where.length === organizations.length ? null : where.map((o) => o.name) });
      }
      const redirectUri = String(flow.details.params.redirect_uri ?? '');
      const redirect = URL.parse(redirectUri);
      const body = renderConsentPage({
        action: interactionPath(request.params.uid),
        appName: oauthApp.name,
        clientId,
        email: session.email,
        scopes: offered,
        refused,
        organizations,
        currentOrganizationId: session.organizationId,
        csrfToken: csrfTokenOf(session),
        redirectHost: redirect?.host ?? redirectUri,
      });
      return html(reply, 200, body, consentPagePolicy(redirect ? redirect.origin : null));
    });

    scope.post('/oauth/interaction/:uid', { schema: { hide: true, params: Params, body: FormBody } }, async (request, reply) => {
      if (crossSite(services, request)) {
        return html(reply, 403, renderMessagePage('Refused', 'The request failed the CSRF check.'));
      }
      const session = await scope.sessionOfCookie(request, reply).catch(() => null);
      if (!session || !csrfTokenMatches(session.cookieValue, request.body.csrf_token)) {
        return html(reply, 403, renderMessagePage('Refused', 'The request failed the CSRF check.'));
      }
      const flow = await detailsOf(request, reply, request.params.uid);
      if (!flow) return expired(reply);
      const clientId = String(flow.details.params.client_id ?? '');
      const scopes = requestedScopes(String(flow.details.params.scope ?? ''));
      const cmd: CommandContext = {
        store: services.store,
        metadata: {
          correlation_id: request.id,
          actor: { type: 'user', id: session.userId },
          organization_id: request.body.decision === 'allow' ? request.body.organization_id : null,
          occurred_at: Math.floor(services.clock() / 1000),
        },
      };
      const { provider } = flow;
      const finish = async (result: Parameters<typeof provider.interactionResult>[2]) =>
        reply.redirect(await provider.interactionResult(request.raw, reply.raw, result, { mergeWithLastSubmission: false }), 303);
      const deny = async (description: string) => {
        await denyConsent(cmd, { clientId, userId: session.userId, scopes });
        return finish({ error: 'access_denied', error_description: description });
      };
      if (request.body.decision === 'deny') return deny('The user denied access.');
      // Another organization's id answers like one that does not exist.
      if (!session.memberships.includes(request.body.organization_id)) {
        return html(reply, 404, renderMessagePage('Organization not found', 'Choose one of your organizations.'));
      }
      // Only what the person's role in that organization allows now; the rest is refused to the
      // app (its token's `scope` tells it), never asked again: a scope neither granted nor
      // refused would send the person back to this page.
      const role = (await loadUser(services.store, session.userId))?.roles[request.body.organization_id] ?? null;
      const { granted, refused } = splitGrantable(role, scopes);
      if (scopes.length > 0 && granted.length === 0) return deny('None of the requested scopes may be granted by this person in this organization.');
      // Our own id (the grant's stream is named after it); oidc-provider keeps a given jti.
      const grant = new provider.Grant({ jti: newGrantId(), accountId: session.userId, clientId } as { accountId: string; clientId: string });
      if (granted.length > 0) grant.addOIDCScope(granted.join(' '));
      if (refused.length > 0) grant.rejectOIDCScope(refused.join(' '));
      const grantId = await grant.save();
      await grantConsent(cmd, { grantId, clientId, userId: session.userId, organizationId: request.body.organization_id, scopes: granted });
      return finish({ login: { accountId: session.userId }, consent: { grantId } });
    });
  });
};
