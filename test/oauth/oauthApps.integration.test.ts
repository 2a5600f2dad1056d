import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { grantConsent, newGrantId, registerOAuthApp } from '../../modules/oauth/oauthCommands.ts';
import { oidcAdapterClass } from '../../modules/oauth/http/oidcStorage.ts';
import { signedInPerson } from '../helpers/manageClient.ts';
import { runCli } from '../helpers/serverProcess.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';

type App = { client_id: string; client_secret?: string | null; redirect_uris: string[]; public: boolean; token_endpoint_auth_method: string };

describe('OAuth apps: registered by owners, through /manage/api/oauth-apps and the CLI', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close({ remove: true }));

  it('lets an owner register, read, change and delete an app; the secret is shown once and stored only as a hash', async () => {
    const owner = await signedInPerson(server);
    const created = await owner.client.json<App>('POST', '/manage/api/oauth-apps', { name: 'Acme', redirect_uris: ['https://acme.example/callback'] });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ client_id: expect.stringMatching(/^app_/), client_secret: expect.stringMatching(/^cs_[0-9A-Za-z]{43}$/), public: false, token_endpoint_auth_method: 'client_secret_basic' });
    const { client_id: id, client_secret: secret } = created.body;

    const shown = await owner.client.json<App>('GET', `/manage/api/oauth-apps/${id}`);
    expect(shown.status).toBe(200);
    expect(shown.body).not.toHaveProperty('client_secret');
    await expect.poll(async () => (await owner.client.json<{ data: App[] }>('GET', '/manage/api/oauth-apps')).body.data.map((a) => a.client_id)).toEqual([id]);
    const events = JSON.stringify(await server.services.store.readStream(`oauth_app-${id}`));
    expect(events).not.toContain(secret!);
    expect(events).toContain('secret_hash');

    const changed = await owner.client.json<App>('PATCH', `/manage/api/oauth-apps/${id}`, { redirect_uris: ['https://acme.example/cb2', 'http://127.0.0.1:8080/cb'] });
    expect(changed.status).toBe(200);
    expect(changed.body.redirect_uris).toEqual(['https://acme.example/cb2', 'http://127.0.0.1:8080/cb']);

    for (const uri of ['http://acme.example/cb', 'https://acme.example/cb#x', 'not a url', 'https://user:pw@acme.example/cb']) {
      const refused = await owner.client.json<{ errors: Record<string, string[]> }>('POST', '/manage/api/oauth-apps', { name: 'Bad', redirect_uris: [uri] });
      expect(refused.status, uri).toBe(422);
    }

    const publicApp = await owner.client.json<App>('POST', '/manage/api/oauth-apps', { name: 'SPA', redirect_uris: ['https://spa.example/cb'], public: true });
    expect(publicApp.body).toMatchObject({ public: true, client_secret: null, token_endpoint_auth_method: 'none' });

    expect((await owner.client.request('DELETE', `/manage/api/oauth-apps/${id}`)).status).toBe(204);
    expect((await owner.client.request('GET', `/manage/api/oauth-apps/${id}`)).status).toBe(404);
  });

  it('refuses members (403) and answers another organization’s app exactly like an unknown one', async () => {
    const owner = await signedInPerson(server);
    const member = await signedInPerson(server, { organizationId: owner.organizationId, role: 'member' });
    const refused = await member.client.json('POST', '/manage/api/oauth-apps', { name: 'Sneaky', redirect_uris: ['https://x.example/cb'] });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ message: 'This action is unauthorized.' });
    expect((await member.client.request('GET', '/manage/api/oauth-apps')).status).toBe(403);

    const created = await owner.client.json<App>('POST', '/manage/api/oauth-apps', { name: 'Mine', redirect_uris: ['https://mine.example/cb'] });
    const stranger = await signedInPerson(server);
    const foreign = await stranger.client.request('GET', `/manage/api/oauth-apps/${created.body.client_id}`);
    const unknown = await stranger.client.request('GET', '/manage/api/oauth-apps/app_00000000000000000000');
    expect(foreign.status).toBe(404);
    expect(await foreign.json()).toEqual(await unknown.json());
    expect((await stranger.client.request('DELETE', `/manage/api/oauth-apps/${created.body.client_id}`)).status).toBe(404);
    expect((await stranger.client.request('PATCH', `/manage/api/oauth-apps/${created.body.client_id}`, { name: 'Taken' })).status).toBe(404);
  });

  it('`commerce oauth-app create|list|delete` registers apps from the CLI, printing the secret once', async () => {
    const owner = await signedInPerson(server);
    const env = { DATA_DIR: server.dataDir };
    const created = await runCli(['oauth-app', 'create', '--org', owner.organizationId, '--redirect-uri', 'https://cli.example/cb,http://localhost:9000/cb', '--name', 'CLI app', '--json'], env);
    expect(created.code, created.stderr).toBe(0);
    const app = JSON.parse(created.stdout) as App & { organization_id: string };
    expect(app).toMatchObject({ organization_id: owner.organizationId, redirect_uris: ['https://cli.example/cb', 'http://localhost:9000/cb'], client_secret: expect.stringMatching(/^cs_/) });

    const publicApp = await runCli(['oauth-app', 'create', '--org', owner.organizationId, '--redirect-uri', 'https://cli.example/spa', '--public'], env);
    expect(publicApp.code, publicApp.stderr).toBe(0);
    expect(publicApp.stdout).toMatch(/public, PKCE only/);
    expect(publicApp.stdout).not.toMatch(/client_secret/);

    const bad = await runCli(['oauth-app', 'create', '--org', owner.organizationId, '--redirect-uri', 'http://evil.example/cb'], env);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/must be https/);

    const list = await runCli(['oauth-app', 'list', '--org', owner.organizationId], env);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain(app.client_id);
    expect(list.stdout).not.toContain(app.client_secret!);
    // The server sees the app at once: the owner reads it through the management route.
    expect((await owner.client.request('GET', `/manage/api/oauth-apps/${app.client_id}`)).status).toBe(200);

    const deleted = await runCli(['oauth-app', 'delete', app.client_id], env);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect((await owner.client.request('GET', `/manage/api/oauth-apps/${app.client_id}`)).status).toBe(404);
  }, 120_000);
});

describe('an OAuth access token at the end of its hour', () => {
  const clock = manualClock();
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clock });
  });
  afterAll(() => server.close({ remove: true }));

  it('answers 401 Unauthenticated. from its expiry on, as an unknown token does', async () => {
    const person = await signedInPerson(server);
    const ctx = server.cliContext(person.organizationId);
    const app = await registerOAuthApp(ctx, { organizationId: person.organizationId, userId: person.userId, name: 'Clocked', redirectUris: ['https://c.example/cb'], public: false });
    const grantId = newGrantId();
    await grantConsent(ctx, { grantId, clientId: app.client_id, userId: person.userId, organizationId: person.organizationId, scopes: ['identity:read'] });
    // The record oidc-provider writes for an access token, through the same adapter.
    const token = 'T'.repeat(43);
    const Adapter = oidcAdapterClass(server.services.readStore, server.services.store, server.services.clock);
    const iat = Math.floor(clock() / 1000);
    await new Adapter('AccessToken').upsert(token, { accountId: person.userId, clientId: app.client_id, grantId, scope: 'identity:read', iat, exp: iat + 3600, kind: 'AccessToken', jti: token }, 3600);

    const me = () => server.fetch('/api/users/me', { token });
    const ok = await me();
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { current_organization: { id: string } }).current_organization.id).toBe(person.organizationId);
    clock.advance(3599 * 1000);
    expect((await me()).status).toBe(200);
    clock.advance(1000);
    const expired = await me();
    expect(expired.status).toBe(401);
    expect(await expired.json()).toMatchObject({ message: 'Unauthenticated.' });
  });
});
