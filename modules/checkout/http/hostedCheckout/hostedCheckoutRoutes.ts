import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../../platform/runtime/index.ts';
import { readSessionSnapshot } from '../../sessionSnapshot.ts';
import { findPublishedOffer } from '../publishedOffer.ts';
import { loadStripeAccount } from '../../../payments/index.ts';
import { loadOrganization, logoPath } from '../../../identity/index.ts';
import { offerRef } from '../checkoutSchemas.ts';
import { RouteKey, sdkAssets, type Asset } from '../../../../platform/http/index.ts';
import { renderExamplePage } from './examplePage.ts';
import { renderCheckoutPage, renderMissingPage, type PageError, type PageExtras, type PageParams } from './renderCheckoutPage.ts';
import { CATALOG_PLANS, type PlanDoc } from '../../../catalog/index.ts';
import { recurringTerms } from '../../domain/recurringTerms.ts';
import { isCountryCode, taxSettingsFor } from '../../../tax/index.ts';

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });
/** Every country a buyer may live in, by name: a seller collecting tax sells to all of them. */
const COUNTRIES = Array.from({ length: 26 * 26 }, (_, i) => String.fromCharCode(65 + Math.floor(i / 26), 65 + (i % 26)))
  .filter(isCountryCode)
  .map((code) => ({ code, name: regionNames.of(code) ?? code }))
  .sort((a, b) => a.name.localeCompare(b.name, 'en'));

const FrameParam = z
  .string()
  .transform((v) => v.trim().toLowerCase().replace(/[\s_]+/g, '-'))
  .pipe(z.enum(['modal', 'slideout', 'bottom-sheet', 'embedded', '1']));

const QueryFields = {
  mode: z.enum(['test', 'live', 'preview']),
  frame: FrameParam,
  size: z.enum(['sm', 'md', 'lg', 'full']),
  nonce: z.string().regex(/^[A-Za-z0-9_-]{16,64}$/, 'nonce must be 16 to 64 URL-safe characters'),
  origin: z
    .url({ protocol: /^https?$/ })
    .max(300)
    .transform((u) => new URL(u).origin),
  promo: RouteKey,
  /** A session created for this page (POST /api/checkout/sessions answers its url): the page opens it. */
  session: z.string().min(1).max(64).regex(/^cs_[A-Za-z0-9_]+$/, 'session must be a checkout session id'),
};

const PageQuery = z.object(QueryFields).partial();

/** One query field, or null when absent; a value that does not parse is noted in `bad` and left out. */
function field<T>(schema: z.ZodType<T>, value: unknown, name: string, bad: string[]): T | null {
  if (value === undefined) return null;
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  bad.push(name);
  return null;
}

/**
 * The page's parameters, each parsed on its own: the page is loaded into a frame where a JSON
 * error would show as raw text with no way to close it, so a bad value becomes an HTML error page
 * that can still greet the SDK when the nonce and origin are sound.
 */
function pageParams(offer: string, query: Record<string, unknown>): { params: PageParams; bad: string[] } {
  const bad: string[] = [];
  const frame = field(QueryFields.frame, query.frame, 'frame', bad);
  const params: PageParams = {
    offerRef: offer,
    mode: field(QueryFields.mode, query.mode, 'mode', bad),
    frame: frame === '1' ? 'modal' : frame,
    nonce: field(QueryFields.nonce, query.nonce, 'nonce', bad),
    parentOrigin: field(QueryFields.origin, query.origin, 'origin', bad),
    promo: field(QueryFields.promo, query.promo, 'promo', bad),
    session: field(QueryFields.session, query.session, 'session', bad),
  };
  // A session's page is the full page its creator sends the buyer to; a frame belongs to the SDK's flow.
  if (params.session != null && params.frame !== null) bad.push('session');
  field(QueryFields.size, query.size, 'size', bad);
  return { params, bad };
}

/**
 * What a live page lets through besides itself: Stripe.js's origin (scripts, its frames, its calls)
 * and, for Stripe's own, the hosts Stripe's CSP guide lists for the Payment Element (3-D Secure
 * frames on hooks.stripe.com, API calls to api.stripe.com). A test page gets none of it.
 */
export function stripeSources(stripeJsUrl: string): { script: string[]; frame: string[]; connect: string[] } {
  const origin = new URL(stripeJsUrl).origin;
  if (origin !== 'https://js.stripe.com') return { script: [origin], frame: [origin], connect: [origin] };
  return { script: [origin], frame: [origin, 'https://hooks.stripe.com'], connect: ['https://api.stripe.com'] };
}

/** Per-response CSP: the page's one script and one style carry the nonce; nothing else may run (but Stripe.js on a live page). */
function securityHeaders(reply: FastifyReply, services: Services, nonce: string, live = false): FastifyReply {
  const stripe = live ? stripeSources(services.config.STRIPE_JS_URL) : { script: [], frame: [], connect: [] };
  return reply
    .header(
      'content-security-policy',
      [
        "default-src 'none'",
        [`script-src 'nonce-${nonce}'`, ...stripe.script].join(' '),
        `style-src 'nonce-${nonce}'`,
        "img-src 'self' https: data:",
        ["connect-src 'self'", ...stripe.connect].join(' '),
        ...(stripe.frame.length ? [`frame-src ${stripe.frame.join(' ')}`] : []),
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

  async function checkoutPage(request: FastifyRequest, reply: FastifyReply, offer: string | null) {
    const { params, bad } = pageParams(offer ?? '', request.query as Record<string, unknown>);
    const cspNonce = randomBytes(18).toString('base64url');
    const { page } = await sdkAssets();
    securityHeaders(reply, services, cspNonce);
    const missing = (status: number, error: PageError) => reply.code(status).send(renderMissingPage(params, cspNonce, page, error));
    const limit = await pageRateLimit(request);
    if (!limit.isAllowed && limit.isExceeded) {
      reply.header('retry-after', String(limit.ttlInSeconds));
      return missing(429, { code: 'too_many_attempts', title: 'Too many requests', text: 'Please wait a moment, then reload the page.' });
    }
    if (bad.length) {
      return missing(400, {
        code: 'invalid_link',
        title: 'This checkout link is not valid',
        text: 'Please go back to the shop and try again.',
        detail: `The checkout page's ${bad.join(', ')} parameter${bad.length > 1 ? 's are' : ' is'} not valid.`,
      });
    }
    // Read here rather than through GET /api/checkout by app.inject: an injected request comes from
    // 127.0.0.1, so every buyer's page view would count against one shared rate-limit bucket.
    const found = offer !== null && RouteKey.safeParse(offer).success ? await findPublishedOffer(services, reply, offer) : null;
    if (!found || found.status !== 'published') {
      return missing(404, {
        code: 'offer_not_found',
        title: 'This checkout is not available',
        text: 'The offer may have ended or the link is wrong.',
        detail: `No published offer has the reference ${JSON.stringify((offer ?? request.url.slice('/checkout/'.length).split('?')[0]!).slice(0, 100))}.`,
      });
    }
    // The session the link names, from the log (it may be newer than the read models): of this offer only.
    const wanted = params.session ?? null;
    const session = wanted === null ? null : ((await readSessionSnapshot(services.store, wanted))?.view ?? null);
    if (wanted !== null && (!session || session.offer.uuid !== found.uuid)) {
      return missing(404, {
        code: 'session_not_found',
        title: 'This checkout is not available',
        text: 'The checkout link is wrong or belongs to another offer. Please go back to the shop and try again.',
      });
    }
    const init = {
      offer: offerRef(found),
      theme: found.theme,
      pages: found.pages,
      firstPage: found.pages[0] ?? null,
      // A session's own URLs win over the offer's (each one on its own).
      redirects: { success_url: session?.success_url ?? found.success_url, cancel_url: session?.cancel_url ?? found.cancel_url },
    };
    // The plan as the catalog has it now (the offer keeps its charges, not its interval).
    const plan = await services.readStore.get<PlanDoc>(CATALOG_PLANS, found.plan.plan_id);
    const now = Math.floor(services.clock() / 1000);
    const recurring = plan?.organization_id === found.organization_id ? recurringTerms(plan, found.price, found.currency, found.trial_period_days, now) : null;
    // Stripe.js is let in only where it is used: a live page of an organization with a connected account.
    const live = params.mode === 'live' && (await loadStripeAccount(services.store, found.organization_id)).status === 'connected';
    if (live) securityHeaders(reply, services, cspNonce, true);
    // The header names the seller (the offer's name heads the form below it).
    const organization = await loadOrganization(services.store, found.organization_id);
    const tax = await taxSettingsFor(services.store, found.organization_id);
    const extras: PageExtras = {
      recurring,
      seller: organization ? { name: organization.name, logoUrl: organization.logo ? logoPath(organization.id, organization.logo) : null } : null,
      // A promotion on the link may lower today's charge: the script says it once the session has it.
      today: params.promo ? null : found.price,
      shopUrl: found.shop_url ?? null,
      stripeJsUrl: live ? services.config.STRIPE_JS_URL : null,
      tax: tax.enabled ? { countries: COUNTRIES, postalCodeCountries: tax.postal_code_countries } : null,
    };
    return reply.send(renderCheckoutPage(init, params, cspNonce, page, extras));
  }

  r.get(
    '/checkout/:offer',
    {
      // Bad values are answered by the page itself (an HTML error page), never by a JSON 400/422.
      attachValidation: true,
      schema: {
        summary: 'Hosted checkout page (HTML) of an offer: ?mode=test|live|preview&frame=modal|slideout|bottom-sheet|embedded&nonce&origin&promo',
        params: z.object({ offer: z.string() }),
        querystring: PageQuery,
      },
    },
    async (request, reply) => checkoutPage(request, reply, request.params.offer),
  );
  // Longer than the router's maxParamLength, or with more path segments: no offer has such a reference.
  r.get('/checkout/*', { schema: { hide: true } }, async (request, reply) => checkoutPage(request, reply, null));

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
