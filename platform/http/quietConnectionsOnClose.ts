import type { Socket } from 'node:net';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** Node's own link from a socket to the response it is writing (null between requests). */
type HttpSocket = Socket & { _httpMessage?: ServerResponse | null };

/**
 * Lets `app.close()` end once the requests in flight are answered, whoever holds a connection.
 *
 * Node's `server.close()` waits, with no timer, for every connection it counts as busy, such as
 * one that has not sent a whole request (a preconnected socket), which would keep SIGTERM from
 * ever finishing; and a response in flight says `keep-alive`, holding the close for that timeout.
 * So on close: connections with no response under way end now, new ones are refused, and each
 * response in flight says `Connection: close` and ends its socket.
 */
export function quietConnectionsOnClose(app: FastifyInstance): void {
  const open = new Set<HttpSocket>();
  let closing = false;
  app.server.on('connection', (socket: HttpSocket) => {
    if (closing) {
      socket.destroy();
      return;
    }
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  });
  app.addHook('preClose', (done) => {
    closing = true;
    for (const socket of open) {
      const response = socket._httpMessage;
      if (!response) socket.destroy();
      else if (!response.headersSent) response.setHeader('connection', 'close');
      else response.once('finish', () => socket.end());
    }
    done();
  });
}
