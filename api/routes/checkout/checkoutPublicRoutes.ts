import fastifyCors from '@fastify/cors';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../app/services.ts';
import { customerFromToken } from '../../../commands/checkout/customerToken.ts';
import { requestFingerprint, withIdempotencyKey, type StoredResponse } from '../../../commands/checkout/idempotency.ts';
import { cancelSession, createSession, paySession, startSession } from '../../../commands/checkout/sessionCommands.ts';
import { paymentProviderFor } from '../../../commands/payments/paymentProviders.ts';
import type { SessionCustomer } from '../../../domain/checkout/checkoutSession.ts';
import { DomainError } from '../../../domain/shared/domainError.ts';
import type { SessionDoc } from '../../../projections/checkout/checkoutProjection.ts';
import { findOfferByRef, findSession } from '../../../projections/checkout/checkoutQueries.ts';
import { promoPriceForOffer } from '../../../projections/promos/promoQueries.ts';
import { afterWrite, commandContext } from '../../context.ts';
import { notFound } from '../../errors.ts';
import { validateHeadersInPlace } from '../../validateHeadersInPlace.ts';
import { ErrorSchema } from '../schemas.ts';
import {
  CheckoutQuery,
  CreateSessionBody,
  IdempotencyHeaders,
  InvoiceSchema,
  OfferRefSchema,
  PayBody,
  SessionIdParams,
  SessionSchema,
  StartBody,
  customerInput,
  offerRef,
  presentInvoice,
  presentSession,
  sessionOfferRef,
} from './checkoutSchemas.ts';

const SessionResponse = z.object({ session: SessionSchema, offer: OfferRefSchema });
const errors = { 400: ErrorSchema, 404: ErrorSchema, 409: ErrorSchema, 410: ErrorSchema, 422: ErrorSchema, 429: ErrorSchema };

/**
 * The public checkout routes (no bearer): what a custom surface and the hosted checkout page
 * call from a browser. Registered under the /api/checkout prefix with CORS open to any origin
 * (no cookies or credentials are involved) and a per-address rate limit on every route.
 */
export const checkoutPublicRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  await app.register(fastifyCors, {
    origin: '*',
    methods: ['GET', 'POST', 'OPTIONS'],
    allowedHeaders: ['Content-Type', 'Accept', 'Idempotency-Key', 'X-Request-Id'],
    exposedHeaders: [
      'X-Request-Id',
      'Retry-After',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'Idempotent-Replayed',
    ],
    maxAge: 600,
  });
  const rateLimit = {
    max: services.config.CHECKOUT_RATE_LIMIT,
    timeWindow: services.config.CHECKOUT_RATE_LIMIT_WINDOW_SECONDS * 1000,
  };
  const nowSeconds = () => Math.floor(services.clock() / 1000);

  /** The session as the read model holds it once this request's events are applied. */
  async function readSession(id: string, position: number | null): Promise<SessionDoc> {
    await afterWrite(services, position);
    const doc = await findSession(services.readStore, id);
    if (!doc) throw notFound('Checkout session');
    return doc;
  }

  async function existingSession(id: string): Promise<SessionDoc> {
    const doc = await findSession(services.readStore, id);
    if (!doc) throw notFound('Checkout session');
    return doc;
  }

  // OPTIONS /api/checkout itself: the prefix's wildcard preflight route does not cover it.
  app.options('/', { schema: { hide: true } }, async (_request, reply) => reply.code(204).send());

  app.get(
    '/',
    {
      config: { rateLimit },
      schema: {
        summary: 'Checkout initialization data of a published offer (public).',
        querystring: CheckoutQuery,
        response: {
          200: z.object({
            offer: OfferRefSchema,
            theme: z.record(z.string(), z.unknown()),
            pages: z.array(z.record(z.string(), z.unknown())),
            firstPage: z.record(z.string(), z.unknown()).nullable(),
          }),
          ...errors,
        },
      },
    },
    async (request) => {
      const ref = (request.query.offer ?? request.query.offer_id)!;
      const offer = await findOfferByRef(services.readStore, ref);
      if (!offer || offer.status !== 'published') throw notFound('Offer');
      return { offer: offerRef(offer), theme: offer.theme, pages: offer.pages, firstPage: offer.pages[0] ?? null };
    },
  );

  app.post(
    '/sessions',
    {
      config: { rateLimit },
      // Checks Idempotency-Key without handing fastify a copy of every header (validateHeadersInPlace.ts).
      validatorCompiler: validateHeadersInPlace,
      schema: {
        summary: 'Create a checkout session for a published offer (public). Send Idempotency-Key to retry safely.',
        headers: IdempotencyHeaders,
        body: CreateSessionBody,
        response: { 201: SessionResponse, ...errors },
      },
    },
    async (request, reply) => {
      const body = request.body;
      // Found before the key is looked at, since the key lives in the offer's organization. An
      // unknown offer is refused without touching the key; whether it is still published is
      // checked inside, so a retry after the offer was archived replays the first answer.
      const offer = await findOfferByRef(services.readStore, (body.offer ?? body.offer_id)!);
      if (!offer) throw notFound('Offer');
      const create = async (): Promise<StoredResponse> => {
        if (offer.status !== 'published') throw notFound('Offer');
        if (body.mode === 'live' && !paymentProviderFor('live')) {
          throw new DomainError('invalid', 'live_mode_unavailable', 'Live mode needs a configured payment provider; none is configured.', {
            mode: ['Live mode needs a configured payment provider; none is configured.'],
          });
        }
        const customer = await resolveCustomer(body.customer, offer.organization_id);
        // An unknown, ended or sold-out promo, or one for other offers, is recorded but leaves the offer's own price.
        const promoPrice = body.promo
          ? await promoPriceForOffer(services.readStore, {
              slug: body.promo,
              organizationId: offer.organization_id,
              offerSlug: offer.slug,
              offerAmount: offer.price,
              nowMs: services.clock(),
            })
          : null;
        const ctx = commandContext(services, request, offer.organization_id);
        const { position, state } = await createSession(ctx, {
          offer,
          customer,
          metadata: body.metadata ?? {},
          mode: body.mode,
          expiresIn: body.expires_in,
          promo: body.promo ?? null,
          promoPrice,
        });
        if (state.status === 'none') throw new Error('session not created');
        const doc = await readSession(state.session.id, position);
        return { status: 201, body: { session: presentSession(doc, nowSeconds()), offer: offerRef(offer) } };
      };
      const key = request.headers['idempotency-key'];
      const result = key
        ? await withIdempotencyKey(commandContext(services, request, offer.organization_id), offer.organization_id, key, requestFingerprint(body), create)
        : { ...(await create()), replayed: false };
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(result.status).send(result.body as z.infer<typeof SessionResponse>);
    },
  );

  async function resolveCustomer(
    customer: { email?: string; name?: string; token?: string } | undefined,
    organizationId: string,
  ): Promise<SessionCustomer | null> {
    if (!customer) return null;
    if (customer.token !== undefined) return customerFromToken(customer.token, services.secrets.jwt, nowSeconds(), organizationId);
    return { email: customer.email ?? null, name: customer.name ?? null, user_id: null };
  }

  app.get(
    '/sessions/:id',
    {
      config: { rateLimit },
      schema: {
        summary: 'A checkout session by its id (public: the id is unguessable).',
        params: SessionIdParams,
        response: { 200: SessionResponse, ...errors },
      },
    },
    async (request) => {
      const doc = await existingSession(request.params.id);
      return { session: presentSession(doc, nowSeconds()), offer: sessionOfferRef(doc) };
    },
  );

  app.post(
    '/sessions/:id/start',
    {
      config: { rateLimit },
      schema: {
        summary:
          'The buyer starts checking out: creates the invoice (once; a second start returns the same invoice, and records a changed email or name while unpaid).',
        params: SessionIdParams,
        body: StartBody,
        response: { 200: z.object({ session: SessionSchema, invoice: InvoiceSchema }), ...errors },
      },
    },
    async (request) => {
      const doc = await existingSession(request.params.id);
      const ctx = commandContext(services, request, doc.organization_id);
      const { position } = await startSession(ctx, doc.id, customerInput(request.body));
      const after = await readSession(doc.id, position);
      if (!after.invoice) throw new Error('invoice not projected');
      return { session: presentSession(after, nowSeconds()), invoice: presentInvoice(after.invoice) };
    },
  );

  app.post(
    '/sessions/:id/pay',
    {
      config: { rateLimit },
      schema: {
        summary:
          'Pay the session by card, with the email and name as the buyer last typed them. Test mode takes Stripe test cards; a declined card answers 402 and the session stays open.',
        params: SessionIdParams,
        body: PayBody,
        response: {
          200: z.object({
            session: SessionSchema,
            invoice: InvoiceSchema,
            payment: z.object({ brand: z.string(), last4: z.string() }),
          }),
          402: ErrorSchema.extend({ decline_code: z.string().nullable().optional() }),
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const doc = await existingSession(request.params.id);
      const ctx = commandContext(services, request, doc.organization_id);
      const payment = { card: request.body.card, customer: customerInput(request.body) };
      const outcome = await paySession(ctx, doc.id, payment, paymentProviderFor, services.clock());
      if (outcome.status === 'declined') {
        await afterWrite(services, outcome.position);
        return reply.code(402).send({ message: outcome.message, code: outcome.code, decline_code: outcome.declineCode });
      }
      const after = await readSession(doc.id, outcome.position);
      if (!after.invoice) throw new Error('invoice not projected');
      return { session: presentSession(after, nowSeconds()), invoice: presentInvoice(after.invoice), payment: outcome.card };
    },
  );

  app.post(
    '/sessions/:id/cancel',
    {
      config: { rateLimit },
      schema: {
        summary: 'The buyer dismissed the checkout: recorded; the session stays open until it expires.',
        params: SessionIdParams,
        response: { 200: z.object({ session: SessionSchema }), ...errors },
      },
    },
    async (request) => {
      const doc = await existingSession(request.params.id);
      const ctx = commandContext(services, request, doc.organization_id);
      const { position } = await cancelSession(ctx, doc.id);
      return { session: presentSession(await readSession(doc.id, position), nowSeconds()) };
    },
  );
};
