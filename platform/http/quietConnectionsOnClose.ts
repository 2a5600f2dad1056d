import type { Socket } from 'node:net';
import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

/** Node's own link from a socket to the response it is writing (null between requests). */
type HttpSocket = Socket & { _httpMessage?: ServerResponse | null };

/**
 * Lets `app.close()` end once the requests in flight are answered, whoever holds a connection.
 *
 * Node's `server.close()` ends the connections it counts as idle and waits for the rest, with the
 * timer that would expire them stopped. It counts a connection that has not yet sent a whole
 * request as busy (a browser's preconnected socket, a client gone quiet mid-headers), so one such
 * socket would keep SIGTERM from ever finishing; and a request in flight at close would be
 * answered `Connection: keep-alive`, leaving its socket open, and the close waiting, for the
 * keep-alive timeout. So on close: connections with no response under way end now, new ones are
 * refused, and each response in flight says `Connection: close` and ends its socket.
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
