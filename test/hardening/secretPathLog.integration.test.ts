import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inviteUser } from '../../modules/identity/accountCommands.ts';
import { createOrganization, createUser } from '../../modules/identity/identityCommands.ts';
import { loggedApp, type LoggedApp } from '../helpers/loggedApp.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * Routes whose path is itself a secret (a receipt link, a catch URL, an invitation) as the
 * service's own pino logger writes them at info level: the secret never reaches a line.
 */
describe('paths that are secrets never reach the access log', () => {
  let server: TestServer;
  let logged: LoggedApp;
  let invitationToken: string;

  beforeAll(async () => {
    server = await startTestServer();
    const org = await createOrganization(server.cliContext(), { name: 'Log Org', timezone: 'UTC' });
    const user = await createUser(server.cliContext(org.id), { email: 'logged@example.com', organizationId: org.id });
    invitationToken = (await inviteUser(server.cliContext(org.id), user.id)).token;
    logged = await loggedApp(server.services);
  }, 60_000);

  afterAll(async () => {
    await logged?.app.close();
    await server?.close({ remove: true });
  });

  const SECRET = 'Zq8sV3kLm0Pn4Rt7Wx2Yc5Fb9Hd1Jg6Q';

  const logOf = (method: string, path: string) => logged.logOf(path, { method });

  const loggedUrls = (written: string[]) => written.map((l) => (JSON.parse(l) as { req?: { url?: string } }).req?.url).filter((u): u is string => u !== undefined);

  it('an invitation token in the path of GET /manage/api/invitations/{token}', async () => {
    const written = await logOf('GET', `/manage/api/invitations/${invitationToken}`);
    expect(written.join('\n')).not.toContain(invitationToken.split('.')[1]);
    expect(loggedUrls(written)).toEqual(['/manage/api/invitations/[REDACTED]']);
  });

  it.each([
    ['GET', `/receipts/${SECRET}`, '/receipts/[REDACTED]'],
    ['GET', `/receipts/${SECRET}/invoice.pdf?download=1`, '/receipts/[REDACTED]/invoice.pdf?download=1'],
    ['POST', `/hooks/catch/${SECRET}/${SECRET.slice(0, 16)}`, '/hooks/catch/[REDACTED]'],
    // Reaching no route, the secret is still in the path.
    ['GET', `/receipts/${SECRET}/nothing-here`, '/receipts/[REDACTED]'],
    ['GET', `/Receipts/${SECRET}`, '/receipts/[REDACTED]'],
    ['GET', `//receipts/./${SECRET}`, '/receipts/[REDACTED]'],
    ['GET', `/%72eceipts/${SECRET}`, '/receipts/[REDACTED]'],
    ['GET', `/manage/api/invitations/${SECRET}/extra`, '/manage/api/invitations/[REDACTED]'],
  ])('%s %s', async (method, path, expected) => {
    const written = await logOf(method, path);
    expect(written.join('\n')).not.toContain(SECRET.slice(0, 16));
    expect(loggedUrls(written)).toEqual([expected]);
  });

  it('logs other routes whole', async () => {
    const written = await logOf('GET', '/api/users/me?page=2');
    expect(loggedUrls(written)).toEqual(['/api/users/me?page=2']);
  });
});
