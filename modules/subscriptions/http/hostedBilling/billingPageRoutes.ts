import { createHash, randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DomainError, fold } from '../../../../platform/domain/index.ts';
import { commandContext } from '../../../../platform/http/index.ts';
import type { Services } from '../../../../platform/runtime/index.ts';
import { invoiceDecider, invoiceStream } from '../../../checkout/index.ts';
import { addressLines, crossSite, loadOrganization } from '../../../identity/index.ts';
import { liveProviderOf, loadStripeAccount, PaymentProviderError, paymentProviderFor, prepareCardSetup, prepareRenewalPayment, readCardSetup, sendHostedPage, settlePaymentIntent } from '../../../payments/index.ts';
import { advanceSubscription } from '../../billing.ts';
import { cardSaverFor, parseCard, type CardInput } from '../../cardReplacement.ts';
import { billingLinkPath, settledBillingLink, usableBillingLink, type UsableBillingLink } from '../../billingLinks.ts';
import { declineInPlainWords } from '../../domain/dunningEmail.ts';
import { currentAttempt, isEnded, subscriptionDecider, subscriptionStream, type Active, type PaymentMethod, type SubscriptionEvent } from '../../domain/subscription.ts';
import { subscriptionNow, updatePaymentMethod } from '../../subscriptionCommands.ts';
import { renderBillingPage, type BillingPageState, type BillingPageView } from './renderBillingPage.ts';

const STRIPE_UNREACHABLE = 'The payment service could not be reached. Please try again in a moment.';

/**
 * Tries of one link's form: enough for a buyer's typos, too few to test stolen card numbers
 * through a link. Keyed by the token's hash, so the limiter never holds a token.
 */
const CARD_TRIES_PER_LINK = {
  max: 20,
  timeWindow: 15 * 60_000,
  keyGenerator: (request: FastifyRequest) => `billing:${createHash('sha256').update(String((request.params as { token?: unknown }).token)).digest('hex')}`,
};

/** The bank asked for the buyer (Stripe's `authentication_required`): a live page lets them confirm the payment. */
function needsAuthentication(state: Active, lastFailure: SubscriptionEvent | undefined): boolean {
  if (state.sub.mode !== 'live' || state.payment_method?.provider !== 'stripe' || !state.open_invoice || lastFailure?.type !== 'SubscriptionPaymentFailed') return false;
  return lastFailure.data.invoice_id === state.open_invoice.id && (lastFailure.data.code === 'authentication_required' || lastFailure.data.decline_code === 'authentication_required');
}

async function viewOf(services: Services, state: Active, events: readonly SubscriptionEvent[]): Promise<BillingPageView> {
  const organization = await loadOrganization(services.store, state.sub.organization_id);
  const open = state.open_invoice;
  const lastFailure = [...events].reverse().find((e) => e.type === 'SubscriptionPaymentFailed');
  const stripe = state.sub.mode === 'live' && (await loadStripeAccount(services.store, state.sub.organization_id)).status === 'connected'
    ? { jsUrl: services.config.STRIPE_JS_URL, authenticate: needsAuthentication(state, lastFailure) }
    : null;
  const product = state.plan.plan_name && state.plan.plan_name !== state.sub.offer.name ? `${state.sub.offer.name} (${state.plan.plan_name})` : state.sub.offer.name;
  return {
    sellerName: organization?.name ?? '',
    sellerAddress: organization ? addressLines(organization.address) : [],
    product,
    mode: state.sub.mode,
    status: state.status,
    currency: state.sub.currency,
    due: open ? { amount: open.amount_due, period: { start: open.period_start, end: open.period_end } } : null,
    lastDecline: lastFailure?.type === 'SubscriptionPaymentFailed' ? declineInPlainWords(lastFailure.data) : null,
    card: state.payment_method?.card ?? null,
    nextAttempt: open && state.status === 'past_due' ? open.next_payment_attempt : null,
    currentPeriodEnd: state.current_period_end,
    stripe,
  };
}

/** The card page: the hosted page's headers, and Stripe.js on a live page's form only. */
function send(reply: FastifyReply, status: number, state: BillingPageState) {
  const stripeJsUrl = state.kind === 'form' && state.view.stripe ? state.view.stripe.jsUrl : null;
  return sendHostedPage(reply, status, (nonce) => renderBillingPage(state, nonce), { stripeJsUrl });
}

const sendState = (reply: FastifyReply, page: { status: number; state: BillingPageState }) => send(reply, page.status, page.state);

/** The card form again, saying what went wrong; of the subscription as it stands after `events`. */
async function formOf(services: Services, usable: UsableBillingLink, status: number, error: string, at: Active = usable.subscription, events: readonly SubscriptionEvent[] = usable.events) {
  return { status, state: { kind: 'form' as const, view: await viewOf(services, at, events), error, formAction: billingLinkPath(usable.token) } };
}

const readEvents = async (services: Services, id: string) => (await services.store.readStream(subscriptionStream(id))) as unknown as SubscriptionEvent[];

/** Saves the card, puts it on the subscription and retries what is due at once, in this request. */
async function updateCard(services: Services, request: FastifyRequest, usable: UsableBillingLink, card: CardInput): Promise<{ status: number; state: BillingPageState }> {
  const { subscription } = usable;
  const id = subscription.sub.id;
  const form = (status: number, error: string, at?: Active, events?: readonly SubscriptionEvent[]) => formOf(services, usable, status, error, at, events);
  const saver = cardSaverFor(subscription.sub.mode, paymentProviderFor);
  if (!saver) return form(409, 'The card cannot be changed on this page; please contact the seller.');
  const ctx = commandContext(services, request, subscription.sub.organization_id);
  const now = await subscriptionNow(ctx, subscription);
  const saved = await saver.charge({
    amount: 0,
    currency: subscription.sub.currency,
    card,
    idempotencyKey: `card_update_${randomUUID()}`,
    description: `New card for ${subscription.sub.offer.name} (${id})`,
    now: now * 1000,
    save: true,
  });
  if (saved.status === 'declined') return form(402, declineInPlainWords({ code: saved.code, decline_code: saved.declineCode, message: saved.message }));
  if (!saved.paymentMethod) return form(409, 'This card cannot be kept for the subscription here; please contact the seller.');
  return useNewMethod(services, request, usable, saved.paymentMethod, now);
}

/** Puts the saved card on the subscription and retries what is due at once, in this request. */
async function useNewMethod(services: Services, request: FastifyRequest, usable: UsableBillingLink, paymentMethod: PaymentMethod, now: number): Promise<{ status: number; state: BillingPageState }> {
  const { subscription } = usable;
  const id = subscription.sub.id;
  const form = (status: number, error: string, at?: Active, events?: readonly SubscriptionEvent[]) => formOf(services, usable, status, error, at, events);
  const ctx = commandContext(services, request, subscription.sub.organization_id);
  const known = (await readEvents(services, id)).length;
  try {
    await updatePaymentMethod(ctx, id, paymentMethod);
  } catch (error) {
    if (error instanceof DomainError) return { status: 409, state: { kind: 'ended', view: await viewOf(services, subscription, usable.events) } };
    throw error;
  }
  await advanceSubscription(services, id, now, `card_update_${request.id}`);
  const events = await readEvents(services, id);
  const after = fold(subscriptionDecider, events);
  if (after.status === 'none') return { status: 404, state: { kind: 'gone' } };
  const view = await viewOf(services, after, events);
  if (isEnded(after.status)) return { status: 200, state: { kind: 'ended', view } };
  const since = events.slice(known);
  const paid = since.some((e) => e.type === 'SubscriptionInvoicePaid');
  if (paid) return { status: 200, state: { kind: 'paid', view } };
  const failed = [...since].reverse().find((e) => e.type === 'SubscriptionPaymentFailed');
  if (failed?.type === 'SubscriptionPaymentFailed') return form(402, declineInPlainWords(failed.data), after, events);
  // A card given while nothing is due (an unpaid subscription between invoices): it pays the next one.
  const open = after.open_invoice;
  if (open) {
    const invoice = fold(invoiceDecider, (await services.store.readStream(invoiceStream(open.id))) as never);
    if (invoice.status === 'open') return form(409, 'The card is saved, but the payment could not be tried yet. Please try again in a moment.', after, events);
  }
  return { status: 200, state: { kind: 'saved', view } };
}

/**
 * The hosted page where a buyer whose renewal failed enters a new card, reached only through the
 * link in the dunning email (`/billing/<token>`, the token its only credential). Plain HTML and a
 * same-origin form: no script, no third party.
 */
export async function billingPageRoutes(app: FastifyInstance, opts: { services: Services }): Promise<void> {
  const { services } = opts;
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4096 }, (_request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  // Any string: a token that names no usable link gets the page saying so, not a validation error.
  const Params = z.object({ token: z.string() });
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get(
    '/billing/:token',
    { config: { secretPath: true }, schema: { summary: 'Hosted page (HTML) to enter a new card for a subscription whose payment failed, by the link in the email', params: Params } },
    async (request, reply) => {
      const usable = await usableBillingLink(services, request.params.token);
      if (!usable) return send(reply, 404, { kind: 'gone' });
      const view = await viewOf(services, usable.subscription, usable.events);
      return send(reply, 200, { kind: 'form', view, error: null, formAction: billingLinkPath(usable.token) });
    },
  );

  // Live: the payment the bank asked the buyer to confirm, made on the saved card for the open invoice.
  r.post(
    '/billing/:token/payment-intent',
    {
      config: { secretPath: true, rateLimit: CARD_TRIES_PER_LINK },
      schema: {
        summary: "Live: a Stripe PaymentIntent on the saved card for the subscription's open invoice, which the hosted page confirms with Stripe.js (the bank's check)",
        params: Params,
      },
    },
    async (request, reply) => {
      if (crossSite(services, request)) return reply.code(403).send({ message: 'Use the page this link opens.', code: 'cross_site' });
      const usable = await usableBillingLink(services, request.params.token);
      const sub = usable?.subscription;
      const open = sub?.open_invoice;
      if (!usable || !sub || !open || !needsAuthentication(sub, [...usable.events].reverse().find((e) => e.type === 'SubscriptionPaymentFailed'))) {
        return reply.code(404).send({ message: 'There is no payment to confirm through this link.', code: 'nothing_to_confirm' });
      }
      const ctx = commandContext(services, request, sub.sub.organization_id);
      const prepared = await prepareRenewalPayment(ctx, services, {
        organizationId: sub.sub.organization_id,
        subscriptionId: sub.sub.id,
        invoiceId: open.id,
        attempt: currentAttempt(open),
        paymentMethod: sub.payment_method!,
        description: `${sub.sub.offer.name} (${sub.sub.id})`,
      });
      return reply.header('cache-control', 'no-store').send({ client_secret: prepared.clientSecret, publishable_key: prepared.publishableKey, status: prepared.status });
    },
  );

  // Live: a SetupIntent for a new card, which the page's Payment Element confirms.
  r.post(
    '/billing/:token/setup-intent',
    {
      config: { secretPath: true, rateLimit: CARD_TRIES_PER_LINK },
      schema: { summary: 'Live: a Stripe SetupIntent for a new card of the subscription, which the hosted page confirms with Stripe.js (the Payment Element)', params: Params },
    },
    async (request, reply) => {
      if (crossSite(services, request)) return reply.code(403).send({ message: 'Use the page this link opens.', code: 'cross_site' });
      const usable = await usableBillingLink(services, request.params.token);
      const sub = usable?.subscription;
      if (!sub || sub.sub.mode !== 'live') return reply.code(404).send({ message: 'There is no card to change through this link.', code: 'nothing_to_change' });
      const setup = await prepareCardSetup(services, {
        organizationId: sub.sub.organization_id,
        subscriptionId: sub.sub.id,
        customer: sub.payment_method?.provider === 'stripe' ? (sub.payment_method.customer ?? null) : null,
        email: sub.sub.customer.email,
        name: sub.sub.customer.name,
        description: `New card for ${sub.sub.offer.name} (${sub.sub.id})`,
      });
      return reply.header('cache-control', 'no-store').send({ id: setup.setupIntentId, client_secret: setup.clientSecret, publishable_key: setup.publishableKey });
    },
  );

  // Live: the new card Stripe.js set up, read from Stripe, put on the subscription, and the open invoice retried with it.
  r.post(
    '/billing/:token/card',
    {
      config: { secretPath: true, rateLimit: CARD_TRIES_PER_LINK },
      schema: { summary: "Live: records the card the page's SetupIntent saved and retries the open invoice with it (the hosted page's form)", params: Params },
    },
    async (request, reply) => {
      if (crossSite(services, request)) return send(reply, 403, { kind: 'refused' });
      const usable = await usableBillingLink(services, request.params.token);
      if (!usable || usable.subscription.sub.mode !== 'live') return send(reply, 404, { kind: 'gone' });
      const sub = usable.subscription;
      const formAgain = async (status: number, error: string) => sendState(reply, await formOf(services, usable, status, error));
      const body = (typeof request.body === 'object' && request.body !== null ? request.body : {}) as { setup_intent?: unknown };
      const setupId = typeof body.setup_intent === 'string' ? body.setup_intent : '';
      try {
        const outcome = await readCardSetup(services, sub.sub.organization_id, sub.sub.id, setupId);
        if (outcome.status === 'declined') return formAgain(402, declineInPlainWords({ code: outcome.code, decline_code: outcome.declineCode, message: outcome.message }));
        if (outcome.status !== 'saved') return formAgain(409, 'The card is not saved yet. Please enter it again.');
        const ctx = commandContext(services, request, sub.sub.organization_id);
        return sendState(reply, await useNewMethod(services, request, usable, outcome.paymentMethod, await subscriptionNow(ctx, sub)));
      } catch (error) {
        if (error instanceof PaymentProviderError) return formAgain(502, STRIPE_UNREACHABLE);
        throw error;
      }
    },
  );

  // Live: after Stripe.js confirmed, the outcome is read from Stripe (never from the browser) and recorded.
  r.post(
    '/billing/:token/settle',
    {
      config: { secretPath: true, rateLimit: CARD_TRIES_PER_LINK },
      schema: { summary: "Live: reads the open invoice's PaymentIntent from Stripe and records its outcome on the subscription (the hosted page's form)", params: Params },
    },
    async (request, reply) => {
      if (crossSite(services, request)) return send(reply, 403, { kind: 'refused' });
      const usable = await usableBillingLink(services, request.params.token);
      if (!usable) {
        // Paid already (by this payment's webhook, or a second press): the page says so.
        const settled = await settledBillingLink(services, request.params.token);
        if (!settled) return send(reply, 404, { kind: 'gone' });
        return send(reply, 200, { kind: 'paid', view: await viewOf(services, settled.subscription, settled.events) });
      }
      const sub = usable.subscription;
      const live = sub.sub.mode === 'live' ? await liveProviderOf(services, sub.sub.organization_id) : null;
      const paymentId = usable.invoice.paymentIntents?.at(-1);
      const formAgain = async (status: number, error: string) => sendState(reply, await formOf(services, usable, status, error));
      if (!live || !paymentId) return formAgain(409, 'There is no payment to confirm yet. Please press the button again.');
      const ctx = commandContext(services, request, sub.sub.organization_id);
      const outcome = await settlePaymentIntent(ctx, sub.sub.organization_id, live, paymentId).catch((error: unknown) => {
        if (error instanceof PaymentProviderError) return null;
        throw error;
      });
      if (!outcome) return formAgain(502, STRIPE_UNREACHABLE);
      if (outcome.status === 'declined') return formAgain(402, declineInPlainWords({ code: outcome.code, decline_code: outcome.declineCode, message: outcome.message }));
      if (outcome.status !== 'paid') return formAgain(409, 'The payment is not confirmed yet. If your bank asked you to confirm it, please try again in a moment.');
      const events = await readEvents(services, sub.sub.id);
      const after = fold(subscriptionDecider, events);
      if (after.status === 'none') return send(reply, 404, { kind: 'gone' });
      return send(reply, 200, { kind: 'paid', view: await viewOf(services, after, events) });
    },
  );

  r.post(
    '/billing/:token',
    { config: { secretPath: true, rateLimit: CARD_TRIES_PER_LINK }, schema: { summary: 'Save a new card for the subscription and retry its payment at once (the form of the hosted page)', params: Params } },
    async (request, reply) => {
      // The token is the credential, but only this page's own form may use it.
      if (crossSite(services, request)) return send(reply, 403, { kind: 'refused' });
      const usable = await usableBillingLink(services, request.params.token);
      if (!usable) return send(reply, 404, { kind: 'gone' });
      const card = parseCard(request.body);
      if (typeof card === 'string') return sendState(reply, await formOf(services, usable, 422, card));
      return sendState(reply, await updateCard(services, request, usable, card));
    },
  );
}
