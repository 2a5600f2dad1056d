import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DomainError } from '../../../platform/domain/index.ts';
import type { EventMetadata } from '../../../platform/eventStore/index.ts';
import type { CommandContext } from '../../../platform/es/index.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { addressLines, cookieValue, crossSite, loadOrganization, logoPath } from '../../identity/index.ts';
import { loadStripeAccount, PaymentProviderError, paymentProviderFor, prepareCardSetup, readCardSetup, sendHostedPage } from '../../payments/index.ts';
import { enqueueBuyerEmail, publicBaseUrl } from '../../receipts/index.ts';
import { cancelSubscription, declineInPlainWords, isEnded, loadSubscription, parseCard, reactivateSubscription, replaceCard, switchPlan, useSavedCard, type Active } from '../../subscriptions/index.ts';
import { type OpenVisit, csrfMatches, csrfTokenOfVisit, endVisit, issuePortalLink, MAGIC_LINK_SECONDS, peekPortalLink, portalLinkPath, portalPath, redeemPortalLink, visitOfCookie, VISIT_SECONDS } from '../portalAccess.ts';
import { ownedBy, portalBenefits, portalPurchases, portalSubscription, portalSubscriptions } from '../portalContents.ts';
import { buyerByEmail, buyerById, type PortalBuyer } from '../portalCustomers.ts';
import { loadPortalSettings } from '../portalSettings.ts';
import { renderCardForm, renderGone, renderMessage, renderOpen, renderPortal, renderSignIn, type Seller } from './renderPortal.ts';

const COOKIE = 'portal_visit';

/** What a finished action says on the page it returns to: fixed words, so the query string carries no text of anyone's. */
const NOTICES: Record<string, { kind: 'ok' | 'error'; text: string }> = {
  canceled: { kind: 'ok', text: 'Your subscription is canceled at the end of the period. You keep access until then.' },
  kept: { kind: 'ok', text: 'Your subscription continues.' },
  card_saved: { kind: 'ok', text: 'Your new card is saved. Any amount due is charged to it shortly.' },
  switched: { kind: 'ok', text: 'Your plan is changed.' },
  not_allowed: { kind: 'error', text: 'This cannot be done here. Please contact the seller.' },
  refused: { kind: 'error', text: 'This subscription cannot be changed now.' },
};

/** A portal page: the hosted page's headers, with the seller's logo, and Stripe.js on a live card form only. */
function send(reply: FastifyReply, status: number, render: (nonce: string) => string, stripeJsUrl: string | null = null) {
  return sendHostedPage(reply, status, render, { stripeJsUrl, images: true });
}

const cookieOf = (request: FastifyRequest) => cookieValue(request, COOKIE);

/** HttpOnly, SameSite=Strict (no request from another site carries it), scoped to this organization's portal. */
function setVisitCookie(request: FastifyRequest, reply: FastifyReply, organizationId: string, value: string, maxAge: number) {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  reply.header('set-cookie', `${COOKIE}=${value}; Path=${portalPath(organizationId)}; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure}`);
}

/** The events of a buyer's portal actions name the customer as their actor. */
function customerContext(services: Services, request: FastifyRequest, visit: OpenVisit): CommandContext {
  const metadata: EventMetadata = {
    correlation_id: request.id,
    actor: { type: 'customer', id: visit.customer.id },
    organization_id: visit.organization_id,
    occurred_at: Math.floor(services.clock() / 1000),
  };
  return { store: services.store, metadata };
}

function publicContext(services: Services, request: FastifyRequest, organizationId: string): CommandContext {
  return {
    store: services.store,
    metadata: { correlation_id: request.id, actor: { type: 'public', ip: request.ip }, organization_id: organizationId, occurred_at: Math.floor(services.clock() / 1000) },
  };
}

const formBody = (body: unknown): Record<string, string> => (typeof body === 'object' && body !== null ? (body as Record<string, string>) : {});

/**
 * Sign-in requests per address: a few links an hour, whoever asks. Keyed by a hash, so the
 * limiter holds no address; the answer to a refused request is a 429 for any address alike.
 */
const LINKS_PER_ADDRESS = {
  max: 5,
  timeWindow: 60 * 60_000,
  keyGenerator: (request: FastifyRequest) => {
    const email = formBody(request.body).email ?? '';
    const org = (request.params as { organization?: string }).organization ?? '';
    return `portal-sign-in:${createHash('sha256').update(`${org}\n${email.trim().toLowerCase()}`).digest('hex')}`;
  },
};
/** And per client address, against one sender walking through many buyers' addresses. */
const SIGN_INS_PER_IP = { max: 20, timeWindow: 15 * 60_000 };

const STRIPE_UNREACHABLE = 'The payment service could not be reached. Please try again in a moment.';

const EmailField = z.string().trim().max(254).regex(/^[^\s@]+@[^\s@]+\.[^\s@]+$/);

/**
 * The hosted customer portal (`/portal/<organization>`): plain HTML and same-origin forms, no
 * script and no third party; every form carries the visit's CSRF token.
 */
export async function portalPageRoutes(app: FastifyInstance, opts: { services: Services }): Promise<void> {
  const { services } = opts;
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4096 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  const r = app.withTypeProvider<ZodTypeProvider>();
  const Org = z.object({ organization: z.string().max(64) });
  const nowSeconds = () => Math.floor(services.clock() / 1000);
  // Checked in the handler, after the body is read: a route's own limit (per client address) runs first.
  const linksPerAddress = app.createRateLimit(LINKS_PER_ADDRESS);

  async function sellerOf(organizationId: string): Promise<Seller | null> {
    const organization = await loadOrganization(services.store, organizationId);
    if (!organization) return null;
    const logoUrl = organization.logo ? logoPath(organization.id, organization.logo) : null;
    return { name: organization.name, address: addressLines(organization.address), logoUrl, brandColor: organization.brand_color };
  }

  const notFoundPage = (reply: FastifyReply) =>
    send(reply, 404, (nonce) => renderMessage({ name: 'Customer portal', address: [], logoUrl: null }, 'Page not found', 'There is no such page. Please check the address.', null, nonce));

  /** The visit and the buyer behind the request's cookie, or null (no cookie, ended, expired, another organization's). */
  async function signedIn(request: FastifyRequest, organizationId: string): Promise<{ visit: OpenVisit; buyer: PortalBuyer } | null> {
    const visit = await visitOfCookie(services.store, organizationId, cookieOf(request), nowSeconds());
    if (!visit) return null;
    const buyer = await buyerById(services, organizationId, visit.customer.id);
    return buyer ? { visit, buyer } : null;
  }

  /** A signed-in form post: same origin, the visit's cookie, and its CSRF token. Otherwise null (the caller answers 403). */
  async function signedInPost(request: FastifyRequest, organizationId: string) {
    if (crossSite(services, request)) return null;
    const signed = await signedIn(request, organizationId);
    if (!signed || !csrfMatches(services.secrets.jwt, signed.visit.cookie, formBody(request.body).csrf)) return null;
    return signed;
  }

  const refused = (reply: FastifyReply, seller: Seller, organizationId: string) =>
    send(reply, 403, (nonce) => renderMessage(seller, 'Please sign in again', 'Your visit has ended, or this form did not come from this page.', { href: portalPath(organizationId), label: 'Sign in' }, nonce));

  r.get(
    '/portal/:organization',
    { schema: { summary: 'Customer portal (HTML): the sign-in form, or the signed-in buyer’s purchases and subscriptions', params: Org, querystring: z.object({ done: z.string().max(32).optional() }) } },
    async (request, reply) => {
      const organizationId = request.params.organization;
      const seller = await sellerOf(organizationId);
      if (!seller) return notFoundPage(reply);
      const settings = await loadPortalSettings(services.store, organizationId);
      const signed = await signedIn(request, organizationId);
      if (!signed) return send(reply, 200, (nonce) => renderSignIn(seller, `${portalPath(organizationId)}/sign-in`, settings.magic_link ? 'form' : 'disabled', nonce));
      const { visit, buyer } = signed;
      const [subscriptions, purchases, benefits] = await Promise.all([
        portalSubscriptions(services, organizationId, buyer, settings),
        portalPurchases(services, organizationId, buyer),
        portalBenefits(services, organizationId, buyer),
      ]);
      const done = request.query.done;
      return send(reply, 200, (nonce) =>
        renderPortal(
          {
            seller,
            portalPath: portalPath(organizationId),
            customer: { email: buyer.email, name: buyer.name },
            csrf: csrfTokenOfVisit(services.secrets.jwt, visit.cookie),
            settings,
            returnUrl: visit.return_url,
            notice: done && Object.hasOwn(NOTICES, done) ? NOTICES[done]! : null,
            subscriptions,
            purchases,
            benefits,
          },
          nonce,
        ),
      );
    },
  );

  r.post(
    '/portal/:organization/sign-in',
    { config: { rateLimit: SIGN_INS_PER_IP }, schema: { summary: 'Email a one-time sign-in link to the buyer (the portal’s sign-in form)', params: Org } },
    async (request, reply) => {
      const organizationId = request.params.organization;
      const seller = await sellerOf(organizationId);
      if (!seller) return notFoundPage(reply);
      if (crossSite(services, request)) return refused(reply, seller, organizationId);
      const settings = await loadPortalSettings(services.store, organizationId);
      const action = `${portalPath(organizationId)}/sign-in`;
      if (!settings.magic_link) return send(reply, 403, (nonce) => renderSignIn(seller, action, 'disabled', nonce));
      const parsed = EmailField.safeParse(formBody(request.body).email ?? '');
      if (!parsed.success) return send(reply, 422, (nonce) => renderSignIn(seller, action, 'invalid', nonce, String(formBody(request.body).email ?? '').slice(0, 254)));
      const email = parsed.data;
      const limit = await linksPerAddress(request);
      if (!limit.isAllowed && limit.isExceeded) {
        return send(reply.header('retry-after', String(limit.ttlInSeconds)), 429, (nonce) =>
          renderMessage(seller, 'Too many requests', 'Too many sign-in links were asked for this address. Please try again later.', null, nonce),
        );
      }
      // The answer leaves before the address is looked up: it is the same, and as quick, whether the
      // address bought here or not. A crash before the email is queued loses it; the buyer asks again.
      // The link's origin is the configured one, never the request's Host: a forged Host would
      // otherwise send the buyer's link to the forger's site.
      const origin = publicBaseUrl(services.config);
      const ctx = publicContext(services, request, organizationId);
      setImmediate(() => {
        sendSignInLink(services, ctx, seller, organizationId, email, origin).catch((error: unknown) => request.log.error({ err: error }, 'portal sign-in link not queued'));
      });
      return send(reply, 200, (nonce) => renderSignIn(seller, action, 'sent', nonce, email));
    },
  );

  const TokenParams = z.object({ organization: z.string().max(64), token: z.string().max(64) });

  r.get(
    '/portal/:organization/session/:token',
    { config: { secretPath: true }, schema: { summary: 'Customer portal (HTML): the page of a one-time link, whose button signs the buyer in', params: TokenParams } },
    async (request, reply) => {
      const { organization: organizationId, token } = request.params;
      const seller = await sellerOf(organizationId);
      if (!seller) return notFoundPage(reply);
      const link = await peekPortalLink(services.store, token);
      const usable = link !== null && link.status === 'issued' && link.organization_id === organizationId && nowSeconds() < link.expires_at;
      if (!usable) return send(reply, 404, (nonce) => renderGone(seller, portalPath(organizationId), nonce));
      return send(reply, 200, (nonce) => renderOpen(seller, portalLinkPath(organizationId, token), nonce));
    },
  );

  r.post(
    '/portal/:organization/session/:token',
    { config: { secretPath: true }, schema: { summary: 'Spend a one-time portal link and start the buyer’s visit (the link page’s button)', params: TokenParams } },
    async (request, reply) => {
      const { organization: organizationId, token } = request.params;
      const seller = await sellerOf(organizationId);
      if (!seller) return notFoundPage(reply);
      // Only the link's own page may spend it: no other site signs a browser into a buyer's portal.
      if (crossSite(services, request)) return refused(reply, seller, organizationId);
      const link = await peekPortalLink(services.store, token);
      if (!link || link.organization_id !== organizationId) return send(reply, 404, (nonce) => renderGone(seller, portalPath(organizationId), nonce));
      try {
        const { cookie } = await redeemPortalLink(publicContext(services, request, organizationId), organizationId, token);
        setVisitCookie(request, reply, organizationId, cookie, VISIT_SECONDS);
      } catch (error) {
        if (error instanceof DomainError && error.kind === 'gone') return send(reply, 404, (nonce) => renderGone(seller, portalPath(organizationId), nonce));
        throw error;
      }
      return reply.header('cache-control', 'no-store').redirect(portalPath(organizationId), 303);
    },
  );

  r.post('/portal/:organization/sign-out', { schema: { summary: 'End the buyer’s portal visit', params: Org } }, async (request, reply) => {
    const organizationId = request.params.organization;
    const seller = await sellerOf(organizationId);
    if (!seller) return notFoundPage(reply);
    const signed = await signedInPost(request, organizationId);
    if (!signed) return refused(reply, seller, organizationId);
    await endVisit(customerContext(services, request, signed.visit), signed.visit.cookie);
    setVisitCookie(request, reply, organizationId, '', 0);
    return reply.header('cache-control', 'no-store').redirect(portalPath(organizationId), 303);
  });

  const SubParams = z.object({ organization: z.string().max(64), id: z.string().max(64) });

  /** The signed-in buyer's own subscription, or null: another buyer's reads exactly as one that does not exist. */
  async function ownSubscription(organizationId: string, buyer: PortalBuyer, id: string): Promise<Active | null> {
    const state = await loadSubscription(services, id);
    if (state.status === 'none' || !ownedBy(state, organizationId, buyer)) return null;
    return state;
  }

  const backTo = (reply: FastifyReply, organizationId: string, done: keyof typeof NOTICES) =>
    reply.header('cache-control', 'no-store').redirect(`${portalPath(organizationId)}?done=${done}`, 303);

  for (const act of ['cancel', 'reactivate', 'change_plan'] as const) {
    r.post(
      `/portal/:organization/subscriptions/:id/${act}`,
      {
        schema: {
          summary:
            act === 'cancel'
              ? 'Cancel the buyer’s subscription at the end of its period (the portal’s form)'
              : act === 'reactivate'
                ? 'Take back a cancellation at period end (the portal’s form)'
                : 'Move the buyer’s subscription to another plan the seller offers (the portal’s form)',
          params: SubParams,
        },
      },
      async (request, reply) => {
        const { organization: organizationId, id } = request.params;
        const seller = await sellerOf(organizationId);
        if (!seller) return notFoundPage(reply);
        const signed = await signedInPost(request, organizationId);
        if (!signed) return refused(reply, seller, organizationId);
        const settings = await loadPortalSettings(services.store, organizationId);
        const allowed = act === 'change_plan' ? settings.subscription_update : settings.subscription_cancel;
        if (!allowed) return backTo(reply.code(303), organizationId, 'not_allowed');
        const state = await ownSubscription(organizationId, signed.buyer, id);
        if (!state) return notFoundPage(reply);
        const ctx = customerContext(services, request, signed.visit);
        try {
          if (act === 'cancel') await cancelSubscription(ctx, id, { atPeriodEnd: true, refund: 'none', requestedBy: 'customer' });
          else if (act === 'reactivate') await reactivateSubscription(ctx, id);
          else await switchPlan(ctx, state, String(formBody(request.body).plan ?? ''), settings.subscription_update_products);
        } catch (error) {
          if (error instanceof DomainError) return backTo(reply, organizationId, 'refused');
          throw error;
        }
        return backTo(reply, organizationId, act === 'cancel' ? 'canceled' : act === 'reactivate' ? 'kept' : 'switched');
      },
    );
  }

  const CARD_TRIES_PER_VISIT = {
    max: 20,
    timeWindow: 15 * 60_000,
    keyGenerator: (request: FastifyRequest) => `portal-card:${createHash('sha256').update(cookieOf(request) ?? request.ip).digest('hex')}`,
  };

  r.get('/portal/:organization/subscriptions/:id/card', { schema: { summary: 'Customer portal (HTML): the form for a new card of a subscription', params: SubParams } }, async (request, reply) => {
    const { organization: organizationId, id } = request.params;
    const seller = await sellerOf(organizationId);
    if (!seller) return notFoundPage(reply);
    const signed = await signedIn(request, organizationId);
    if (!signed) return reply.header('cache-control', 'no-store').redirect(portalPath(organizationId), 303);
    const settings = await loadPortalSettings(services.store, organizationId);
    const state = await ownSubscription(organizationId, signed.buyer, id);
    if (!state) return notFoundPage(reply);
    if (!settings.payment_method_update || isEnded(state.status)) return backTo(reply, organizationId, 'not_allowed');
    const live = await liveCardForm(state);
    if (state.sub.mode === 'live' && !live) return backTo(reply, organizationId, 'not_allowed');
    const view = await portalSubscription(services, state, settings);
    const chrome = { seller, portalPath: portalPath(organizationId), csrf: csrfTokenOfVisit(services.secrets.jwt, signed.visit.cookie) };
    return send(reply, 200, (nonce) => renderCardForm(chrome, view, null, nonce, live), live?.jsUrl ?? null);
  });

  /** A live subscription's card is entered in Stripe's fields, while the organization's Stripe account is connected. */
  async function liveCardForm(state: Active): Promise<{ jsUrl: string } | null> {
    if (state.sub.mode !== 'live') return null;
    return (await loadStripeAccount(services.store, state.sub.organization_id)).status === 'connected' ? { jsUrl: services.config.STRIPE_JS_URL } : null;
  }

  // Live: a SetupIntent for a new card, which the card form's Payment Element confirms.
  r.post(
    '/portal/:organization/subscriptions/:id/setup-intent',
    {
      config: { rateLimit: CARD_TRIES_PER_VISIT },
      schema: { summary: "Live: a Stripe SetupIntent for a new card of the buyer's subscription, which the portal's card form confirms with Stripe.js", params: SubParams },
    },
    async (request, reply) => {
      const { organization: organizationId, id } = request.params;
      const refusedJson = () => reply.code(403).send({ message: 'Please sign in again.', code: 'portal_visit_required' });
      const signed = await signedInPost(request, organizationId);
      if (!signed) return refusedJson();
      const settings = await loadPortalSettings(services.store, organizationId);
      const state = await ownSubscription(organizationId, signed.buyer, id);
      if (!state || !settings.payment_method_update || isEnded(state.status) || !(await liveCardForm(state))) {
        return reply.code(404).send({ message: 'There is no card to change here.', code: 'nothing_to_change' });
      }
      try {
        const setup = await prepareCardSetup(services, {
          organizationId,
          subscriptionId: state.sub.id,
          customer: state.payment_method?.provider === 'stripe' ? (state.payment_method.customer ?? null) : null,
          email: state.sub.customer.email,
          name: state.sub.customer.name,
          description: `New card for ${state.sub.offer.name} (${state.sub.id})`,
        });
        return reply.header('cache-control', 'no-store').send({ id: setup.setupIntentId, client_secret: setup.clientSecret, publishable_key: setup.publishableKey });
      } catch (error) {
        if (error instanceof PaymentProviderError) return reply.code(502).send({ message: STRIPE_UNREACHABLE, code: 'payment_provider_error' });
        throw error;
      }
    },
  );

  r.post(
    '/portal/:organization/subscriptions/:id/card',
    { config: { rateLimit: CARD_TRIES_PER_VISIT }, schema: { summary: 'Save a new card for the buyer’s subscription and retry what is due with it (the portal’s card form)', params: SubParams } },
    async (request, reply) => {
      const { organization: organizationId, id } = request.params;
      const seller = await sellerOf(organizationId);
      if (!seller) return notFoundPage(reply);
      const signed = await signedInPost(request, organizationId);
      if (!signed) return refused(reply, seller, organizationId);
      const settings = await loadPortalSettings(services.store, organizationId);
      if (!settings.payment_method_update) return backTo(reply, organizationId, 'not_allowed');
      const state = await ownSubscription(organizationId, signed.buyer, id);
      if (!state) return notFoundPage(reply);
      const chrome = { seller, portalPath: portalPath(organizationId), csrf: csrfTokenOfVisit(services.secrets.jwt, signed.visit.cookie) };
      const view = { id, product: state.sub.offer.name, card: state.payment_method?.card ?? null };
      const live = await liveCardForm(state);
      if (state.sub.mode === 'live') {
        if (!live) return backTo(reply, organizationId, 'not_allowed');
        const again = (status: number, message: string) => send(reply, status, (nonce) => renderCardForm(chrome, view, message, nonce, live), live.jsUrl);
        try {
          const outcome = await readCardSetup(services, organizationId, id, String(formBody(request.body).setup_intent ?? ''));
          if (outcome.status === 'declined') return again(402, declineInPlainWords({ code: outcome.code, decline_code: outcome.declineCode, message: outcome.message }));
          if (outcome.status !== 'saved') return again(409, 'The card is not saved yet. Please enter it again.');
          const used = await useSavedCard(customerContext(services, request, signed.visit), id, outcome.paymentMethod);
          if (used.status !== 'saved') return again(409, used.status === 'refused' || used.status === 'declined' ? used.message : 'The card could not be saved.');
          return backTo(reply, organizationId, 'card_saved');
        } catch (error) {
          if (error instanceof PaymentProviderError) return again(502, STRIPE_UNREACHABLE);
          throw error;
        }
      }
      const card = parseCard(request.body);
      if (typeof card === 'string') return send(reply, 422, (nonce) => renderCardForm(chrome, view, card, nonce));
      const outcome = await replaceCard(services, customerContext(services, request, signed.visit), id, card, paymentProviderFor);
      if (outcome.status === 'declined') return send(reply, 402, (nonce) => renderCardForm(chrome, view, outcome.message, nonce));
      if (outcome.status === 'refused') return send(reply, 409, (nonce) => renderCardForm(chrome, view, outcome.message, nonce));
      return backTo(reply, organizationId, 'card_saved');
    },
  );
}

/** Makes the link and queues its email, when the address is a customer's; nothing otherwise. */
async function sendSignInLink(services: Services, ctx: CommandContext, seller: Seller, organizationId: string, email: string, origin: string): Promise<void> {
  const buyer = await buyerByEmail(services, organizationId, email);
  if (!buyer) return;
  const { token } = await issuePortalLink(ctx, { organization_id: organizationId, customer: { id: buyer.id }, source: 'magic_link', portal_session_id: null, return_url: null }, MAGIC_LINK_SECONDS);
  const url = `${origin}${portalLinkPath(organizationId, token)}`;
  // The cause is the link (its hash): one email per link, and its Message-ID follows from it.
  await enqueueBuyerEmail(services, {
    kind: 'portal_sign_in',
    cause: createHash('sha256').update(token).digest('hex').slice(0, 32),
    organization_id: organizationId,
    to: buyer.email,
    subject: `Sign in to your account with ${seller.name}`.slice(0, 200),
    text: [
      `Hello${buyer.name ? ` ${buyer.name}` : ''},`,
      '',
      `Someone (we hope you) asked to sign in to your purchases and subscriptions with ${seller.name}. Open this link to sign in:`,
      '',
      url,
      '',
      'The link works once, for 15 minutes. If you did not ask for it, ignore this email: nothing changes.',
    ].join('\n'),
    about: buyer.id,
    // The link is a credential: the log keeps the email sealed, and only the sender opens it.
    confidential: true,
  });
}
