import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manageClient, signedInPerson } from '../helpers/manageClient.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/** Signing in rotates the session the request carried, but only one whose secret the request proves. */
describe('signing in never ends someone else’s session', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close({ remove: true }));

  it('a cookie naming the victim’s session id with a made-up secret leaves that session alive', async () => {
    const victim = await signedInPerson(server);
    const attacker = await signedInPerson(server);
    const victimSessionId = victim.client.cookie!.split('.')[0]!;
    expect(victimSessionId).toMatch(/^ses_/);

    const forged = manageClient(server);
    forged.cookie = `${victimSessionId}.${'A'.repeat(32)}`;
    const signedIn = await forged.json('POST', '/manage/api/sign-in', { email: attacker.email, password: attacker.password });
    expect(signedIn.status).toBe(200);
    expect(forged.cookie).not.toContain(victimSessionId);

    expect((await victim.client.json('GET', '/manage/api/session')).status).toBe(200);
  });

  it('a cookie whose secret verifies is still rotated: the old session ends at sign-in', async () => {
    const person = await signedInPerson(server);
    const old = person.client.cookie!;
    const signedIn = await person.client.json('POST', '/manage/api/sign-in', { email: person.email, password: person.password });
    expect(signedIn.status).toBe(200);
    expect(person.client.cookie).not.toBe(old);
    const replay = manageClient(server);
    replay.cookie = old;
    expect((await replay.json('GET', '/manage/api/session')).status).toBe(401);
  });
});
