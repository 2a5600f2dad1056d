import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import { stripeJsSources } from '../stripeJs.ts';

/**
 * Sends a hosted page a buyer reaches by a link (the card page of a failed renewal, the customer
 * portal): no cache, no index, no frame, nothing loaded from elsewhere, and the Referer only to
 * this origin, so the page's forms carry an Origin the same-origin check can read (under
 * no-referrer browsers send `Origin: null`). Only a page given `stripeJsUrl` runs a script: its
 * own and Stripe.js, which frames the card fields and the bank's check. `images` lets it show
 * this origin's images (the seller's logo).
 */
export function sendHostedPage(
  reply: FastifyReply,
  status: number,
  render: (nonce: string) => string,
  { stripeJsUrl = null, images = false }: { stripeJsUrl?: string | null; images?: boolean } = {},
): FastifyReply {
  const nonce = randomBytes(18).toString('base64url');
  const stripeJs = stripeJsUrl ? stripeJsSources(stripeJsUrl) : null;
  const policy = [
    "default-src 'none'",
    ...(stripeJs ? [[`script-src 'nonce-${nonce}'`, ...stripeJs.script].join(' ')] : []),
    `style-src 'nonce-${nonce}'`,
    ...(images ? ["img-src 'self'"] : []),
    ...(stripeJs ? [["connect-src 'self'", ...stripeJs.connect].join(' '), `frame-src ${stripeJs.frame.join(' ')}`] : []),
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'same-origin')
    .header('x-robots-tag', 'noindex')
    .header('x-frame-options', 'DENY')
    .header('permissions-policy', 'camera=(), microphone=(), geolocation=(), payment=()')
    .header('content-security-policy', policy)
    .type('text/html; charset=utf-8')
    .send(render(nonce));
}
