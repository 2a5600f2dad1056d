import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inviteUser } from '../../modules/identity/accountCommands.ts';
import { createOrganization, createUser } from '../../modules/identity/identityCommands.ts';
import { manageClient, signedInPerson } from '../helpers/manageClient.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';

const HOUR = 3600_000;

describe('signing in to the management routes', () => {
  let server: TestServer;
  const clock = manualClock();
  beforeAll(async () => {
    server = await startTestServer({ clock });
  });
  afterAll(() => server.close({ remove: true }));

  it('an invitation link sets a password once, signs in with a rotated HttpOnly SameSite=Lax cookie, and expires after 24 hours', async () => {
    const org = await createOrganization(server.cliContext(), { name: 'Invited Org', timezone: 'Europe/Paris' });
    const user = await createUser(server.cliContext(org.id), { email: 'Invited@Example.com', organizationId: org.id });
    const invitation = await inviteUser(server.cliContext(org.id), user.id);
    expect(invitation.expires_at).toBe(Math.floor(clock() / 1000) + 24 * 3600);

    const client = manageClient(server);
    const shown = await client.json('GET', `/manage/api/invitations/${invitation.token}`);
    expect(shown).toEqual({ status: 200, body: { kind: 'account', email: 'invited@example.com', expires_at: invitation.expires_at, has_password: false } });

    const short = await client.json('POST', '/manage/api/invitations/accept', { token: invitation.token, password: 'short' });
    expect(short.status).toBe(422);
    expect(short.body).toMatchObject({ errors: { password: [expect.any(String)] } });

    const response = await client.request('POST', '/manage/api/invitations/accept', { token: invitation.token, password: 'a long passphrase' });
    expect(response.status).toBe(200);
    const cookie = response.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^commerce_session=ses_[0-9A-Za-z]{16}\.[0-9A-Za-z]{32}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=43200$/);
    expect(cookie).not.toContain('Secure'); // plain http on loopback
    const body = (await response.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      user: { id: user.id, email: 'invited@example.com', has_password: true, passkeys: 0 },
      current_organization: { id: org.id, name: 'Invited Org', timezone: 'Europe/Paris', role: 'owner' },
      organizations: [],
      csrf_token: expect.any(String),
    });
    client.csrf = body.csrf_token as string;
    expect((await client.json('GET', '/manage/api/session')).status).toBe(200);

    // Used once.
    const again = await manageClient(server).json('POST', '/manage/api/invitations/accept', { token: invitation.token, password: 'another passphrase' });
    expect(again).toMatchObject({ status: 410, body: { code: 'invitation_invalid' } });
    expect((await manageClient(server).json('GET', `/manage/api/invitations/${invitation.token}`)).status).toBe(410);

    // A reset link that is not used within 24 hours stops working.
    const reset = await inviteUser(server.cliContext(org.id), user.id);
    clock.advance(24 * HOUR);
    expect((await manageClient(server).json('POST', '/manage/api/invitations/accept', { token: reset.token, password: 'too late now' })).status).toBe(410);
    // Nothing secret reached the log: neither the password, nor the tokens, nor the session secret.
    const events = JSON.stringify(await server.services.store.readAll({ after: null, limit: 100_000 }));
    const secret = /\.([0-9A-Za-z]{32})/.exec(cookie)![1]!;
    for (const leak of ['a long passphrase', invitation.token.split('.')[1]!, reset.token.split('.')[1]!, secret]) expect(events).not.toContain(leak);
  });

  it('answers a wrong password and an unknown email alike, records both as SignInFailed, and signs in with the right one', async () => {
    const person = await signedInPerson(server);
    const wrong = await manageClient(server).json('POST', '/manage/api/sign-in', { email: person.email, password: 'not the password' });
    const unknown = await manageClient(server).json('POST', '/manage/api/sign-in', { email: 'nobody-here@example.com', password: 'not the password' });
    expect(wrong.status).toBe(422);
    expect(unknown).toEqual(wrong);
    expect(wrong.body).toEqual({
      message: 'These credentials do not match our records.',
      code: 'credentials_invalid',
      errors: { email: ['These credentials do not match our records.'] },
    });
    const failures = (await server.services.store.readAll({ after: null, limit: 100_000 })).filter((e) => e.type === 'SignInFailed');
    expect(failures.map((e) => (e.data as { reason: string }).reason)).toEqual(expect.arrayContaining(['wrong_password', 'unknown_email']));

    const client = manageClient(server);
    const ok = await client.json('POST', '/manage/api/sign-in', { email: person.email.toUpperCase(), password: person.password });
    expect(ok.status).toBe(200);
    expect((await client.json('GET', '/manage/api/session')).body).toMatchObject({ user: { id: person.userId } });
  });

  it('ends a session after 2 idle hours, and after 12 hours however active', async () => {
    const { client } = await signedInPerson(server);
    clock.advance(HOUR + 50 * 60_000);
    expect((await client.json('GET', '/manage/api/session')).status).toBe(200);
    clock.advance(HOUR + 50 * 60_000); // 1 h 50 after the last request: still alive
    expect((await client.json('GET', '/manage/api/session')).status).toBe(200);
    clock.advance(2 * HOUR);
    const idle = await client.request('GET', '/manage/api/session');
    expect(idle.status).toBe(401);
    expect(idle.headers.get('set-cookie')).toContain('Max-Age=0');

    const active = await signedInPerson(server);
    for (let hours = 1; hours < 12; hours++) {
      clock.advance(HOUR);
      expect((await active.client.json('GET', '/manage/api/session')).status).toBe(200);
    }
    clock.advance(HOUR);
    expect((await active.client.json('GET', '/manage/api/session')).status).toBe(401);
  });

  it('lists the user\'s sessions and revokes one; another user\'s session id answers 404; sign-in rotates the session', async () => {
    const person = await signedInPerson(server);
    const laptop = manageClient(server);
    await laptop.json('POST', '/manage/api/sign-in', { email: person.email, password: person.password });
    await server.settle();
    const listed = await person.client.json<{ data: Array<{ id: string; current: boolean }> }>('GET', '/manage/api/sessions');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(2);
    const other = listed.body.data.find((s) => !s.current)!;

    const stranger = await signedInPerson(server);
    const foreign = await stranger.client.json('DELETE', `/manage/api/sessions/${other.id}`);
    const unknown = await stranger.client.json('DELETE', '/manage/api/sessions/ses_AAAAAAAAAAAAAAAA');
    expect(foreign).toEqual(unknown);
    expect(foreign.status).toBe(404);
    expect((await laptop.json('GET', '/manage/api/session')).status).toBe(200);

    expect((await person.client.request('DELETE', `/manage/api/sessions/${other.id}`)).status).toBe(204);
    expect((await laptop.json('GET', '/manage/api/session')).status).toBe(401);

    // Signing in again with a cookie in hand ends the old session and issues a new one.
    const before = person.client.cookie;
    expect((await person.client.json('POST', '/manage/api/sign-in', { email: person.email, password: person.password })).status).toBe(200);
    expect(person.client.cookie).not.toBe(before);
    const stale = await fetch(`${server.url}/manage/api/session`, { headers: { cookie: `commerce_session=${before}` } });
    expect(stale.status).toBe(401);

    expect((await person.client.request('POST', '/manage/api/sign-out')).status).toBe(204);
    expect((await person.client.json('GET', '/manage/api/session')).status).toBe(401);
  });

  it('refuses a state-changing request without the CSRF token, or from another site, and changes nothing', async () => {
    const { client } = await signedInPerson(server);
    const token = client.csrf;
    client.csrf = null;
    expect((await client.request('POST', '/manage/api/sign-out')).status).toBe(403);
    client.csrf = 'forged';
    expect((await client.request('POST', '/manage/api/sign-out')).status).toBe(403);
    client.csrf = token;
    const crossSite = await client.request('POST', '/manage/api/sign-out', undefined, { 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    expect(await crossSite.json()).toEqual({ message: 'The request failed the CSRF check.', code: 'csrf_failed' });
    expect((await client.request('POST', '/manage/api/sign-out', undefined, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await client.json('GET', '/manage/api/session')).status).toBe(200);
    // A sign-in form posted from another site (login CSRF) is refused too.
    const login = await manageClient(server).request('POST', '/manage/api/sign-in', { email: 'a@example.com', password: 'whatever1' }, { 'sec-fetch-site': 'cross-site' });
    expect(login.status).toBe(403);
    expect((await client.request('POST', '/manage/api/sign-out')).status).toBe(204);
  });

  it('switches among the user\'s organizations; another organization\'s id answers as an unknown one', async () => {
    const person = await signedInPerson(server);
    const second = await createOrganization(server.cliContext(), { name: 'Second', timezone: 'UTC' });
    await createUser(server.cliContext(second.id), { email: person.email, organizationId: second.id, role: 'member' });
    const foreign = await createOrganization(server.cliContext(), { name: 'Foreign', timezone: 'UTC' });
    const switched = await person.client.json('PUT', '/manage/api/session/organization', { organization_id: second.id });
    expect(switched.status).toBe(200);
    expect(switched.body).toMatchObject({ current_organization: { id: second.id, role: 'member' }, organizations: [{ id: person.organizationId, role: 'owner' }] });
    const refused = await person.client.json('PUT', '/manage/api/session/organization', { organization_id: foreign.id });
    const unknown = await person.client.json('PUT', '/manage/api/session/organization', { organization_id: 'org_nothere' });
    expect(refused).toEqual(unknown);
    expect(refused.status).toBe(404);
    expect((await person.client.json('PUT', '/manage/api/session/organization', { organization_id: '../x' })).status).toBe(422);
  });

  it('a request without a session answers 401', async () => {
    expect((await fetch(`${server.url}/manage/api/session`)).status).toBe(401);
    expect((await fetch(`${server.url}/manage/api/session`, { headers: { cookie: 'commerce_session=garbage' } })).status).toBe(401);
  });
});

describe('sign-in rate limits', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close({ remove: true }));

  it('limits attempts per account (10 in 15 minutes), then answers 429 with Retry-After, even with the right password', async () => {
    const person = await signedInPerson(server);
    for (let i = 0; i < 10; i++) {
      expect((await manageClient(server).json('POST', '/manage/api/sign-in', { email: person.email, password: `wrong ${i}` })).status).toBe(422);
    }
    const limited = await manageClient(server).request('POST', '/manage/api/sign-in', { email: person.email, password: person.password });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await limited.json()).toMatchObject({ message: 'Too Many Attempts.' });
  });

  it('limits attempts per address (30 in 15 minutes) across accounts', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      statuses.push((await manageClient(server).request('POST', '/manage/api/sign-in', { email: `spray${i}@example.com`, password: 'password1' })).status);
    }
    // The previous test's 11 attempts came from this address too: 19 more are allowed.
    expect(statuses.slice(0, 19).every((s) => s === 422)).toBe(true);
    expect(statuses[19]).toBe(429);
  });
});
