import { createECDH, createHmac, hash, timingSafeEqual } from 'node:crypto';
import type { Configuration, KoaContextWithOIDC, Provider } from 'oidc-provider';
import { loadOAuthApp } from '../oauthCommands.ts';
import { oidcAdapterClass } from './oidcStorage.ts';
import { OAUTH_SCOPES } from '../domain/oauthScopes.ts';
import { USERS, type UserDoc } from '../../identity/index.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { escapeHtml } from './consentPage.ts';

/** Where the authorization server's endpoints live (the issuer is the service's origin). */
export const OAUTH_ROUTES = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  revocation: '/oauth/revoke',
  introspection: '/oauth/introspect',
  jwks: '/oauth/jwks',
  userinfo: '/oauth/userinfo',
  end_session: '/oauth/session/end',
  pushed_authorization_request: '/oauth/par',
} as const;

export const interactionPath = (uid: string) => `/oauth/interaction/${encodeURIComponent(uid)}`;

export const ACCESS_TOKEN_TTL_SECONDS = 3600;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 3600;
export const AUTHORIZATION_CODE_TTL_SECONDS = 60;

const MAX_ISSUERS = 8;

/** What the hooks of the flow tell the audit trail: grants revoked in this request. */
export const revokedInRequest = new WeakMap<object, string[]>();

/**
 * One authorization server per issuer (BASE_URL, else each origin the service is reached at), on
 * oidc-provider: authorization code with PKCE (S256, required of every client), refresh tokens
 * rotated on every use (a reused one revokes the grant), revocation, introspection, RFC 8414
 * metadata. The flow's records go through the read-store adapter, hashed.
 */
/**
 * The signing key of ID tokens (only an app asking for `openid` gets one): derived from the
 * service's secret, so every API process publishes and signs with the same key. A P-256 private
 * scalar from HMAC output (below the group order with overwhelming probability; rejected if not).
 */
function signingJwks(secret: Uint8Array) {
  const d = createHmac('sha256', secret).update('oauth id-token signing key').digest();
  const ecdh = createECDH('prime256v1');
  ecdh.setPrivateKey(d);
  const pub = ecdh.getPublicKey();
  const b64 = (b: Buffer) => b.toString('base64url');
  return { keys: [{ kty: 'EC', crv: 'P-256', d: b64(d), x: b64(pub.subarray(1, 33)), y: b64(pub.subarray(33, 65)), use: 'sig', alg: 'ES256' }] };
}

export function oauthProviders(services: Services): (issuer: string) => Promise<Provider> {
  const providers = new Map<string, Provider>();
  const Adapter = oidcAdapterClass(services.readStore, services.store, services.clock);
  const cookieKey = createHmac('sha256', services.secrets.jwt).update('oauth cookies').digest('base64url');

  const configuration = (): Configuration => ({
    adapter: Adapter,
    clients: [],
    jwks: signingJwks(services.secrets.jwt),
    clientDefaults: { grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], id_token_signed_response_alg: 'ES256' },
    routes: OAUTH_ROUTES,
    scopes: Object.keys(OAUTH_SCOPES),
    responseTypes: ['code'],
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      revocation: { enabled: true },
      introspection: { enabled: true },
      // A DPoP-bound token must not pass the bearer check as a plain bearer: not offered.
      dPoP: { enabled: false },
      userinfo: { enabled: false },
    },
    // Every authorization asks the person again (which organization is part of the answer): only
    // the grant just given on the consent page counts, never one remembered in the session.
    async loadExistingGrant(ctx) {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    rotateRefreshToken: () => true,
    // Revoking either token ends the grant (RFC 7009 lets it): oidc-provider drops all of a
    // grant's tokens on either anyway, and a grant with no tokens left should not be listed as connected.
    revokeGrantPolicy: () => true,
    ttl: {
      AccessToken: ACCESS_TOKEN_TTL_SECONDS,
      AuthorizationCode: AUTHORIZATION_CODE_TTL_SECONDS,
      RefreshToken: REFRESH_TOKEN_TTL_SECONDS,
      Grant: REFRESH_TOKEN_TTL_SECONDS,
      Interaction: 3600,
      Session: 3600,
      IdToken: 3600,
    },
    cookies: { keys: [cookieKey], long: { httpOnly: true, sameSite: 'lax' }, short: { httpOnly: true, sameSite: 'lax', path: '/' } },
    interactions: { url: (_ctx, interaction) => interactionPath(interaction.uid) },
    async findAccount(_ctx, sub) {
      const user = await services.readStore.get<UserDoc>(USERS, sub);
      return user ? { accountId: user.id, claims: () => ({ sub: user.id }) } : undefined;
    },
    // Browser apps (public clients) may call the token endpoint from their redirect URIs' origins.
    clientBasedCORS(_ctx, origin, client) {
      return client.clientAuthMethod === 'none' && (client.redirectUris ?? []).some((uri) => URL.parse(uri)?.origin === origin);
    },
    renderError(ctx, out) {
      // A browser gets a page; any other caller our JSON error shape, with OAuth's fields.
      if (!ctx.accepts('html') || ctx.accepts('json', 'html') === 'json') {
        ctx.type = 'json';
        ctx.body = { message: out.error_description ?? out.error, code: out.error, ...out };
        return;
      }
      ctx.type = 'html';
      const rows = Object.entries(out)
        .map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(String(v))}</dd>`)
        .join('');
      ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Authorization error</title></head><body><main><h1>Authorization error</h1><dl>${rows}</dl></main></body></html>`;
    },
  });

  return async (issuer: string) => {
    let provider = providers.get(issuer);
    if (provider) return provider;
    // Without BASE_URL the issuer follows the Host header, which the caller chooses: a few are
    // kept (localhost, 127.0.0.1, a LAN name), and a flood of made-up hosts cannot grow the map.
    if (providers.size >= MAX_ISSUERS) providers.delete(providers.keys().next().value!);
    // Loaded on the first OAuth request, not at start: on Node 20 the library warns on stderr as
    // it loads, and a process that serves no OAuth request need not load it at all.
    const { default: OidcProvider } = await import('oidc-provider');
    if (providers.has(issuer)) return providers.get(issuer)!;
    provider = new OidcProvider(issuer, configuration());
    provider.proxy = services.config.TRUST_PROXY !== false;
    // What the app presents is hashed and compared with the stored hash: the store holds no
    // usable secret, and symmetric client-secret JWTs (which would need it) are not offered.
    provider.Client.prototype.compareClientSecret = function (this: { clientSecret?: string }, actual: string) {
      const stored = Buffer.from(this.clientSecret ?? '', 'hex');
      const given = hash('sha256', actual, 'buffer');
      return stored.length === given.length && timingSafeEqual(stored, given);
    };
    provider.on('grant.revoked', (ctx: KoaContextWithOIDC, grantId: string) => {
      const list = revokedInRequest.get(ctx) ?? [];
      list.push(grantId);
      revokedInRequest.set(ctx, list);
    });
    providers.set(issuer, provider);
    return provider;
  };
}

/** The app's own check of its client id (the adapter's stream read), for the consent page. */
export async function appOfClient(services: Services, clientId: string) {
  const app = await loadOAuthApp(services.store, clientId);
  return app.status === 'active' ? app : null;
}
