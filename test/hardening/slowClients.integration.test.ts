import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/** Writes `request` on a raw connection; resolves with everything the server sent until it closed, and when. */
function rawExchange(url: string, request: string, trickle?: { everyMs: number }): Promise<{ answer: string; closedAfterMs: number }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const started = Date.now();
    let answer = '';
    let timer: NodeJS.Timeout | undefined;
    const socket = connect(Number(port), hostname, () => {
      socket.write(request);
      // A byte now and then: the connection is never idle, the request never complete.
      if (trickle) timer = setInterval(() => socket.writable && socket.write(' '), trickle.everyMs);
    });
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer, closedAfterMs: Date.now() - started });
    });
    setTimeout(() => {
      clearInterval(timer);
      socket.destroy();
      reject(new Error(`the server still held the connection after 10 s; it sent ${JSON.stringify(answer)}`));
    }, 10_000);
  });
}

const bodyOf = (answer: string) => JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as unknown;

describe('clients that do not speak HTTP properly', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { REQUEST_TIMEOUT_MS: '800' } });
  });
  afterAll(() => server.close({ remove: true }));

  it('a body trickled byte by byte gets 408 in our error shape and the connection closed after REQUEST_TIMEOUT_MS', async () => {
    const { answer, closedAfterMs } = await rawExchange(
      server.url,
      'POST /hooks/catch/aaaa/bbbb HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"a":',
      { everyMs: 100 },
    );
    expect(answer).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(bodyOf(answer)).toEqual({ message: 'The request did not arrive in time.', code: 'request_timeout' });
    expect(answer).toMatch(/\r\nX-Request-Id: req_[a-z0-9]+\r\n/i);
    expect(closedAfterMs).toBeGreaterThanOrEqual(800);
    expect(closedAfterMs).toBeLessThan(5_000);
  });

  it('an authenticated file upload may take longer than REQUEST_TIMEOUT_MS; an unauthenticated one may not', async () => {
    const { token } = await server.identity('Slow Uploader');
    const boundary = 'slowupload';
    const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="slow.txt"\r\nContent-Type: text/plain\r\n\r\n`;
    const tail = `\r\n--${boundary}--\r\n`;
    const pieces = Array.from({ length: 20 }, (_, i) => `piece ${String(i).padStart(2, '0')}\n`);
    const length = Buffer.byteLength(head + pieces.join('') + tail);
    /** The upload's body sent a piece every 100 ms: about twice REQUEST_TIMEOUT_MS in all. */
    const send = (authorization: string, connection: 'close' | 'keep-alive') =>
      new Promise<{ answer: string; closedAfterMs: number }>((resolve) => {
        const { hostname, port } = new URL(server.url);
        const started = Date.now();
        let answer = '';
        const socket = connect(Number(port), hostname, () => {
          socket.write(`POST /api/files HTTP/1.1\r\nHost: localhost\r\n${authorization}Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${length}\r\nConnection: ${connection}\r\n\r\n${head}`);
          let i = 0;
          const timer = setInterval(() => {
            if (!socket.writable) return clearInterval(timer);
            if (i < pieces.length) socket.write(pieces[i++]!);
            else {
              clearInterval(timer);
              socket.write(tail);
            }
          }, 100);
          socket.on('close', () => clearInterval(timer));
        });
        socket.on('data', (chunk) => (answer += chunk.toString()));
        socket.on('error', () => undefined);
        socket.on('close', () => resolve({ answer, closedAfterMs: Date.now() - started }));
      });

    const uploaded = await send(`Authorization: Bearer ${token}\r\n`, 'close');
    expect(uploaded.answer).toMatch(/^HTTP\/1\.1 201 /);
    expect(uploaded.closedAfterMs).toBeGreaterThan(1600);
    expect(bodyOf(uploaded.answer)).toMatchObject({ object: 'file', filename: 'slow.txt', size: pieces.join('').length });

    // Without a credential: refused at once, and a kept-alive connection still trickling the body is
    // closed at REQUEST_TIMEOUT_MS, not held for the upload allowance.
    const refused = await send('', 'keep-alive');
    expect(refused.answer).toMatch(/^HTTP\/1\.1 401 /);
    expect(refused.closedAfterMs).toBeLessThan(1600);
  });

  it('headers that never end are cut off too', async () => {
    const { answer } = await rawExchange(server.url, 'GET /api/checkout HTTP/1.1\r\nHost: localhost\r\nX-Slow: a', { everyMs: 100 });
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
  });

  it('oversized headers answer 431 and bytes that are not HTTP answer 400, both in our error shape', async () => {
    const big = await rawExchange(server.url, `GET /api/checkout HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(big.answer).toMatch(/^HTTP\/1\.1 431 /);
    expect(bodyOf(big.answer)).toEqual({ message: 'The request headers are too large.', code: 'headers_too_large' });
    const garbage = await rawExchange(server.url, 'NOT HTTP AT ALL\r\n\r\n');
    expect(garbage.answer).toMatch(/^HTTP\/1\.1 400 /);
    expect(bodyOf(garbage.answer)).toEqual({ message: 'Malformed HTTP request.', code: 'bad_request' });
    // Every response carries a request id and nosniff, these included.
    for (const { answer } of [big, garbage]) {
      expect(answer).toMatch(/\r\nX-Request-Id: req_[a-z0-9]+\r\n/i);
      expect(answer).toMatch(/\r\nX-Content-Type-Options: nosniff\r\n/i);
    }
  });
});
