import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggedApp, type LoggedApp } from '../helpers/loggedApp.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * The service's own logger (pino, as `serve` configures it at info level) writing to a stream we
 * read: every line a real request makes, and none may hold the API key that came with it.
 */
describe('credentials never reach the log', () => {
  let server: TestServer;
  let logged: LoggedApp;
  let token: string;

  beforeAll(async () => {
    server = await startTestServer();
    ({ token } = await server.identity());
    logged = await loggedApp(server.services);
  }, 60_000);

  afterAll(async () => {
    await logged?.app.close();
    await server?.close({ remove: true });
  });

  const secretOf = (t: string) => t.split('_').at(-1)!;

  it.each([
    '/api/users/me?apikey=TOKEN',
    '/api/users/me?api-token=TOKEN',
    '/api/users/me?apiToken=TOKEN',
    '/api/users/me?auth=TOKEN',
    '/api/users/me?bearer=TOKEN',
    '/api/users/me?authorization=TOKEN',
    '/api/users/me?api_token[]=TOKEN',
    '/api/users/me?api_token%5B%5D=TOKEN',
    '/api/users/me?api_token=TOKEN',
    '/api/users/me/TOKEN',
    '/api/users/TOKEN/me?page=1',
    '/api/users/me?q=TOKEN',
    '/api/users/me?TOKEN',
    '/api/users/me?x=csk%5Fkey%5FTOKENREST',
    '/hooks/catch/TOKEN',
  ])('%s', async (pattern) => {
    const target = pattern.includes('TOKENREST') ? pattern.replace('TOKENREST', token.slice('csk_key_'.length).replace(/_/g, '%5F')) : pattern.replace('TOKEN', token);
    const written = await logged.logOf(target);
    expect(written.length).toBeGreaterThanOrEqual(2);
    for (const line of written) {
      expect(line).not.toContain(secretOf(token));
      expect(line).not.toContain(token);
    }
  });

  it('leaves the key id, which names the key to revoke, and redacts headers that quote the key', async () => {
    const written = (
      await logged.logOf(`/api/users/me/${token}`, { headers: { 'x-api-key': token, 'x-forwarded-for': token, cookie: `session=${token}` } })
    ).join('\n');
    expect(written).not.toContain(secretOf(token));
    expect(written).toContain(`${token.split('_').slice(0, 3).join('_')}_[REDACTED]`);
  });
});
