import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../app/services.ts';
import { findOfferByRef } from '../../../projections/checkout/checkoutQueries.ts';
import { offerRef } from '../checkout/checkoutSchemas.ts';
import { RouteKey } from '../schemas.ts';
import { renderExamplePage } from './examplePage.ts';
import { renderCheckoutPage, renderMissingPage, type PageParams } from './renderCheckoutPage.ts';
import { sdkAssets, type Asset } from './sdkAssets.ts';

const FrameParam = z
  .string()
  .transform((v) => v.trim().toLowerCase().replace(/[\s_]+/g, '-'))
  .pipe(z.enum(['modal', 'slideout', 'bottom-sheet', 'embedded', '1']));

const PageQuery = z.object({
  mode: z.enum(['test', 'live', 'preview']).optional(),
  frame: FrameParam.optional(),
  size: z.enum(['sm', 'md', 'lg', 'full']).optional(),
  nonce: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/, 'nonce must be 16 to 64 URL-safe characters').optional(),
  origin: z
    .url({ protocol: /^https?$/ })
    .max(300)
    .transform((u) => new URL(u).origin)
    .optional(),
  promo: RouteKey.optional(),
});

/** Per-response CSP: the page's one script and one style carry the nonce; nothing else may run. */
function securityHeaders(reply: FastifyReply, services: Services, nonce: string): FastifyReply {
  return reply
    .header(
      'content-security-policy',
      [
        "default-src 'none'",
        `script-src 'nonce-${nonce}'`,
        `style-src 'nonce-${nonce}'`,
        "img-src 'self' https: data:",
        "connect-src 'self'",
        "form-action 'none'",
        "base-uri 'none'",
        `frame-ancestors ${services.config.FRAME_ANCESTORS}`,
      ].join('; '),
    )
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .header('permissions-policy', 'camera=(), microphone=(), geolocation=(), payment=(self)')
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8');
}

function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset, type: string) {
  reply
    .type(type)
    .header('cache-control', 'public, max-age=300, stale-while-revalidate=86400')
    .header('etag', asset.etag)
    .header('access-control-allow-origin', '*')
    .header('cross-origin-resource-policy', 'cross-origin')
    .header('vary', 'accept-encoding');
  if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
  if (/\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''))) return reply.header('content-encoding', 'gzip').send(asset.gzip);
  return reply.send(asset.body);
}

/** The hosted checkout page, the SDK scripts, and (outside production) the SDK example page. */
export async function hostedCheckoutRoutes(app: FastifyInstance, opts: { services: Services }): Promise<void> {
  const { services } = opts;
  const r = app.withTypeProvider<ZodTypeProvider>();
  // The page's own bucket, keyed by the buyer's address like the checkout API's (one bucket per route).
  const pageRateLimit = app.createRateLimit({
    max: services.config.CHECKOUT_RATE_LIMIT,
    timeWindow: services.config.CHECKOUT_RATE_LIMIT_WINDOW_SECONDS * 1000,
  });

  r.get('/sdk.js', { schema: { hide: true } }, async (request, reply) => sendAsset(request, reply, (await sdkAssets()).sdk, 'application/javascript; charset=utf-8'));
  r.get('/sdk.mjs', { schema: { hide: true } }, async (request, reply) => sendAsset(request, reply, (await sdkAssets()).esm, 'application/javascript; charset=utf-8'));

  r.get(
    '/checkout/:offer',
    {
      schema: {
        summary: 'Hosted checkout page (HTML) of an offer: ?mode=test|live|preview&frame=modal|slideout|bottom-sheet|embedded&nonce&origin&promo',
        params: z.object({ offer: RouteKey }),
        querystring: PageQuery,
      },
    },
    async (request, reply) => {
      const { offer } = request.params;
      const q = request.query;
      const params: PageParams = {
        offerRef: offer,
        mode: q.mode ?? null,
        frame: q.frame ? (q.frame === '1' ? 'modal' : q.frame) : null,
        nonce: q.nonce ?? null,
        parentOrigin: q.origin ?? null,
        promo: q.promo ?? null,
      };
      const cspNonce = randomBytes(18).toString('base64url');
      const { page } = await sdkAssets();
      securityHeaders(reply, services, cspNonce);
      const limit = await pageRateLimit(request);
      if (!limit.isAllowed && limit.isExceeded) {
        return reply
          .code(429)
          .header('retry-after', String(limit.ttlInSeconds))
          .send(renderMissingPage(params, cspNonce, page, { title: 'Too many requests', text: 'Please wait a moment, then reload the page.' }));
      }
      // Read here rather than through GET /api/checkout by app.inject: an injected request comes from
      // 127.0.0.1, so every buyer's page view counted against one shared rate-limit bucket.
      const found = await findOfferByRef(services.readStore, offer);
      if (!found || found.status !== 'published') return reply.code(404).send(renderMissingPage(params, cspNonce, page));
      const init = { offer: offerRef(found), theme: found.theme, pages: found.pages, firstPage: found.pages[0] ?? null };
      return reply.send(renderCheckoutPage(init, params, cspNonce, page));
    },
  );

  const examplesOn = services.config.SDK_EXAMPLES ? services.config.SDK_EXAMPLES === 'on' : services.config.NODE_ENV !== 'production';
  if (examplesOn) {
    r.get(
      '/examples/sdk',
      { schema: { hide: true, querystring: z.object({ offer: RouteKey.optional(), promo: RouteKey.optional(), second: RouteKey.optional() }) } },
      async (request, reply) => {
        const nonce = randomBytes(18).toString('base64url');
        return reply
          .type('text/html; charset=utf-8')
          .header(
            'content-security-policy',
            `default-src 'none'; script-src 'self' 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; frame-src 'self'; img-src 'self' data:; base-uri 'none'`,
          )
          .header('referrer-policy', 'no-referrer')
          .header('cache-control', 'no-store')
          .send(renderExamplePage({ nonce, ...request.query }));
      },
    );
  }
}
