import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

// What `serve` does on SIGTERM is app.close(), as here. Before the fix each case below kept the
// close waiting: for ever (a quiet socket) or for the 72-s keep-alive timeout (a request in flight).
let server: TestServer | undefined;
afterEach(async () => {
  await server?.close({ remove: true }).catch(() => undefined);
  server = undefined;
});

async function openSocket(url: string): Promise<{ socket: Socket; closed: Promise<void>; received: () => string }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString()));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return { socket, closed, received: () => text };
}

/** Resolves once `condition()` holds, checking every 10 ms (the test timeout bounds it). */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
}

/** 'closed' if `close` resolved within `ms`, else 'still open' (the hook timeout would say less). */
const within = (close: Promise<void>, ms: number) =>
  Promise.race([close.then(() => 'closed'), new Promise((resolve) => setTimeout(() => resolve('still open'), ms))]);

describe('closing the server while clients hold connections', () => {
  it('a connection that never sent a request, and one gone quiet mid-headers, do not hold the close', async () => {
    server = await startTestServer();
    const silent = await openSocket(server.url);
    const halfway = await openSocket(server.url);
    halfway.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closing = server.close({ remove: true });
    expect(await within(closing, 15_000)).toBe('closed');
    server = undefined;
    await silent.closed;
    await halfway.closed;
    expect(halfway.received()).toBe('');
  });

  it('a request in flight is answered with Connection: close, its socket ends, and the close does not wait on it', async () => {
    server = await startTestServer();
    const client = await openSocket(server.url);
    const body = JSON.stringify({ offer: 'no-such-offer' });
    // Headers and half the body: the server holds the request until the rest arrives. Waiting
    // until the server has it, rather than a fixed 100 ms a busy event loop may overrun.
    const received = new Promise<void>((resolve) => server!.app.server.once('request', () => resolve()));
    client.socket.write(`POST /api/checkout/sessions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 4)}`);
    await received;
    const { app } = server;
    const closing = server.close({ remove: true });
    // The close is under way (its preClose hooks ran) once the server stops listening.
    await until(() => !app.server.listening);
    client.socket.write(body.slice(4));
    await client.closed;
    const answer = client.received();
    expect(answer).toMatch(/^HTTP\/1\.1 404 /); // answered, after the whole body, not cut off
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(await within(closing, 15_000)).toBe('closed');
    server = undefined;
  });

  it('new requests on an idle keep-alive connection after the close are not served', async () => {
    server = await startTestServer();
    const client = await openSocket(server.url);
    client.socket.write('GET /healthz HTTP/1.1\r\nHost: localhost\r\n\r\n');
    await until(() => client.received().includes('"status":"ok"'));
    expect(client.received()).toMatch(/^HTTP\/1\.1 200 /);
    const closing = server.close({ remove: true });
    expect(await within(closing, 15_000)).toBe('closed');
    server = undefined;
    await client.closed;
  });
});
