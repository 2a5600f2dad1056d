import type { RedirectUrls } from './domain/redirectUrls.ts';
import { customAlphabet } from 'nanoid';
import {
  PAYMENT_ATTEMPT_TIMEOUT,
  checkoutSessionDecider,
  checkoutSessionStream,
  testClockDecider,
  testClockStream,
  type CheckoutSessionState,
  type CustomerInput,
  type PaymentMethod,
  type SessionCustomer,
  type SessionLine,
  type SessionMode,
  type SessionRecurring,
} from './domain/checkoutSession.ts';
import { invoiceDecider, invoiceStream } from './domain/invoice.ts';
import type { OfferPlan } from './domain/offer.ts';
import { fold, type AppliedDiscount, type PricingRecord, type TaxBehavior, DomainError, notFound } from '../../platform/domain/index.ts';
import type { RecordedEvent } from '../../platform/eventStore/index.ts';
import { handleCommand, type CommandContext, allocateId } from '../../platform/es/index.ts';
import type { CardInput, PaymentProvider } from '../payments/index.ts';
import { productDecider, productIdOfRouteKey, productStream } from '../catalog/index.ts';
import { ensureCustomer } from '../customers/index.ts';
import { confirmRedemption, couponDiscount, releaseRedemption, reserveRedemption, resolveDiscountCode } from '../discounts/index.ts';
import { followPricing, loadSession, priceSession } from './sessionPricing.ts';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 24 of 62 symbols: about 143 bits, so a session id is unguessable (it is the public handle). */
const secretId = customAlphabet(alphabet, 24);
export const newSessionId = () => `cs_${secretId()}`;
const newInvoiceId = () => `in_${secretId()}`;
const newAttemptId = () => `pa_${secretId()}`;
/** Decided when a recurring session completes, as unguessable as the session's own id. */
export const newSubscriptionId = () => `sub_${secretId()}`;

export type SessionOffer = {
  uuid: string;
  route_key: string;
  slug: string;
  name: string;
  organization_id: string;
  plan: OfferPlan;
  currency: string;
  /** Days of free trial before the first charge of a recurring plan; absent or null: none. */
  trial_period_days?: number | null;
};

export type CreateSessionInput = {
  offer: SessionOffer;
  customer: SessionCustomer | null;
  metadata: Record<string, string>;
  mode: SessionMode;
  expiresIn: number;
  promo: string | null;
  /** The promo's current tier price of the offer, when the promo has a tier in force. */
  promoPrice?: { amount: number; tier: string } | null;
  /** This session's own success_url / cancel_url (the hosted page prefers them to the offer's). */
  redirects?: RedirectUrls;
  /** A test clock of the organization (test mode): the subscription this purchase makes lives on it. */
  testClock?: string;
  /** The code the buyer (or the seller's link) gave; a wrong one refuses the creation (422). */
  discountCode?: string | null;
  /** The coupon the seller attached to the offer: applied when no code is given and it can apply now. */
  couponId?: string | null;
  id?: string;
};

/** The discount a new session starts with: the buyer's code, else the offer's coupon when it applies now. */
async function initialDiscount(ctx: CommandContext, input: CreateSessionInput, lines: SessionLine[]): Promise<AppliedDiscount | null> {
  const pricingLines = lines.map((l) => ({ product_id: l.product_id ?? null, amount: l.amount }));
  const base = { organizationId: input.offer.organization_id, currency: input.offer.currency, lines: pricingLines, now: ctx.metadata.occurred_at };
  if (input.discountCode) {
    return resolveDiscountCode(ctx, { ...base, code: input.discountCode.trim(), customerId: null, customerEmail: input.customer?.email ?? null });
  }
  if (input.couponId) return couponDiscount(ctx, { ...base, couponId: input.couponId });
  return null;
}

/**
 * The recurring terms and the tax behaviour of the offer's plan, from its product's stream as it
 * is now (the offer's snapshot of the plan has neither); recurring is null for a one-time plan, or
 * one the product no longer has, whose price behaviour is then the seller's default.
 */
async function planTerms(ctx: Pick<CommandContext, 'store'>, offer: SessionOffer): Promise<{ recurring: SessionRecurring | null; taxBehavior: TaxBehavior | 'unspecified' }> {
  const none = { recurring: null, taxBehavior: 'unspecified' as const };
  const productId = await productIdOfRouteKey(ctx, offer.plan.product_id);
  if (productId === null) return none;
  const product = fold(productDecider, (await ctx.store.readStream(productStream(productId))) as never);
  if (product.status === 'none' || product.organizationId !== offer.organization_id) return none;
  const plan = product.plans.find((p) => p.id === offer.plan.plan_id);
  if (!plan) return none;
  // Absent on plans that leave it to the seller's tax settings (and on those recorded before it existed).
  const taxBehavior = plan.tax_behavior ?? 'unspecified';
  if (plan.type !== 'recurring') return { recurring: null, taxBehavior };
  const trial = offer.trial_period_days;
  return {
    recurring: {
      renew_interval: plan.renew_interval,
      invoice_interval: plan.invoice_interval,
      trial_period_days: typeof trial === 'number' && Number.isInteger(trial) && trial > 0 ? trial : null,
    },
    taxBehavior,
  };
}

/** The lines the buyer pays now: nothing during a trial, where the card is only saved. */
function linesOf(input: CreateSessionInput, recurring: SessionRecurring | null): SessionLine[] {
  // Every line sells the plan's product, so a coupon limited to products finds it (a promo's adjustment too).
  const product_id = input.offer.plan.product_id;
  const lines: SessionLine[] = input.offer.plan.charges.map((c) => ({ name: c.name, amount: c.amount, product_id }));
  const days = recurring?.trial_period_days ?? null;
  if (days !== null) {
    return [...lines.map((l) => ({ ...l, amount: 0 })), { name: `Free trial: ${days} ${days === 1 ? 'day' : 'days'}`, amount: 0, product_id }];
  }
  const listPrice = lines.reduce((sum, l) => sum + l.amount, 0);
  // A promo tier sets the price; the difference is one line, so the invoice still adds up.
  if (input.promoPrice && input.promo && input.promoPrice.amount !== listPrice) {
    lines.push({ name: `Promo ${input.promo}: ${input.promoPrice.tier}`, amount: input.promoPrice.amount - listPrice, product_id });
  }
  return lines;
}

/** Records an open session with the offer's price. No invoice yet: that waits for a real interaction (start). */
export async function createSession(ctx: CommandContext, input: CreateSessionInput) {
  const { offer } = input;
  const id = input.id ?? newSessionId();
  const { recurring, taxBehavior } = await planTerms(ctx, offer);
  const listed = linesOf(input, recurring);
  const discount = await initialDiscount(ctx, input, listed);
  // No tax yet: it waits for the buyer's country (start or pay); a discount prices the lines now.
  const priced = discount ? priceSession(listed, offer.currency, discount, null, null) : null;
  const lines = priced?.lines ?? listed;
  const testClock = input.testClock === undefined ? undefined : fold(testClockDecider, (await ctx.store.readStream(testClockStream(input.testClock))) as never);
  const result = await handleCommand(ctx, checkoutSessionStream(id), checkoutSessionDecider, {
    type: 'CreateSession',
    session: {
      id,
      organization_id: offer.organization_id,
      offer: { uuid: offer.uuid, id: offer.route_key, slug: offer.slug, name: offer.name },
      plan: { product_id: offer.plan.product_id, plan_id: offer.plan.plan_id, plan_name: offer.plan.plan_name },
      lines,
      total: priced?.total ?? lines.reduce((sum, l) => sum + l.amount, 0),
      currency: offer.currency,
      mode: input.mode,
      customer: input.customer,
      metadata: input.metadata,
      promo: input.promo,
      promo_tier: input.promoPrice?.tier ?? null,
      ...(input.redirects?.success_url ? { success_url: input.redirects.success_url } : {}),
      ...(input.redirects?.cancel_url ? { cancel_url: input.redirects.cancel_url } : {}),
      ...(recurring ? { recurring } : {}),
      ...(input.testClock !== undefined ? { test_clock: input.testClock } : {}),
      ...(priced ? { pricing: priced.pricing } : {}),
      tax_behavior: taxBehavior,
    },
    expiresIn: input.expiresIn,
    now: ctx.metadata.occurred_at,
    ...(testClock ? { testClock } : {}),
  });
  return { state: result.state, events: result.events, position: result.position };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Starts the session: records the invoice id on the session, then creates that invoice with the
 * next number of the organization. Idempotent: a second start finds the same invoice. The request
 * that recorded the start creates the invoice; the others wait for it a moment rather than race
 * for a number (a race would leave a gap in the numbering). A later start whose email or name
 * differs records the correction on the session and on its open invoice.
 */
export async function startSession(
  ctx: CommandContext,
  id: string,
  customer: CustomerInput | null,
): Promise<{ invoiceId: string; position: number | null }> {
  const result = await handleCommand(ctx, checkoutSessionStream(id), checkoutSessionDecider, {
    type: 'StartSession',
    invoiceId: newInvoiceId(),
    customer,
    now: ctx.metadata.occurred_at,
  });
  const state = result.state;
  if (state.status === 'none' || state.invoiceId === null) throw notFound('Checkout session');
  const invoiceId = state.invoiceId;
  const stream = invoiceStream(invoiceId);
  if (result.events.every((e) => e.type !== 'CheckoutSessionStarted')) {
    for (let waited = 0; waited < 2000; waited += 25) {
      const existing = await ctx.store.readStream(stream);
      if (existing.length > 0) return followStarted(ctx, id, invoiceId, state, existing, result.position ?? existing[existing.length - 1]!.position);
      await sleep(25);
    }
  }
  const existing = await ctx.store.readStream(stream);
  if (existing.length > 0) return followStarted(ctx, id, invoiceId, state, existing, result.position ?? existing[existing.length - 1]!.position);
  const session = state.session;
  const number = await allocateId(ctx.store, `invoice-${session.organization_id}`, ctx.metadata);
  const created = await handleCommand(ctx, stream, invoiceDecider, {
    type: 'CreateInvoice',
    invoice: {
      id: invoiceId,
      number,
      organization_id: session.organization_id,
      session_id: session.id,
      lines: session.lines,
      currency: session.currency,
      customer: state.customer,
      ...(session.pricing ? { pricing: session.pricing } : {}),
    },
    now: ctx.metadata.occurred_at,
  });
  // A reprice between the start and this creation found no invoice to follow: it is followed here.
  const followed = await followPricing(ctx, id);
  return { invoiceId, position: followed.position ?? created.position ?? result.position };
}

/** A started session's invoice follows its customer, then its price (the order every writer keeps). */
async function followStarted(
  ctx: CommandContext,
  id: string,
  invoiceId: string,
  started: CheckoutSessionState,
  invoiceEvents: readonly RecordedEvent[],
  position: number | null,
): Promise<{ invoiceId: string; position: number | null }> {
  const customer = await followCustomer(ctx, id, invoiceId, started, invoiceEvents, position);
  const priced = started.status !== 'none' && started.session.pricing ? await followPricing(ctx, id) : { position: null };
  return { invoiceId, position: priced.position ?? customer.position };
}

/**
 * Brings the open invoice's customer up to the session's. Each pass re-reads the session after
 * writing, so a writer that carried a correction since overtaken writes again: the newest one
 * stays. Paying settles it for good (PayInvoice carries the customer the charge was claimed for).
 * The first pass decides on what the start just returned and read (`started`, `invoiceEvents`),
 * which every start and pay of a started session would otherwise read again.
 */
async function followCustomer(
  ctx: CommandContext,
  id: string,
  invoiceId: string,
  started: CheckoutSessionState,
  invoiceEvents: readonly RecordedEvent[],
  position: number | null,
): Promise<{ invoiceId: string; position: number | null }> {
  let latest = position;
  let session: CheckoutSessionState = started;
  let known: readonly RecordedEvent[] | undefined = invoiceEvents;
  for (let pass = 0; pass < 5 && session.status === 'open' && session.customer !== null; pass++) {
    const command = { type: 'ChangeInvoiceCustomer' as const, customer: session.customer, now: ctx.metadata.occurred_at };
    const changed = await handleCommand(ctx, invoiceStream(invoiceId), invoiceDecider, command, known ? { known } : {}).catch((error: unknown) => {
      // Paid (the session completes next, or pay recovers it) or void: its customer is final.
      if (error instanceof DomainError && (error.code === 'invoice_paid' || error.code === 'invoice_void')) return null;
      throw error;
    });
    if (!changed || changed.events.length === 0) break;
    latest = Math.max(latest ?? 0, changed.position ?? 0);
    known = undefined;
    session = await loadSession(ctx, id);
  }
  return { invoiceId, position: latest };
}

export type PayOutcome =
  | { status: 'paid'; card: { brand: string; last4: string }; position: number | null }
  | { status: 'declined'; code: string; declineCode: string | null; message: string; position: number | null };

/**
 * Pays a session: 1. start it (so the invoice exists), 2. claim the payment on the session stream
 * (only one attempt at a time: concurrent attempts get payment_in_progress), 3. charge the card,
 * 4. record the decline, or the paid invoice and then the completed session (the purchase).
 */
export async function paySession(
  ctx: CommandContext,
  id: string,
  payment: { card: CardInput; customer: CustomerInput | null },
  providerFor: (mode: SessionMode) => PaymentProvider | null,
  nowMs: number,
): Promise<PayOutcome> {
  const before = await loadSession(ctx, id);
  if (before.status === 'none') throw notFound('Checkout session');
  const provider = providerFor(before.session.mode);
  if (!provider) {
    // Live cards go to Stripe from the buyer's browser, never through this route (docs/stripe.md).
    throw new DomainError(
      'conflict',
      'use_payment_element',
      "A live session is not paid with card numbers here: start it with POST /api/checkout/sessions/{id}/payment-intent and confirm with Stripe's Payment Element.",
    );
  }
  const { invoiceId } = await startSession(ctx, id, payment.customer);
  const recovered = await completeIfInvoicePaid(ctx, id, invoiceId);
  if (recovered) return recovered;
  const attemptId = newAttemptId();
  const attempt = await handleCommand(ctx, checkoutSessionStream(id), checkoutSessionDecider, {
    type: 'AttemptPayment',
    attemptId,
    customer: payment.customer,
    now: ctx.metadata.occurred_at,
  });
  const state = attempt.state;
  if (state.status === 'none' || state.invoiceId === null) throw notFound('Checkout session');
  const decline = (code: string, declineCode: string | null, card: { brand: string; last4: string } | null) =>
    handleCommand(ctx, checkoutSessionStream(id), checkoutSessionDecider, { type: 'DeclinePayment', attemptId, code, declineCode, card, now: ctx.metadata.occurred_at });
  // The price is fixed while the claim stands (a reprice is refused); the invoice follows it before the charge.
  await followPricing(ctx, id);
  try {
    await reserveSessionRedemption(ctx, state.session);
  } catch (error) {
    // The last redemption went to another buyer (or the code expired): no charge, and the claim is let go.
    if (error instanceof DomainError) await decline(error.code, null, null);
    throw error;
  }
  const charge = await provider.charge({
    amount: state.session.total,
    currency: state.session.currency,
    card: payment.card,
    idempotencyKey: attemptId,
    description: `${state.session.offer.name} (${id})`,
    now: nowMs,
    // A subscription's renewals charge this card without the buyer.
    ...(state.session.recurring ? { save: true } : {}),
  });
  if (charge.status === 'declined') {
    const declined = await decline(charge.code, charge.declineCode, charge.card);
    await releaseSessionRedemption(ctx, state.session);
    return { status: 'declined', code: charge.code, declineCode: charge.declineCode, message: charge.message, position: declined.position };
  }
  const customerId = await sessionCustomerId(ctx, state.session, state.customer);
  await handleCommand(ctx, invoiceStream(state.invoiceId), invoiceDecider, {
    type: 'PayInvoice',
    attemptId,
    card: charge.card,
    customer: state.customer,
    chargeId: charge.reference,
    provider: provider.name,
    paymentMethod: charge.paymentMethod ?? null,
    customerId,
    now: ctx.metadata.occurred_at,
  });
  const completed = await handleCommand(ctx, checkoutSessionStream(id), checkoutSessionDecider, {
    type: 'CompleteSession',
    attemptId,
    card: charge.card,
    paymentMethod: charge.paymentMethod ?? null,
    subscriptionId: newSubscriptionId(),
    customerId,
    now: ctx.metadata.occurred_at,
  });
  // The redemption subscriber (jobs/discountRedemptions.ts) confirms it should this process stop here.
  await confirmSessionRedemption(ctx, state.session, state.invoiceId, customerId).catch(() => undefined);
  return { status: 'paid', card: charge.card, position: completed.position };
}

/** Counts the session's discount as redeemed by its paid invoice; idempotent per session. */
export async function confirmSessionRedemption(
  ctx: CommandContext,
  session: { id: string; organization_id: string; currency: string; pricing?: PricingRecord | undefined },
  invoiceId: string,
  customerId: string | null,
): Promise<void> {
  const discount = session.pricing?.discount;
  if (!discount) return;
  await confirmRedemption(ctx, {
    organizationId: session.organization_id,
    discount,
    key: session.id,
    invoiceId,
    customerId,
    amountDiscount: session.pricing!.total_discount,
    currency: session.currency,
    now: ctx.metadata.occurred_at,
  });
}

/** Holds one redemption of the session's discount for it (409 discount_code_exhausted when none is left). */
export async function reserveSessionRedemption(ctx: CommandContext, session: { id: string; organization_id: string; pricing?: PricingRecord | undefined }): Promise<void> {
  const discount = session.pricing?.discount;
  if (!discount) return;
  await reserveRedemption(ctx, { organizationId: session.organization_id, discount, key: session.id, customerId: null, now: ctx.metadata.occurred_at });
}

/** Lets go of the session's reserved redemption (an expired session's); nothing when none is reserved. */
export async function releaseSessionRedemption(ctx: CommandContext, session: { id: string; organization_id: string; pricing?: PricingRecord | undefined }): Promise<void> {
  const discount = session.pricing?.discount;
  if (!discount) return;
  await releaseRedemption(ctx, { organizationId: session.organization_id, discount, key: session.id, now: ctx.metadata.occurred_at });
}

/**
 * The customer (`cus_…`) a purchase by `customer` belongs to, made on first sight; null when the
 * buyer gave no email nor signed identity. Decided on streams, so the completion carries it.
 */
export async function sessionCustomerId(
  ctx: CommandContext,
  session: { organization_id: string; mode: SessionMode },
  customer: SessionCustomer | null,
): Promise<string | null> {
  if (!customer) return null;
  const found = await ensureCustomer(ctx, { organizationId: session.organization_id, mode: session.mode, userId: customer.user_id, email: customer.email, name: customer.name });
  return found?.id ?? null;
}

/** The card that paid the invoice, and the one its payment saved, as its InvoicePaid recorded them. */
function paidWith(invoiceEvents: readonly RecordedEvent[]): { card: { brand: string; last4: string }; paymentMethod: PaymentMethod | null; customerId: string | null } {
  const paid = invoiceEvents.find((e) => e.type === 'InvoicePaid');
  const data = paid!.data as { card: { brand: string; last4: string }; payment_method?: PaymentMethod; customer_id?: string };
  return { card: data.card, paymentMethod: data.payment_method ?? null, customerId: data.customer_id ?? null };
}

/**
 * Completes the open session with its paid invoice's payment; the customer is the one the payment
 * recorded, else the one the invoice's buyer details name.
 */
async function completeWithPaidInvoice(ctx: CommandContext, session: { session: { id: string; organization_id: string; mode: SessionMode } }, invoice: { customer: SessionCustomer | null }, attemptId: string, invoiceEvents: readonly RecordedEvent[]) {
  const { card, paymentMethod, customerId } = paidWith(invoiceEvents);
  const result = await handleCommand(ctx, checkoutSessionStream(session.session.id), checkoutSessionDecider, {
    type: 'CompleteSession',
    attemptId,
    card,
    paymentMethod,
    subscriptionId: newSubscriptionId(),
    customerId: customerId ?? (await sessionCustomerId(ctx, session.session, invoice.customer)),
    now: ctx.metadata.occurred_at,
    invoicePaid: true,
  });
  return { card, result };
}

/**
 * The invoice is the record of the purchase: when it is paid but the session was not completed
 * (the process stopped between the two appends), complete the session now instead of charging again.
 */
async function completeIfInvoicePaid(ctx: CommandContext, id: string, invoiceId: string): Promise<PayOutcome | null> {
  const session = await loadSession(ctx, id);
  // A charge still in flight completes the session itself; only a stale one needs this.
  if (session.status !== 'open' || (session.pendingAttempt && ctx.metadata.occurred_at - session.pendingAttempt.at < PAYMENT_ATTEMPT_TIMEOUT)) {
    return null;
  }
  const invoiceEvents = await ctx.store.readStream(invoiceStream(invoiceId));
  const invoice = fold(invoiceDecider, invoiceEvents as never);
  if (invoice.status !== 'paid' || invoice.paidAttempt === null) return null;
  const { card, result } = await completeWithPaidInvoice(ctx, session, invoice.invoice, invoice.paidAttempt, invoiceEvents);
  return { status: 'paid', card, position: result.position };
}

/**
 * Records that the buyer dismissed the checkout. Refused once its invoice is paid: a purchase
 * whose completion a crash delayed is not a cancellation (the completion subscriber finishes it).
 */
export async function cancelSession(ctx: CommandContext, id: string): Promise<{ position: number | null }> {
  const session = await loadSession(ctx, id);
  let invoicePaid = false;
  if (session.status === 'open' && session.invoiceId !== null) {
    invoicePaid = fold(invoiceDecider, (await ctx.store.readStream(invoiceStream(session.invoiceId))) as never).status === 'paid';
  }
  const result = await handleCommand(ctx, checkoutSessionStream(id), checkoutSessionDecider, {
    type: 'CancelSession',
    now: ctx.metadata.occurred_at,
    invoicePaid,
  });
  return { position: result.position };
}

/**
 * Completes the session of a paid invoice (what the completion subscriber does for each
 * `InvoicePaid`): a no-op when it is completed already, as the pay request itself usually does.
 */
export async function completePaidInvoiceSession(ctx: CommandContext, invoiceId: string): Promise<{ completed: boolean }> {
  const invoiceEvents = await ctx.store.readStream(invoiceStream(invoiceId));
  const invoice = fold(invoiceDecider, invoiceEvents as never);
  if (invoice.status !== 'paid' || invoice.paidAttempt === null || invoice.invoice.session_id === null) return { completed: false };
  const session = await loadSession(ctx, invoice.invoice.session_id);
  if (session.status !== 'open' || session.invoiceId !== invoiceId) return { completed: false };
  const { result } = await completeWithPaidInvoice(ctx, session, invoice.invoice, invoice.paidAttempt, invoiceEvents);
  return { completed: result.events.length > 0 };
}

/** Records the expiry of a due session and voids its open invoice. No-op when not due or already final. */
export async function expireSession(ctx: CommandContext, id: string): Promise<{ expired: boolean; position: number | null }> {
  const before = await loadSession(ctx, id);
  if (before.status === 'open' && before.invoiceId !== null) {
    // A paid invoice means a purchase: complete the session rather than expire it.
    if (await completeIfInvoicePaid(ctx, id, before.invoiceId)) return { expired: false, position: null };
  }
  const result = await handleCommand(ctx, checkoutSessionStream(id), checkoutSessionDecider, {
    type: 'ExpireSession',
    now: ctx.metadata.occurred_at,
  });
  if (result.events.length === 0 || result.state.status === 'none') return { expired: false, position: null };
  let position = result.position;
  if (result.state.invoiceId !== null) {
    const stream = invoiceStream(result.state.invoiceId);
    if ((await ctx.store.readStream(stream)).length > 0) {
      const voided = await handleCommand(ctx, stream, invoiceDecider, {
        type: 'VoidInvoice',
        reason: 'session_expired',
        now: ctx.metadata.occurred_at,
      });
      position = voided.position ?? position;
    }
  }
  return { expired: true, position };
}
