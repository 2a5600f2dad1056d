import { jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization, createUser, revokeApiKey } from '../../modules/identity/identityCommands.ts';
import { runCli } from '../helpers/serverProcess.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';

describe('GET /api/users/me', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close({ remove: true }));

  it('answers the user, the current organization, the other organizations and a service JWT', async () => {
    const me = await server.identity('Main Org');
    const other = await createOrganization(server.cliContext(), { name: 'Second Org', timezone: 'Europe/Paris' });
    await createUser(server.cliContext(other.id), { email: me.email, organizationId: other.id });
    await server.settle();

    const response = await server.fetch('/api/users/me', { token: me.token });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toMatch(/^req_/);
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      id: me.userId,
      email: me.email,
      current_organization: { id: me.organizationId, name: 'Main Org', timezone: 'UTC' },
      organizations: [{ id: other.id, name: 'Second Org', timezone: 'Europe/Paris' }],
    });
    const { payload, protectedHeader } = await jwtVerify(body.service_jwt as string, server.services.secrets.jwt);
    expect(protectedHeader.alg).toBe('HS256');
    expect(payload).toMatchObject({ sub: me.userId, org: me.organizationId });
    expect(payload.exp! - payload.iat!).toBe(3600);
  });

  it.each([
    ['no header', {}],
    ['a malformed header', { authorization: 'Token abc' }],
    ['an unknown key', { authorization: 'Bearer csk_key_AAAAAAAAAAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB' }],
    ['garbage', { authorization: 'Bearer ../../etc/passwd' }],
  ])('answers 401 Unauthenticated. with %s', async (_name, headers) => {
    const response = await server.fetch('/api/users/me', { headers });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="api"');
    expect(await response.json()).toEqual({ message: 'Unauthenticated.', code: 'unauthenticated' });
  });

  it('answers 401 to a known key id with the wrong secret, also right after the right one was accepted', async () => {
    const me = await server.identity();
    const secret = me.token.slice(-32);
    const wrong = `${me.token.slice(0, -32)}${secret.slice(1)}${secret[0] === 'A' ? 'B' : 'A'}`;
    expect((await server.fetch('/api/users/me', { headers: { authorization: `Bearer ${wrong}` } })).status).toBe(401);
    expect((await server.fetch('/api/users/me', { token: me.token })).status).toBe(200);
    expect((await server.fetch('/api/users/me', { headers: { authorization: `Bearer ${wrong}` } })).status).toBe(401);
    expect((await server.fetch('/api/users/me', { token: me.token })).status).toBe(200);
  });

  it('answers 401 once the key is revoked', async () => {
    const me = await server.identity();
    expect((await server.fetch('/api/users/me', { token: me.token })).status).toBe(200);
    const keyId = me.token.split('_').slice(1, 3).join('_');
    await revokeApiKey(server.cliContext(), keyId);
    await server.settle();
    expect((await server.fetch('/api/users/me', { token: me.token })).status).toBe(401);
  });

  it('accepts the legacy ?api_token= with a Deprecation header', async () => {
    const me = await server.identity();
    const response = await server.fetch(`/api/users/me?api_token=${me.token}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('deprecation')).toBe('@1767225600');
  });

  it('marks with the Deprecation header a refused legacy token and one read before the route (onRequest), and only those', async () => {
    const me = await server.identity();
    const refused = await server.fetch('/api/users/me?api_token=csk_key_wrong');
    expect(refused.status).toBe(401);
    expect(refused.headers.get('deprecation')).toBe('@1767225600');
    const catalog = await server.fetch(`/api/catalog/products?api_token=${me.token}`);
    expect(catalog.status).toBe(200);
    expect(catalog.headers.get('deprecation')).toBe('@1767225600');
    expect((await server.fetch('/api/users/me', { token: me.token })).headers.get('deprecation')).toBeNull();
    expect((await server.fetch('/api/users/me')).headers.get('deprecation')).toBeNull();
  });
});

// The spec: "A missing, expired or invalid token yields 401". A key made with --expires-at expires.
describe('an API key with an expiry', { timeout: 60_000 }, () => {
  const clock = manualClock();
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ clock });
  });
  afterAll(() => server.close({ remove: true }));

  it('made by `commerce api-key create --expires-at`, works until then and answers 401 Unauthenticated. from that second on', async () => {
    const me = await server.identity();
    const expiresAt = Math.floor(clock() / 1000) + 3600;
    const cli = await runCli(
      ['api-key', 'create', '--user', me.userId, '--org', me.organizationId, '--expires-at', String(expiresAt), '--json'],
      { DATA_DIR: server.dataDir },
    );
    expect(cli.code, cli.stderr).toBe(0);
    const key = JSON.parse(cli.stdout) as { token: string; expires_at: number };
    expect(key.expires_at).toBe(expiresAt);
    await server.settle();

    // Both read once before expiry, so the second look is the cached key's.
    for (const path of ['/api/users/me', '/api/catalog/products']) expect((await server.fetch(path, { token: key.token })).status).toBe(200);
    clock.set(expiresAt * 1000 - 1);
    expect((await server.fetch('/api/users/me', { token: key.token })).status).toBe(200);
    clock.set(expiresAt * 1000);
    for (const path of ['/api/users/me', '/api/catalog/products', `/api/users/me?api_token=${key.token}`]) {
      const response = await server.fetch(path, path.includes('api_token') ? {} : { token: key.token });
      expect(response.status, path).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="api"');
      expect(await response.json()).toEqual({ message: 'Unauthenticated.', code: 'unauthenticated' });
    }
    // A key without an expiry is untouched by time.
    clock.advance(10 * 365 * 86_400_000);
    expect((await server.fetch('/api/users/me', { token: me.token })).status).toBe(200);
  });

  it('is refused by the CLI when the time is not Unix seconds in the future', async () => {
    const me = await server.identity();
    const args = ['api-key', 'create', '--user', me.userId, '--org', me.organizationId, '--expires-at'];
    const past = await runCli([...args, '1000000000'], { DATA_DIR: server.dataDir });
    expect(past.code).toBe(1);
    expect(past.stderr).toContain('The expires_at field must be a time in the future.');
    const millis = await runCli([...args, '2026-12-01'], { DATA_DIR: server.dataDir });
    expect(millis.code).toBe(2);
    expect(millis.stderr).toContain('--expires-at takes Unix seconds');
  });
});
