import fastifyCors from '@fastify/cors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../platform/runtime/index.ts';
import { customerFromToken } from '../customerToken.ts';
import { requestFingerprint, withIdempotencyKey, type StoredResponse } from '../idempotency.ts';
import { assertRedirectsAllowed } from '../redirectOrigins.ts';
import { cancelSession, createSession, newSessionId, paySession, startSession } from '../sessionCommands.ts';
import { assertSessionTaxDetails, repriceSession } from '../sessionPricing.ts';
import { readSessionSnapshot, snapshotEtag, snapshotOf, type SessionSnapshot } from '../sessionSnapshot.ts';
import { paymentProviderFor, liveModeUnavailable, liveProviderOf, prepareLivePayment, settlePaymentIntent, loadStripeAccount } from '../../payments/index.ts';
import { invoiceDecider, invoiceStream } from '../domain/invoice.ts';
import { fold, DomainError, invalid } from '../../../platform/domain/index.ts';
import { checkoutSessionStream, type SessionCustomer } from '../domain/checkoutSession.ts';
import { evolveSessionView, type SessionView } from '../domain/sessionView.ts';
import { findOfferByRef, findSession } from '../checkoutQueries.ts';
import { loadOffer, offerUuidOfRef } from '../offerCommands.ts';
import { encodeRouteKey } from '../../../platform/lib/index.ts';
import { findOrAwaitStream, POSITION_HEADER, readModelsAtHead, STALE_HEADER, baseUrl, commandContext, notFound, validateHeadersInPlace, ErrorSchema } from '../../../platform/http/index.ts';
import { findPublishedOffer } from './publishedOffer.ts';
import { promoPriceForOffer } from '../../promos/index.ts';
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
  pricingInput,
  presentInvoice,
  presentSession,
  sessionOfferRef,
} from './checkoutSchemas.ts';

const SessionResponse = z.object({ session: SessionSchema, offer: OfferRefSchema });
const CreatedResponse = SessionResponse.extend({
  url: z.string().optional().describe("The hosted checkout page of this very session (a full page: send the buyer there); it honours the session's success_url and cancel_url."),
});
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
    allowedHeaders: ['Content-Type', 'Accept', 'Idempotency-Key', 'X-Request-Id', POSITION_HEADER],
    exposedHeaders: [
      'X-Request-Id',
      'Retry-After',
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-RateLimit-Reset',
      'Idempotent-Replayed',
      // Read-your-writes (plugins/readYourWrites.ts): a page sends the position back on its reads.
      POSITION_HEADER,
      STALE_HEADER,
      // The revision a write answered at, for a page to compare with a later GET's.
      'ETag',
    ],
    maxAge: 600,
  });
  const rateLimit = {
    max: services.config.CHECKOUT_RATE_LIMIT,
    timeWindow: services.config.CHECKOUT_RATE_LIMIT_WINDOW_SECONDS * 1000,
  };
  const nowSeconds = () => Math.floor(services.clock() / 1000);

  /**
   * Write routes find the session, and answer with it, from its streams: a session just created
   * may not have reached the read model yet (or projections may not run in this process).
   */
  async function sessionFromLog(id: string): Promise<SessionSnapshot> {
    const snapshot = await readSessionSnapshot(services.store, id);
    if (!snapshot) throw notFound('Checkout session');
    return snapshot;
  }

  /**
   * The offer a session is created for, from its stream (a command decides on the log: an offer
   * published a moment ago sells at once); the read model only for a route key allocated before
   * the offer counter named its stream.
   */
  async function offerForSession(request: FastifyRequest, ref: string) {
    const uuid = await offerUuidOfRef(services, ref);
    const state = uuid === null ? null : await loadOffer(commandContext(services, request), uuid);
    if (state && state.status !== 'none') {
      const { uuid: offerUuid, id, organizationId, slug, name, plan, currency, price, status } = state;
      // Read as optional: offers recorded before trials existed have none.
      const trial = (state as { trial_period_days?: unknown }).trial_period_days;

      return {
        uuid: offerUuid,
        route_key: encodeRouteKey(id),
        organization_id: organizationId,
        slug,
        name,
        plan,
        currency,
        price,
        status,
        trial_period_days: typeof trial === 'number' ? trial : null,
        coupon: state.coupon ?? null,
      };
    }
    const doc = await findOfferByRef(services.readStore, ref);
    return doc && { ...doc, coupon: doc.coupon ?? null };
  }

  /** The 201 of a session creation, from the session's first event: what its creator answered. */
  async function createdResponse(id: string, base: string): Promise<StoredResponse | null> {
    const [created] = await services.store.readStream(checkoutSessionStream(id));
    const snapshot = created ? snapshotOf([created], []) : null;
    if (!snapshot) return null;
    return createdBody(snapshot.view, base);
  }

  /** The 201: the session, its offer, and the hosted page of this session (which redirects as the session says). */
  function createdBody(view: SessionView, base: string): StoredResponse {
    const url = `${base}/checkout/${encodeURIComponent(view.offer.id)}?session=${encodeURIComponent(view.id)}${view.mode === 'live' ? '&mode=live' : ''}`;
    return { status: 201, body: { session: presentSession(view, nowSeconds()), offer: sessionOfferRef(view), url } };
  }

  /** A started session as a write answers it: with its invoice, and its revision as the ETag. */
  async function answerWithInvoice(reply: FastifyReply, id: string) {
    const after = await sessionFromLog(id);
    if (!after.view.invoice) throw new Error('started session without an invoice');
    reply.header('etag', snapshotEtag(after));
    return { session: presentSession(after.view, nowSeconds()), invoice: presentInvoice(after.view.invoice) };
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
    async (request, reply) => {
      const ref = (request.query.offer ?? request.query.offer_id)!;
      const offer = await findPublishedOffer(services, reply, ref);
      if (!offer || offer.status !== 'published') throw notFound('Offer');
      return { offer: offerRef(offer), theme: offer.theme, pages: offer.pages, firstPage: offer.pages[0] ?? null };
    },
  );

  app.post(
    '/sessions',
    {
      config: { rateLimit },
      // A seller's server may send its API key (or an app its OAuth token): then it sets any
      // success_url and cancel_url, as Stripe's secret key does. A wrong credential is a 401, never
      // a quiet downgrade to public. Browsers cannot send one: CORS does not allow the header.
      onRequest: (request, reply, done) => (request.headers.authorization === undefined ? done() : app.authenticate(request, reply, done)),
      // Checks Idempotency-Key without handing fastify a copy of every header (validateHeadersInPlace.ts).
      validatorCompiler: validateHeadersInPlace,
      schema: {
        summary:
          "Create a checkout session for a published offer (public; a seller's API key may be sent to set any success_url and cancel_url). Send Idempotency-Key to retry safely.",
        headers: IdempotencyHeaders,
        body: CreateSessionBody,
        response: { 201: CreatedResponse, ...errors },
      },
    },
    async (request, reply) => {
      const body = request.body;
      // A clock moves a subscription's time: the seller's tool, never a buyer's.
      if (body.test_clock !== undefined && !request.auth) {
        throw invalid('test_clock_needs_credential', "The test_clock field needs the seller's credential (an API key or OAuth token).", 'test_clock');
      }
      if (body.test_clock !== undefined && body.mode === 'live') {
        throw invalid('test_clock_live_mode', 'The test_clock field can only be used in test mode.', 'test_clock');
      }
      const redirects = { ...(body.success_url ? { success_url: body.success_url } : {}), ...(body.cancel_url ? { cancel_url: body.cancel_url } : {}) };
      // Found before the key is looked at, since the key lives in the offer's organization. An
      // unknown offer is refused without touching the key; whether it is still published is
      // checked inside, so a retry after the offer was archived replays the first answer.
      const offer = await offerForSession(request, (body.offer ?? body.offer_id)!);
      // A credential acts for its own organization only: another's offer is as unknown as on every bearer route.
      if (!offer || (request.auth && request.auth.organizationId !== offer.organization_id)) throw notFound('Offer');
      const create = async (sessionId: string, takeover = false): Promise<StoredResponse> => {
        // A takeover of a key whose first request died after creating its session: that session is the answer.
        const existing = takeover ? await createdResponse(sessionId, baseUrl(services, request)) : null;
        if (existing) return existing;
        if (offer.status !== 'published') throw notFound('Offer');
        // Without the seller's credential, only the origins the seller allowed (open redirects otherwise).
        if (!request.auth) await assertRedirectsAllowed(services.store, offer, redirects);
        // Live takes real money through the organization's own Stripe account; without one, say what to connect.
        if (body.mode === 'live' && (await loadStripeAccount(services.store, offer.organization_id)).status !== 'connected') {
          throw liveModeUnavailable();
        }
        const customer = await resolveCustomer(body.customer, offer.organization_id);
        // An unknown, ended or sold-out promo, or one for other offers, is recorded but leaves the offer's own price.
        // The promo's tier hangs on its participant count, a read model: let it reach the log's head first (bounded).
        if (body.promo) await readModelsAtHead(services);
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
        let created: Awaited<ReturnType<typeof createSession>>;
        try {
          created = await createSession(ctx, {
            id: sessionId,
            offer,
            customer,
            metadata: body.metadata ?? {},
            mode: body.mode,
            expiresIn: body.expires_in,
            promo: body.promo ?? null,
            promoPrice,
            redirects,
            ...(body.test_clock !== undefined ? { testClock: body.test_clock } : {}),
            discountCode: body.discount_code ?? null,
            couponId: offer.coupon,
          });
        } catch (error) {
          // The first request of this key, only slow, created it meanwhile.
          const raced = error instanceof DomainError && error.code === 'session_exists' ? await createdResponse(sessionId, baseUrl(services, request)) : null;
          if (raced) return raced;
          throw error;
        }
        const [event] = created.events;
        const view = event ? evolveSessionView(null, event) : null;
        if (!view) throw new Error('session not created');
        return createdBody(view, baseUrl(services, request));
      };
      const key = request.headers['idempotency-key'];
      const result = key
        ? await withIdempotencyKey(commandContext(services, request, offer.organization_id), offer.organization_id, key, requestFingerprint(body), create, {
            newResourceId: newSessionId,
            nowMs: services.clock,
            onRecordFailed: (error) => request.log.error({ err: error }, 'could not record the outcome of an idempotency key; its lease will settle it'),
          })
        : { ...(await create(newSessionId())), replayed: false };
      if (result.replayed) reply.header('idempotent-replayed', 'true');
      // A creation is the session stream's first event, revision 0 (a replay answers that same state).
      reply.header('etag', snapshotEtag({ sessionRevision: 0, invoiceRevision: null }));
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
    async (request, reply) => {
      const id = request.params.id;
      const doc = await findOrAwaitStream(services, reply, { stream: checkoutSessionStream(id), find: () => findSession(services.readStore, id) });
      if (!doc) throw notFound('Checkout session');
      reply.header('etag', snapshotEtag({ sessionRevision: doc.session_revision, invoiceRevision: doc.invoice_revision }));
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
    async (request, reply) => {
      const { view } = await sessionFromLog(request.params.id);
      const ctx = commandContext(services, request, view.organization_id);
      // Priced first: a refused code or detail (422) leaves the session as it was, not even started.
      await repriceSession(ctx, services, view.id, pricingInput(request.body));
      await startSession(ctx, view.id, customerInput(request.body));
      return answerWithInvoice(reply, view.id);
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
      const { view } = await sessionFromLog(request.params.id);
      const ctx = commandContext(services, request, view.organization_id);
      const payment = { card: request.body.card, customer: customerInput(request.body) };
      await repriceSession(ctx, services, view.id, pricingInput(request.body));
      await assertSessionTaxDetails(ctx, services, view.id);
      const outcome = await paySession(ctx, view.id, payment, paymentProviderFor, services.clock());
      if (outcome.status === 'declined') {
        return reply.code(402).send({ message: outcome.message, code: outcome.code, decline_code: outcome.declineCode });
      }
      return { ...(await answerWithInvoice(reply, view.id)), payment: outcome.card };
    },
  );

  app.post(
    '/sessions/:id/payment-intent',
    {
      config: { rateLimit },
      schema: {
        summary:
          "Live mode: the buyer starts paying. Starts the session (the invoice is created) and answers with a Stripe PaymentIntent's client secret and the seller's publishable key, for Stripe's Payment Element; the same PaymentIntent while it can still be confirmed.",
        params: SessionIdParams,
        body: StartBody,
        response: {
          200: z.object({
            session: SessionSchema,
            invoice: InvoiceSchema,
            payment_intent: z.object({ id: z.string(), client_secret: z.string(), publishable_key: z.string(), status: z.string() }),
          }),
          502: ErrorSchema,
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const { view } = await sessionFromLog(request.params.id);
      const ctx = commandContext(services, request, view.organization_id);
      await repriceSession(ctx, services, view.id, pricingInput(request.body));
      await assertSessionTaxDetails(ctx, services, view.id);
      const prepared = await prepareLivePayment(ctx, services, view.id, customerInput(request.body));
      return {
        ...(await answerWithInvoice(reply, view.id)),
        payment_intent: { id: prepared.paymentIntentId, client_secret: prepared.clientSecret, publishable_key: prepared.publishableKey, status: prepared.status },
      };
    },
  );

  app.post(
    '/sessions/:id/payment-intent/settle',
    {
      config: { rateLimit },
      schema: {
        summary:
          "Live mode, when the buyer returns from Stripe.js (or its redirect): reads the session's PaymentIntent from Stripe and records its outcome. 200 with the paid session, 202 while Stripe is still processing, 402 when the payment failed (the session stays open).",
        params: SessionIdParams,
        response: {
          200: z.object({ session: SessionSchema, invoice: InvoiceSchema, payment: z.object({ brand: z.string(), last4: z.string() }).nullable() }),
          202: z.object({ session: SessionSchema, status: z.string() }),
          402: ErrorSchema.extend({ decline_code: z.string().nullable().optional() }),
          502: ErrorSchema,
          ...errors,
        },
      },
    },
    async (request, reply) => {
      const { view } = await sessionFromLog(request.params.id);
      if (view.mode !== 'live' || !view.invoice) throw new DomainError('conflict', 'no_live_payment', 'This checkout session has no live payment to settle.');
      const ctx = commandContext(services, request, view.organization_id);
      const invoice = fold(invoiceDecider, (await services.store.readStream(invoiceStream(view.invoice.id))) as never);
      const paymentIntent = invoice.status === 'none' ? undefined : (invoice.paymentIntents ?? []).at(-1);
      const live = await liveProviderOf(services, view.organization_id);
      if (invoice.status !== 'paid' && paymentIntent && live) {
        const outcome = await settlePaymentIntent(ctx, view.organization_id, live, paymentIntent);
        if (outcome.status === 'declined') return reply.code(402).send({ message: outcome.message, code: outcome.code, decline_code: outcome.declineCode });
      }
      const after = await sessionFromLog(view.id);
      reply.header('etag', snapshotEtag(after));
      if (after.view.status !== 'completed' || !after.view.invoice) {
        return reply.code(202).send({ session: presentSession(after.view, nowSeconds()), status: after.view.invoice?.status === 'void' ? 'void' : 'processing' });
      }
      return { session: presentSession(after.view, nowSeconds()), invoice: presentInvoice(after.view.invoice), payment: after.view.payment };
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
    async (request, reply) => {
      const { view } = await sessionFromLog(request.params.id);
      const ctx = commandContext(services, request, view.organization_id);
      await cancelSession(ctx, view.id);
      const after = await sessionFromLog(view.id);
      reply.header('etag', snapshotEtag(after));
      return { session: presentSession(after.view, nowSeconds()) };
    },
  );
};
