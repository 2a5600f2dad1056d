import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inviteUser } from '../../modules/identity/accountCommands.ts';
import { createOrganization, createUser } from '../../modules/identity/identityCommands.ts';
import { launchChromium } from '../sdk/sdkFixtures.ts';
import { signedInPerson } from '../helpers/manageClient.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

type Answer = { status: number; body: Record<string, unknown> };

/**
 * Passkeys end to end: Chromium's own WebAuthn stack with a CDP virtual authenticator makes the
 * credential and the assertions; the service verifies them with @simplewebauthn/server. The page
 * is at http://localhost (a secure context whose host is a valid RP ID).
 */
describe('passkeys in a real browser', () => {
  let server: TestServer;
  let chrome: Awaited<ReturnType<typeof launchChromium>>;
  let context: BrowserContext;
  let page: Page;
  let origin: string;

  beforeAll(async () => {
    server = await startTestServer();
    chrome = await launchChromium();
    context = chrome.context;
    page = await context.newPage();
    origin = server.url.replace('127.0.0.1', 'localhost');
    const cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    });
  });
  afterAll(async () => {
    await chrome?.close();
    await server?.close({ remove: true });
  });

  it('registers a passkey with an invitation, then signs in with it alone; a replayed assertion is refused', async () => {
    const org = await createOrganization(server.cliContext(), { name: 'Passkey Org', timezone: 'UTC' });
    const user = await createUser(server.cliContext(org.id), { email: 'passkey@example.com', organizationId: org.id });
    const invitation = await inviteUser(server.cliContext(org.id), user.id);
    await page.goto(`${origin}/manage/api/invitations/${invitation.token}`);

    const registered = await page.evaluate(async (token): Promise<Answer> => {
      const post = async (path: string, body: unknown) => {
        const r = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        return { status: r.status, body: (await r.json()) as Record<string, unknown> };
      };
      const { body } = await post('/manage/api/invitations/passkey/options', { token });
      const publicKey = PublicKeyCredential.parseCreationOptionsFromJSON(body.options as never);
      const credential = (await navigator.credentials.create({ publicKey })) as PublicKeyCredential;
      return post('/manage/api/invitations/passkey', { token, challenge_token: body.challenge_token, name: 'Laptop', response: credential.toJSON() });
    }, invitation.token);
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    expect(registered.body).toMatchObject({ user: { id: user.id, has_password: false, passkeys: 1 }, current_organization: { id: org.id } });

    // Sign out, then sign in with the passkey: no email, no password.
    const signedIn = await page.evaluate(async (csrf): Promise<Answer & { replay: Answer; session: number }> => {
      const post = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
        const r = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
        return { status: r.status, body: (await r.json().catch(() => ({}))) as Record<string, unknown> };
      };
      await post('/manage/api/sign-out', {}, { 'x-csrf-token': csrf });
      const signedOut = (await fetch('/manage/api/session')).status;
      if (signedOut !== 401) throw new Error(`still signed in: ${signedOut}`);
      const { body } = await post('/manage/api/sign-in/passkey/options', {});
      const publicKey = PublicKeyCredential.parseRequestOptionsFromJSON(body.options as never);
      const assertion = ((await navigator.credentials.get({ publicKey })) as PublicKeyCredential).toJSON();
      const answer = await post('/manage/api/sign-in/passkey', { challenge_token: body.challenge_token, response: assertion });
      const session = (await fetch('/manage/api/session')).status;
      // The same assertion against a fresh challenge: its signature covers the old one.
      const fresh = await post('/manage/api/sign-in/passkey/options', {});
      const replay = await post('/manage/api/sign-in/passkey', { challenge_token: fresh.body.challenge_token, response: assertion });
      return { ...answer, session, replay };
    }, registered.body.csrf_token as string);
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
    expect(signedIn.body).toMatchObject({ user: { id: user.id } });
    expect(signedIn.session).toBe(200);
    expect(signedIn.replay.status).toBe(422);
    expect(signedIn.replay.body).toMatchObject({ code: 'credentials_invalid' });

    const events = await server.services.store.readStream(`user-${user.id}`);
    expect(events.map((e) => e.type)).toEqual(['UserCreated', 'UserInvited', 'PasskeyRegistered', 'PasskeyUsed']);
  });

  it('a membership invitation of an email without an account makes the account with a passkey, as a member', async () => {
    const owner = await signedInPerson(server);
    const invited = await owner.client.json<{ invitation_link: string }>('POST', '/manage/api/members', { email: 'passkey-new@example.com', role: 'member' });
    const token = invited.body.invitation_link.split('#token=')[1]!;
    await page.goto(`${origin}/dashboard/sign-in`);
    const registered = await page.evaluate(async (token): Promise<Answer> => {
      const post = async (path: string, body: unknown) => {
        const r = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
        return { status: r.status, body: (await r.json()) as Record<string, unknown> };
      };
      const { body } = await post('/manage/api/invitations/passkey/options', { token });
      const publicKey = PublicKeyCredential.parseCreationOptionsFromJSON(body.options as never);
      const credential = (await navigator.credentials.create({ publicKey })) as PublicKeyCredential;
      return post('/manage/api/invitations/passkey', { token, challenge_token: body.challenge_token, name: 'Phone', response: credential.toJSON() });
    }, token);
    expect(registered.status, JSON.stringify(registered.body)).toBe(200);
    expect(registered.body).toMatchObject({ user: { email: 'passkey-new@example.com', has_password: false, passkeys: 1 }, current_organization: { id: owner.organizationId, role: 'member' } });
    const userId = (registered.body.user as { id: string }).id;
    const events = await server.services.store.readStream(`user-${userId}`);
    expect(events.map((e) => e.type)).toEqual(['UserCreated', 'PasskeyRegistered']);
  });
});
