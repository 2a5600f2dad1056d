import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { expect } from 'vitest';
import { buildApp } from '../../app/httpApp.ts';
import type { Services } from '../../platform/runtime/index.ts';

export type LoggedApp = {
  app: FastifyInstance;
  url: string;
  /** Every line the service's logger wrote, in order. */
  lines: string[];
  /** The lines one request writes, once its "request completed" line (written after the answer) is out. */
  logOf(path: string, init?: RequestInit): Promise<string[]>;
};

/** The HTTP app with its own pino logger at info level, as `serve` configures it, writing to lines we read. */
export async function loggedApp(services: Services): Promise<LoggedApp> {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter((l) => l !== ''));
      done();
    },
  });
  const app = await buildApp(services, { logger: { level: 'info', stream } });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    app,
    url,
    lines,
    async logOf(path, init = {}) {
      const before = lines.length;
      const response = await fetch(`${url}${path}`, { ...init, headers: { accept: 'application/json', ...(init.headers as Record<string, string> | undefined) } });
      await response.arrayBuffer();
      await expect.poll(() => lines.slice(before).some((l) => l.includes('request completed')), { timeout: 10_000 }).toBe(true);
      return lines.slice(before);
    },
  };
}
