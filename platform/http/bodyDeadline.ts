import { Socket } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { answerClientError } from './errors.ts';

const deadlines = new WeakMap<FastifyRequest, NodeJS.Timeout>();

/**
 * REQUEST_TIMEOUT_MS for each request's body. Node's own request timeout is one value for the
 * whole server, and a file upload may rightly take far longer than any other body: the server's
 * is set to the upload allowance, and this deadline holds every other request (and an upload
 * whose caller is not yet known) to the short one. A body still arriving at the deadline gets the
 * same 408 and closed connection as from Node; one whose answer was already sent (a 401 before
 * the body was read) just loses its connection.
 */
export function bodyDeadline(app: FastifyInstance, timeoutMs: number): void {
  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    // Nothing to wait for (no body, or all of it here), or no connection to cut (app.inject's requests have none).
    const length = raw.headers['content-length'];
    const noBody = raw.headers['transfer-encoding'] === undefined && (length === undefined || length === '0');
    if (noBody || raw.complete || !(raw.socket instanceof Socket)) return done();
    const timer = setTimeout(() => {
      const socket = raw.socket;
      if (raw.complete || socket.destroyed) return;
      if (reply.sent || reply.raw.headersSent) return void socket.destroy();
      answerClientError.call(app, Object.assign(new Error('The request did not arrive in time.'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket);
    }, timeoutMs);
    timer.unref();
    deadlines.set(request, timer);
    const clear = () => clearTimeout(timer);
    raw.once('close', clear);
    raw.once('end', clear);
    done();
  });
}

/** For a route that takes long uploads, once it knows its caller: only the server's upload allowance applies. */
export function liftBodyDeadline(request: FastifyRequest): void {
  clearTimeout(deadlines.get(request));
  deadlines.delete(request);
}
