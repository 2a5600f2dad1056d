import * as oauth from 'oauth4webapi';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { handleCommand } from '../../platform/es/handleCommand.ts';
import { createOrganization } from '../../modules/identity/identityCommands.ts';
import { roleForRoute } from '../../modules/identity/domain/bearerAccess.ts';
import { userDecider, userStream } from '../../modules/identity/domain/user.ts';
import { OAUTH_SCOPES } from '../../modules/oauth/domain/oauthScopes.ts';
import { signedInPerson } from '../helpers/manageClient.ts';
import { enumerateRoutes, fillPath } from '../helpers/routes.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

const insecure = { [oauth.allowInsecureRequests]: true };
type Person = Awaited<ReturnType<typeof signedInPerson>>;

/**
 * An OAuth token does at most what its granting person may do now: the consent page offers only
 * the scopes their role allows, the token is checked against their current role on every request,
 * and `openid` is granted (an ES256 ID token) rather than sending the person back to the page.
 * The app is oauth4webapi; the person's browser is fetch with a cookie jar (no script runs on the
 * consent page, so its form is all a browser would send).
 */
describe('OAuth tokens within the granting person’s current role', () => {
  let server: TestServer;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;
  let clientAuth: oauth.ClientAuth;
  let owner: Person;
  const redirectUri = 'http://127.0.0.1:9/callback';

  beforeAll(async () => {
    server = await startTestServer();
    owner = await signedInPerson(server);
    const app = await owner.client.json<{ client_id: string; client_secret: string }>('POST', '/manage/api/oauth-apps', { name: 'Hooky', redirect_uris: [redirectUri] });
    expect(app.status).toBe(201);
    client = { client_id: app.body.client_id };
    clientAuth = oauth.ClientSecretBasic(app.body.client_secret);
    const issuer = new URL(server.url);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oidc', ...insecure }));
  });
  afterAll(() => server.close({ remove: true }));

  /** The person's browser from the authorization request to the consent page. */
  async function consentPage(person: Person, scope: string) {
    const jar = new Map<string, string>([['commerce_session', person.client.cookie!]]);
    const cookie = () => [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    const absorb = (response: Response) => {
      for (const line of response.headers.getSetCookie()) {
        const [pair] = line.split(';');
        const eq = pair!.indexOf('=');
        jar.set(pair!.slice(0, eq).trim(), pair!.slice(eq + 1).trim());
      }
      return response;
    };
    const get = async (url: URL) => absorb(await fetch(url, { redirect: 'manual', headers: { cookie: cookie(), accept: 'text/html' } }));
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      scope,
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    }).toString();
    const started = await get(url);
    expect(started.status).toBe(303);
    const interaction = new URL(started.headers.get('location')!, server.url);
    expect(interaction.pathname).toMatch(/^\/oauth\/interaction\//);
    const page = await get(interaction);
    expect(page.status).toBe(200);
    const html = await page.text();
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(html)![1]!;

    /** Allow in `organizationId`: follows the redirects to where the browser lands (the app, or not). */
    const allow = async (organizationId: string): Promise<URL> => {
      let response = absorb(
        await fetch(interaction, {
          method: 'POST',
          redirect: 'manual',
          headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin', origin: server.url },
          body: new URLSearchParams({ csrf_token: csrf, organization_id: organizationId, decision: 'allow' }).toString(),
        }),
      );
      for (let hops = 0; hops < 10; hops += 1) {
        expect([302, 303]).toContain(response.status);
        const next = new URL(response.headers.get('location')!, server.url);
        if (next.href.startsWith(redirectUri) || next.pathname.startsWith('/oauth/interaction/')) return next;
        response = await get(next);
      }
      throw new Error('too many redirects');
    };

    /** The app's side: the code for tokens, with oauth4webapi's checks (ID token claims included). */
    const tokens = async (callback: URL) => {
      const params = oauth.validateAuthResponse(as, client, callback, state);
      const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, redirectUri, verifier, insecure);
      return oauth.processAuthorizationCodeResponse(as, client, response);
    };
    return { html, allow, tokens };
  }

  const api = (method: string, path: string, token: string, body?: unknown) =>
    server.fetch(path, { method, token, ...(body ? { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } } : {}) });
  const newEndpoint = { url: 'https://hooks.example/in', event_types: ['checkout.session.completed'] };
  /** The items of the page's list with this id ('' if there is none). */
  const listOf = (html: string, id: string) => [...html.matchAll(/<ul id="([^"]+)">(.*?)<\/ul>/gs)].find((m) => m[1] === id)?.[2] ?? '';

  it('offers a member only the scopes a member may grant, says which are not, and the token cannot reach owners’ routes', async () => {
    const member = await signedInPerson(server, { organizationId: owner.organizationId, role: 'member' });
    const flow = await consentPage(member, 'checkout:read webhooks:read webhooks:write');
    expect(listOf(flow.html, 'scopes')).toContain('checkout:read');
    expect(listOf(flow.html, 'scopes')).not.toContain('webhooks:');
    expect(listOf(flow.html, 'refused-scopes')).toContain('webhooks:write');
    expect(listOf(flow.html, 'refused-scopes')).toContain('webhooks:read');
    expect(flow.html).toContain('need an owner of the organization');

    const callback = await flow.allow(owner.organizationId);
    expect(callback.href.startsWith(redirectUri)).toBe(true);
    const granted = await flow.tokens(callback);
    expect(granted.scope?.split(' ').sort()).toEqual(['checkout:read']);

    const created = await api('POST', '/api/webhook-endpoints', granted.access_token, newEndpoint);
    expect(created.status).toBe(403);
    expect((await api('GET', '/api/webhook-endpoints', granted.access_token)).status).toBe(403);
    expect((await api('GET', '/api/checkout/sessions', granted.access_token)).status).toBe(200);
    // The member's own management route says the same.
    expect((await member.client.json('POST', '/manage/api/webhook-endpoints', newEndpoint)).status).toBe(403);
    const grants = (await server.services.store.readAll({ after: null, limit: 100_000 })).filter((e) => e.type === 'OAuthConsentGranted');
    expect(grants.at(-1)!.data).toMatchObject({ user_id: member.userId, scopes: ['checkout:read'] });
  });

  it('narrows an owner’s grant from the request after their demotion, and ends it with their removal', async () => {
    const second = await signedInPerson(server, { organizationId: owner.organizationId, role: 'owner' });
    const flow = await consentPage(second, 'checkout:read webhooks:write');
    expect(listOf(flow.html, 'scopes')).toContain('webhooks:write');
    expect(flow.html).not.toContain('refused-scopes');
    const granted = await flow.tokens(await flow.allow(owner.organizationId));
    expect(granted.scope?.split(' ').sort()).toEqual(['checkout:read', 'webhooks:write']);
    expect((await api('POST', '/api/webhook-endpoints', granted.access_token, newEndpoint)).status).toBe(201);

    await server.settle();
    expect((await owner.client.json('PATCH', `/manage/api/members/${second.userId}`, { role: 'member' })).status).toBe(200);
    // The next request, with no wait for any read model.
    const refused = await api('POST', '/api/webhook-endpoints', granted.access_token, newEndpoint);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ message: 'This action is unauthorized.', code: 'unauthorized' });
    expect((await api('GET', '/api/checkout/sessions', granted.access_token)).status).toBe(200);

    await server.settle();
    expect((await owner.client.request('DELETE', `/manage/api/members/${second.userId}`)).status).toBe(204);
    expect((await api('GET', '/api/checkout/sessions', granted.access_token)).status).toBe(401);
  });

  it('on every bearer route: a token a member granted with every scope asked reaches no owners’ route, and is refused once they leave', async () => {
    const member = await signedInPerson(server, { organizationId: owner.organizationId, role: 'member' });
    const flow = await consentPage(member, Object.keys(OAUTH_SCOPES).join(' '));
    const granted = await flow.tokens(await flow.allow(owner.organizationId));
    const routes = enumerateRoutes(server.app).filter((r) => r.protected && r.method !== 'HEAD');
    const call = (method: string, url: string) =>
      server.fetch(fillPath(url, () => 'x'), { method, token: granted.access_token, ...(method === 'GET' || method === 'DELETE' ? {} : { body: '{}', headers: { 'content-type': 'application/json' } }) });
    let owners = 0;
    for (const { method, url } of routes) {
      const status = (await call(method, url)).status;
      if (roleForRoute(method, url) === 'owner') {
        owners += 1;
        expect(status, `${method} ${url}`).toBe(403);
      } else expect(status, `${method} ${url}`).not.toBe(401);
    }
    expect(owners).toBe(16);
    await server.settle();
    expect((await owner.client.request('DELETE', `/manage/api/members/${member.userId}`)).status).toBe(204);
    for (const { method, url } of routes) expect((await call(method, url)).status, `${method} ${url}`).toBe(401);
  });

  it('offers an owner’s scope only for the organizations the person owns, and grants it only there', async () => {
    const person = await signedInPerson(server, { organizationId: owner.organizationId, role: 'member' });
    const mine = await createOrganization(server.cliContext(), { name: 'Their Own Shop', timezone: 'UTC' });
    await handleCommand(server.cliContext(mine.id), userStream(person.userId), userDecider, { type: 'JoinOrganization', organizationId: mine.id, role: 'owner', now: 1 });
    const first = await consentPage(person, 'checkout:read webhooks:write');
    expect(listOf(first.html, 'scopes')).toMatch(/webhooks:write<\/code>.*Only in the organizations you own: Their Own Shop\./);
    expect(first.html).not.toContain('refused-scopes');
    const asMember = await first.tokens(await first.allow(owner.organizationId));
    expect(asMember.scope).toBe('checkout:read');
    const second = await consentPage(person, 'checkout:read webhooks:write');
    const asOwner = await second.tokens(await second.allow(mine.id));
    expect(asOwner.scope?.split(' ').sort()).toEqual(['checkout:read', 'webhooks:write']);
    expect((await api('POST', '/api/webhook-endpoints', asOwner.access_token, newEndpoint)).status).toBe(201);
  });

  it('grants openid with an ES256 ID token, without sending the person back to the consent page', async () => {
    const flow = await consentPage(owner, 'openid identity:read');
    const callback = await flow.allow(owner.organizationId);
    expect(callback.pathname).not.toMatch(/^\/oauth\/interaction\//);
    expect(callback.href.startsWith(redirectUri)).toBe(true);
    expect(listOf(flow.html, 'scopes')).toContain('openid');
    const granted = await flow.tokens(callback);
    expect(granted.scope?.split(' ').sort()).toEqual(['identity:read', 'openid']);
    const claims = oauth.getValidatedIdTokenClaims(granted)!;
    expect(claims).toMatchObject({ sub: owner.userId, aud: client.client_id, iss: server.url });
    const header = JSON.parse(Buffer.from(granted.id_token!.split('.')[0]!, 'base64url').toString()) as { alg: string };
    expect(header.alg).toBe('ES256');
    expect((await api('GET', '/api/users/me', granted.access_token)).status).toBe(200);
  });
});
