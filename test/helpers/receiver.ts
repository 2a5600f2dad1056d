import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type ReceivedCall = { method: string; url: string; headers: IncomingMessage['headers']; body: string };

const answerOk = (res: ServerResponse) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end('{"ok":true}');
};

/** A receiver's answer: 200 `{"ok":true}`, after `ms` milliseconds (a receiver that takes its time). */
export const answerOkAfter =
  (ms: number) =>
  (_call: ReceivedCall, res: ServerResponse): void => {
    setTimeout(() => answerOk(res), ms);
  };

/**
 * A real HTTP server on loopback that records every call and answers with `respond`
 * (which may never answer, to play a receiver that hangs).
 */
export async function startReceiver(
  respond: (call: ReceivedCall, res: ServerResponse, index: number) => void = (_c, res) => answerOk(res),
) {
  const calls: ReceivedCall[] = [];
  const open = new Set<ServerResponse>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const call = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      calls.push(call);
      open.add(res);
      res.on('close', () => open.delete(res));
      respond(call, res, calls.length - 1);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    async close() {
      for (const res of open) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

export async function eventually<T>(probe: () => Promise<T | null | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
