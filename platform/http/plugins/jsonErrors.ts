import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { STATUS_CODES } from 'node:http';

/**
 * A safety net for the error contract: every 4xx and 5xx body of the API is JSON with a message
 * (HTML pages keep their HTML error pages). Plugins
 * that answer on their own (a CORS preflight refused as text/plain, say) are brought into line
 * here; our own handlers already send JSON and pass through untouched.
 */
export const jsonErrorsPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onSend', (request, reply, payload, done) => {
      if (reply.statusCode < 400 || request.method === 'HEAD') return done(null, payload);
      const type = String(reply.getHeader('content-type') ?? '');
      // JSON already, or an HTML page a browser is meant to show (the hosted checkout's 404 page).
      if (type.startsWith('application/json') || type.includes('+json') || type.startsWith('text/html')) return done(null, payload);
      const text = typeof payload === 'string' ? payload.trim() : '';
      const message = text && text.length <= 200 && !text.includes('<') ? text : (STATUS_CODES[reply.statusCode] ?? 'Error');
      reply.type('application/json; charset=utf-8');
      reply.removeHeader('content-length');
      done(null, JSON.stringify({ message: message.endsWith('.') ? message : `${message}.`, code: reply.statusCode >= 500 ? 'server_error' : 'bad_request' }));
    });
  },
  { name: 'json-errors' },
);
