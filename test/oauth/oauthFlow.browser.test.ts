import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oauth from 'oauth4webapi';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../modules/identity/identityCommands.ts';
import { findAccessToken, OAUTH_RECORDS } from '../../modules/oauth/http/oidcStorage.ts';
import { launchChromium } from '../sdk/sdkFixtures.ts';
import { signedInPerson } from '../helpers/manageClient.ts';
import { seedOrganization } from '../helpers/seed.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

const insecure = { [oauth.allowInsecureRequests]: true };

/**
 * An app's whole life with the authorization server, as oauth4webapi (a maintained, certified
 * client) drives it: discovery, the code flow with PKCE through the consent page in Chromium,
 * bearer use within its scopes, refresh with rotation and reuse detection, revocation.
 */
describe('OAuth 2.0 for apps, through the consent page in Chromium', () => {
  let server: TestServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let context: BrowserContext;
  let page: Page;
  let callbackServer: Server;
  let redirectUri: string;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;
  let clientAuth: oauth.ClientAuth;
  let clientSecret: string;
  let owner: Awaited<ReturnType<typeof signedInPerson>>;
  let other: Awaited<ReturnType<typeof signedInPerson>>;
  let otherProduct: string;
  const issued: string[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    callbackServer = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('app callback'));
    await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
    redirectUri = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`;
    owner = await signedInPerson(server);
    other = await signedInPerson(server);
    await seedOrganization(server, owner.organizationId);
    await seedOrganization(server, other.organizationId);
    const key = await createApiKey(server.cliContext(other.organizationId), { userId: other.userId, organizationId: other.organizationId });
    const list = await fetch(`${server.url}/api/catalog/products`, { headers: { authorization: `Bearer ${key.token}` } });
    otherProduct = ((await list.json()) as { data: Array<{ id: string }> }).data[0]!.id;

    const app = await owner.client.json<Record<string, unknown>>('POST', '/manage/api/oauth-apps', { name: 'Acme Sync', redirect_uris: [redirectUri] });
    expect(app.status, JSON.stringify(app.body)).toBe(201);
    client = { client_id: app.body.client_id as string };
    clientSecret = app.body.client_secret as string;
    clientAuth = oauth.ClientSecretBasic(clientSecret);

    chrome = await launchChromium();
    context = chrome.context;
    page = await context.newPage();
    const signIn = await context.request.post(`${server.url}/manage/api/sign-in`, {
      data: { email: owner.email, password: owner.password },
      headers: { 'sec-fetch-site': 'same-origin' },
    });
    expect(signIn.status()).toBe(200);
  }, 120_000);

  afterAll(async () => {
    await chrome?.close();
    await new Promise((resolve) => callbackServer?.close(resolve));
    await server?.close({ remove: true });
  });

  /** The authorization request an app builds, with its PKCE pair and state. */
  async function authorizationUrl(scope: string, overrides: Record<string, string | null> = {}) {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    const params: Record<string, string | null> = {
      client_id: client.client_id,
      redirect_uri: redirectUri,
      response_type: 'code',
      scope,
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...overrides,
    };
    for (const [k, v] of Object.entries(params)) if (v !== null) url.searchParams.set(k, v);
    return { url, verifier, state };
  }

  /** Through the consent page in the browser: returns the callback URL the app receives. */
  async function consent(url: URL, decision: 'Allow' | 'Deny', organizationId = owner.organizationId): Promise<URL> {
    await page.goto(url.href);
    await page.waitForURL(/\/oauth\/interaction\//);
    await page.selectOption('#organization', organizationId);
    try {
      await Promise.all([page.waitForURL((u) => u.href.startsWith(redirectUri), { timeout: 30_000 }), page.getByRole('button', { name: decision }).click()]);
    } catch (error) {
      throw new Error(`the consent did not lead back to the app: at ${page.url()}: ${(await page.content()).slice(0, 2000)}`, { cause: error });
    }
    return new URL(page.url());
  }

  async function codeFlow(scope: string) {
    const { url, verifier, state } = await authorizationUrl(scope);
    const callback = await consent(url, 'Allow');
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, redirectUri, verifier, insecure);
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    issued.push(tokens.access_token, tokens.refresh_token!);
    return tokens;
  }

  const api = (path: string, token: string) => fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${token}`, accept: 'application/json' } });

  it('discovers every endpoint from the RFC 8414 metadata', async () => {
    const issuer = new URL(server.url);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }));
    expect(as).toMatchObject({
      issuer: server.url,
      authorization_endpoint: `${server.url}/oauth/authorize`,
      token_endpoint: `${server.url}/oauth/token`,
      revocation_endpoint: `${server.url}/oauth/revoke`,
      introspection_endpoint: `${server.url}/oauth/introspect`,
      code_challenge_methods_supported: ['S256'],
      response_types_supported: ['code'],
    });
    expect(as.scopes_supported).toEqual(expect.arrayContaining(['identity:read', 'catalog:read', 'checkout:read', 'webhooks:write']));
    expect(as.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code', 'refresh_token']));
  });

  it('runs the code flow through the consent page; the token works within its scopes and organization only', async () => {
    const { url } = await authorizationUrl('identity:read catalog:read');
    await page.goto(url.href);
    await page.waitForURL(/\/oauth\/interaction\//);
    await expect.poll(() => page.locator('#app-name').textContent()).toBe('Acme Sync');
    const scopes = await page.locator('#scopes').textContent();
    expect(scopes).toContain('identity:read');
    expect(scopes).toContain('catalog:read');
    const options = await page.locator('#organization option').allTextContents();
    expect(options).toHaveLength(1);
    const csp = (await page.request.get(page.url())).headers()['content-security-policy'];
    expect(csp).toMatch(/default-src 'none'/);
    expect(csp).not.toMatch(/script-src/);

    const tokens = await codeFlow('identity:read catalog:read');
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.refresh_token).toBeTruthy();

    const me = await api('/api/users/me', tokens.access_token);
    expect(me.status).toBe(200);
    expect(((await me.json()) as { current_organization: { id: string } }).current_organization.id).toBe(owner.organizationId);
    const products = await api('/api/catalog/products', tokens.access_token);
    expect(products.status).toBe(200);
    expect(((await products.json()) as { data: unknown[] }).data.length).toBeGreaterThan(0);

    // Outside its scopes: 403, Laravel's body, RFC 6750's header naming the scope that would do.
    const sessions = await api('/api/checkout/sessions', tokens.access_token);
    expect(sessions.status).toBe(403);
    expect(await sessions.json()).toMatchObject({ message: 'This action is unauthorized.' });
    expect(sessions.headers.get('www-authenticate')).toMatch(/^Bearer error="insufficient_scope".*scope="checkout:read"/);

    // Another organization's product answers exactly like an unknown one.
    const foreign = await api(`/api/catalog/products/${otherProduct}`, tokens.access_token);
    const unknown = await api('/api/catalog/products/zzzzzzzz', tokens.access_token);
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual(await unknown.json());

    // An unknown token: the spec's 401.
    const bogus = await api('/api/users/me', 'x'.repeat(43));
    expect(bogus.status).toBe(401);
    expect(await bogus.json()).toMatchObject({ message: 'Unauthenticated.' });
  }, 120_000);

  it('rotates refresh tokens; a reused refresh token revokes the whole grant', async () => {
    const first = await codeFlow('identity:read');
    const refreshed = await oauth.processRefreshTokenResponse(
      as,
      client,
      await oauth.refreshTokenGrantRequest(as, client, clientAuth, first.refresh_token!, insecure),
    );
    issued.push(refreshed.access_token, refreshed.refresh_token!);
    expect(refreshed.refresh_token).not.toBe(first.refresh_token);
    expect((await api('/api/users/me', refreshed.access_token)).status).toBe(200);

    // The old refresh token again: refused, and everything of the grant dies with it.
    const reuse = await oauth.refreshTokenGrantRequest(as, client, clientAuth, first.refresh_token!, insecure);
    await expect(oauth.processRefreshTokenResponse(as, client, reuse)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await api('/api/users/me', refreshed.access_token)).status).toBe(401);
    const next = await oauth.refreshTokenGrantRequest(as, client, clientAuth, refreshed.refresh_token!, insecure);
    await expect(oauth.processRefreshTokenResponse(as, client, next)).rejects.toMatchObject({ error: 'invalid_grant' });

    const events = await server.services.store.readAll({ after: null, limit: 100_000 });
    expect(events.some((e) => e.type === 'OAuthGrantRevoked' && (e.data as { reason: string }).reason === 'refresh_token_reused')).toBe(true);
  }, 120_000);

  it('revokes tokens (RFC 7009): either token ends the grant and all its tokens', async () => {
    const first = await codeFlow('identity:read');
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuth, first.access_token, insecure));
    expect((await api('/api/users/me', first.access_token)).status).toBe(401);
    const dead = await oauth.refreshTokenGrantRequest(as, client, clientAuth, first.refresh_token!, insecure);
    await expect(oauth.processRefreshTokenResponse(as, client, dead)).rejects.toMatchObject({ error: 'invalid_grant' });

    const second = await codeFlow('identity:read');
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuth, second.refresh_token!, insecure));
    expect((await api('/api/users/me', second.access_token)).status).toBe(401);
    // An unknown token is not an error (RFC 7009 §2.2).
    await oauth.processRevocationResponse(await oauth.revocationRequest(as, client, clientAuth, 'not-a-token', insecure));

    const events = await server.services.store.readAll({ after: null, limit: 100_000 });
    expect(events.filter((e) => e.type === 'OAuthTokenRevoked').map((e) => (e.data as { token_type: string }).token_type)).toEqual(
      expect.arrayContaining(['access_token', 'refresh_token']),
    );
    expect(events.some((e) => e.type === 'OAuthGrantRevoked' && (e.data as { reason: string }).reason === 'app')).toBe(true);
  }, 120_000);

  it('lets the person list and disconnect the apps they connected, which ends the tokens', async () => {
    const tokens = await codeFlow('identity:read catalog:read');
    // Earlier tests left connections of the same app: wait for this flow's own (its grant).
    const grantId = (await findAccessToken(server.services.readStore, tokens.access_token, Date.now()))!.grantId;
    type Connection = { id: string; client_id: string; organization_id: string; scopes: string[] };
    let connection: Connection | undefined;
    await expect
      .poll(async () => {
        const list: { body: { data: Connection[] } } = await owner.client.json('GET', '/manage/api/connected-apps');
        connection = list.body.data.find((c) => c.id === grantId);
        return connection;
      })
      .toBeDefined();
    expect(connection!).toMatchObject({ client_id: client.client_id, organization_id: owner.organizationId, scopes: ['identity:read', 'catalog:read'] });
    // Another person cannot disconnect it.
    expect((await other.client.request('DELETE', `/manage/api/connected-apps/${grantId}`)).status).toBe(404);
    expect((await api('/api/users/me', tokens.access_token)).status).toBe(200);
    expect((await owner.client.request('DELETE', `/manage/api/connected-apps/${grantId}`)).status).toBe(204);
    expect((await api('/api/users/me', tokens.access_token)).status).toBe(401);
    const refresh = await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, insecure);
    await expect(oauth.processRefreshTokenResponse(as, client, refresh)).rejects.toMatchObject({ error: 'invalid_grant' });
  }, 120_000);

  it('sends the app back with access_denied when the person denies, and records the denial', async () => {
    const { url, state } = await authorizationUrl('identity:read');
    const callback = await consent(url, 'Deny');
    expect(() => oauth.validateAuthResponse(as, client, callback, state)).toThrow();
    expect(callback.searchParams.get('error')).toBe('access_denied');
    const events = await server.services.store.readAll({ after: null, limit: 100_000 });
    expect(events.some((e) => e.type === 'OAuthConsentDenied')).toBe(true);
  }, 120_000);

  it('refuses an organization the person is not in, as one that does not exist', async () => {
    const { url } = await authorizationUrl('identity:read');
    await page.goto(url.href);
    await page.waitForURL(/\/oauth\/interaction\//);
    await page.locator('#organization option').first().evaluate((option, id) => ((option as HTMLOptionElement).value = id), other.organizationId);
    const [response] = await Promise.all([page.waitForResponse((r) => r.request().method() === 'POST'), page.getByRole('button', { name: 'Allow' }).click()]);
    expect(response.status(), await response.text()).toBe(404);
  }, 120_000);

  it('requires PKCE with S256, and the right verifier', async () => {
    const noPkce = await authorizationUrl('identity:read', { code_challenge: null, code_challenge_method: null });
    const missing = await fetch(noPkce.url, { redirect: 'manual' });
    const location = new URL(missing.headers.get('location')!, server.url);
    expect(location.href.startsWith(redirectUri)).toBe(true);
    expect(location.searchParams.get('error')).toBe('invalid_request');

    const plain = await authorizationUrl('identity:read', { code_challenge_method: 'plain' });
    const plainAnswer = new URL((await fetch(plain.url, { redirect: 'manual' })).headers.get('location')!, server.url);
    expect(plainAnswer.searchParams.get('error')).toBe('invalid_request');

    const { url, state } = await authorizationUrl('identity:read');
    const callback = await consent(url, 'Allow');
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const wrong = await oauth.authorizationCodeGrantRequest(as, client, clientAuth, params, redirectUri, oauth.generateRandomCodeVerifier(), insecure);
    await expect(oauth.processAuthorizationCodeResponse(as, client, wrong)).rejects.toMatchObject({ error: 'invalid_grant' });
  }, 120_000);

  it('matches redirect URIs exactly', async () => {
    for (const uri of [`${redirectUri}/x`, `${redirectUri}?a=1`, redirectUri.replace('127.0.0.1', 'localhost')]) {
      const { url } = await authorizationUrl('identity:read', { redirect_uri: uri });
      const answer = await fetch(url, { redirect: 'manual' });
      expect(answer.status).toBe(400);
      expect(answer.headers.get('location')).toBeNull();
      expect(await answer.text()).toContain('redirect_uri');
    }
  });

  it('refuses a wrong client secret', async () => {
    const { url, verifier, state } = await authorizationUrl('identity:read');
    const callback = await consent(url, 'Allow');
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(as, client, oauth.ClientSecretBasic(`${clientSecret}x`), params, redirectUri, verifier, insecure);
    await expect(oauth.processAuthorizationCodeResponse(as, client, response)).rejects.toMatchObject({
      status: 401,
      cause: [{ parameters: { error: 'invalid_client' } }],
    });
  }, 120_000);

  it('keeps no token, code or secret in the store or the events', async () => {
    const records = JSON.stringify(await server.services.readStore.find(OAUTH_RECORDS));
    const events = JSON.stringify(await server.services.store.readAll({ after: null, limit: 100_000 }));
    expect(issued.length).toBeGreaterThan(4);
    for (const secret of [...issued, clientSecret]) {
      expect(records).not.toContain(secret);
      expect(events).not.toContain(secret);
    }
    const types = new Set((await server.services.store.readAll({ after: null, limit: 100_000 })).map((e) => e.type));
    for (const type of ['OAuthAppRegistered', 'OAuthConsentGranted', 'OAuthTokensIssued', 'OAuthTokenRevoked', 'OAuthGrantRevoked']) expect(types).toContain(type);
  });

  it('serves a public app (no secret) with PKCE alone, and ends its tokens when its owner deletes it', async () => {
    const created = await owner.client.json<Record<string, unknown>>('POST', '/manage/api/oauth-apps', { name: 'Acme SPA', redirect_uris: [redirectUri], public: true });
    expect(created.body.client_secret).toBeNull();
    const spa: oauth.Client = { client_id: created.body.client_id as string, token_endpoint_auth_method: 'none' };
    const { url, verifier, state } = await authorizationUrl('catalog:read', { client_id: spa.client_id });
    const callback = await consent(url, 'Allow');
    const params = oauth.validateAuthResponse(as, spa, callback, state);
    const tokens = await oauth.processAuthorizationCodeResponse(
      as,
      spa,
      await oauth.authorizationCodeGrantRequest(as, spa, oauth.None(), params, redirectUri, verifier, insecure),
    );
    issued.push(tokens.access_token);
    expect((await api('/api/catalog/products', tokens.access_token)).status).toBe(200);
    expect((await owner.client.request('DELETE', `/manage/api/oauth-apps/${spa.client_id}`)).status).toBe(204);
    expect((await api('/api/catalog/products', tokens.access_token)).status).toBe(401);
  }, 120_000);

  it('sends a person who is not signed in to the sign-in page, and back to the consent page after', async () => {
    const session = await context.request.get(`${server.url}/manage/api/session`);
    const csrf = ((await session.json()) as { csrf_token: string }).csrf_token;
    expect((await context.request.post(`${server.url}/manage/api/sign-out`, { headers: { 'x-csrf-token': csrf, 'sec-fetch-site': 'same-origin' }, data: {} })).status()).toBe(204);
    const { url } = await authorizationUrl('identity:read');
    await page.goto(url.href);
    await page.waitForURL(/\/dashboard\/sign-in\?next=/);
    const next = new URL(page.url()).searchParams.get('next')!;
    expect(next).toMatch(/^\/oauth\/interaction\/[\w-]+$/);
    // The dashboard's own sign-in form, as the person uses it: it leads back to the consent page.
    await page.getByLabel('Email').fill(owner.email);
    await page.getByLabel('Password').fill(owner.password);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await page.waitForURL((u) => u.pathname === next, { timeout: 30_000 });
    await expect.poll(() => page.locator('#app-name').textContent()).toBe('Acme Sync');
  }, 120_000);
});
