import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

/** For HTML a route sends without its own policy: nothing loads from elsewhere, nobody frames it. */
export const DEFAULT_HTML_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/**
 * Strict headers on HTML (app.ts sets nosniff on every response). A page that must be framed (the hosted
 * checkout) sets its own Content-Security-Policy with its frame-ancestors, and that is kept.
 */
export const securityHeadersPlugin = fp(
  async (app: FastifyInstance) => {
    app.addHook('onSend', (_request, reply, payload, done) => {
      const type = String(reply.getHeader('content-type') ?? '');
      if (type.startsWith('text/html')) {
        const csp = reply.getHeader('content-security-policy');
        if (csp === undefined) {
          reply.header('content-security-policy', DEFAULT_HTML_CSP);
          reply.header('x-frame-options', 'DENY');
        } else if (!/(^|;)\s*frame-ancestors\s/.test(String(csp))) {
          // A policy without frame-ancestors lets any site frame the page (clickjacking): framing is opt-in.
          reply.header('content-security-policy', `${String(csp).replace(/;\s*$/, '')}; frame-ancestors 'none'`);
        }
        if (!reply.hasHeader('referrer-policy')) reply.header('referrer-policy', 'no-referrer');
      }
      done(null, payload);
    });
  },
  { name: 'security-headers' },
);
