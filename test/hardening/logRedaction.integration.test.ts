import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app/httpApp.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * The service's own logger (pino, as `serve` configures it at info level) writing to a stream we
 * read: every line a real request makes, and none may hold the API key that came with it.
 */
describe('credentials never reach the log', () => {
  let server: TestServer;
  let app: FastifyInstance;
  let url: string;
  let token: string;
  const lines: string[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    ({ token } = await server.identity());
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter((l) => l !== ''));
        done();
      },
    });
    app = await buildApp(server.services, { logger: { level: 'info', stream } });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  }, 60_000);

  afterAll(async () => {
    await app?.close();
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
    const before = lines.length;
    const response = await fetch(`${url}${target}`, { headers: { accept: 'application/json' } });
    await response.arrayBuffer();
    // The "request completed" line is written once the response has gone out.
    await expect.poll(() => lines.slice(before).some((l) => l.includes('request completed')), { timeout: 10_000 }).toBe(true);
    const written = lines.slice(before);
    expect(written.length).toBeGreaterThanOrEqual(2);
    for (const line of written) {
      expect(line).not.toContain(secretOf(token));
      expect(line).not.toContain(token);
    }
  });

  it('leaves the key id, which names the key to revoke, and redacts headers that quote the key', async () => {
    const before = lines.length;
    const response = await fetch(`${url}/api/users/me/${token}`, {
      headers: { accept: 'application/json', 'x-api-key': token, 'x-forwarded-for': token, cookie: `session=${token}` },
    });
    await response.arrayBuffer();
    await expect.poll(() => lines.slice(before).some((l) => l.includes('request completed')), { timeout: 10_000 }).toBe(true);
    const written = lines.slice(before).join('\n');
    expect(written).not.toContain(secretOf(token));
    expect(written).toContain(`${token.split('_').slice(0, 3).join('_')}_[REDACTED]`);
  });
});
