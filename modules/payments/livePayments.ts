import { createHash, randomBytes } from 'node:crypto';
import { checkoutSessionDecider, checkoutSessionStream, type CustomerInput, invoiceDecider, invoiceStream, type InvoiceState, completePaidInvoiceSession, reserveSessionRedemption, sessionCustomerId, startSession } from '../checkout/index.ts';
import { stripeEventDecider, stripeEventStream } from './domain/stripeEvent.ts';
import { fold, DomainError, conflict, invalid, notFound } from '../../platform/domain/index.ts';
import { currentAttempt, subscriptionDecider, subscriptionStream } from '../subscriptions/index.ts';
import { creditNoteId, formatCreditNoteNumber, issueCreditNotes } from '../creditNotes/index.ts';
import { handleCommand, type CommandContext } from '../../platform/es/index.ts';
import { PaymentProviderError, type LivePayment, type LivePaymentProvider, type PaymentMethod, type StripeClientFactory } from './paymentProvider.ts';
import type { EventStore } from '../../platform/eventStore/index.ts';
import { stripeCredentials, stripeSecrets, type StripeCredentials } from './stripeAccountCommands.ts';
import type { StripeCredentialRecords } from './stripeCredentialRecords.ts';

export const LIVE_UNAVAILABLE_MESSAGE =
  'Live mode needs a connected Stripe account: an owner connects one with PUT /manage/api/payments/stripe or `commerce stripe connect` (secret key, publishable key and webhook signing secret).';

export const liveModeUnavailable = (kind: 'invalid' | 'conflict' = 'invalid') =>
  new DomainError(kind, 'live_mode_unavailable', LIVE_UNAVAILABLE_MESSAGE, kind === 'invalid' ? { mode: [LIVE_UNAVAILABLE_MESSAGE] } : undefined);

/** What live payments need of the service (platform/runtime/services.ts provides it). */
export type Services = { store: EventStore; secrets: { data: Uint8Array }; stripeCredentials: StripeCredentialRecords; payments: { stripe: StripeClientFactory } };

/** PaymentIntent statuses Stripe lets a merchant cancel (not processing, succeeded or canceled). */
const CANCELABLE = new Set(['requires_payment_method', 'requires_confirmation', 'requires_action', 'requires_capture']);

type Live = { provider: LivePaymentProvider; credentials: StripeCredentials };

/** The organization's Stripe provider and credentials; null when it has no connected account. */
export async function liveProviderOf(services: Services, organizationId: string): Promise<Live | null> {
  const credentials = await stripeCredentials(services.store, stripeSecrets(services), organizationId);
  return credentials ? { provider: services.payments.stripe(credentials.secretKey), credentials } : null;
}

const loadInvoice = async (ctx: CommandContext, id: string): Promise<InvoiceState> =>
  fold(invoiceDecider, (await ctx.store.readStream(invoiceStream(id))) as never);

export type PreparedPayment = {
  invoiceId: string;
  /** A PaymentIntent (`pi_…`), or for a trial a SetupIntent (`seti_…`), which the page confirms with `confirmSetup`. */
  paymentIntentId: string;
  clientSecret: string;
  publishableKey: string;
  status: string;
};

/**
 * The buyer starts a live session: 1. start it (the invoice exists from here), 2. reuse the
 * invoice's PaymentIntent while Stripe can still confirm it, else 3. create one for the invoice's
 * total and currency, keyed per invoice and attempt so a retried request makes no second one, and
 * 4. record it on the invoice. The client secret goes to the buyer's browser only.
 */
export async function prepareLivePayment(ctx: CommandContext, services: Services, sessionId: string, customer: CustomerInput | null): Promise<PreparedPayment> {
  const session = fold(checkoutSessionDecider, (await ctx.store.readStream(checkoutSessionStream(sessionId))) as never);
  if (session.status === 'none') throw notFound('Checkout session');
  if (session.session.mode !== 'live') throw conflict('not_live_session', 'This checkout session is in test mode: pay it with POST /api/checkout/sessions/{id}/pay.');
  const live = await liveProviderOf(services, session.session.organization_id);
  if (!live) throw liveModeUnavailable('conflict');
  const { invoiceId } = await startSession(ctx, sessionId, customer);
  const invoice = await loadInvoice(ctx, invoiceId);
  if (invoice.status === 'none') throw notFound('Invoice');
  if (invoice.status === 'paid') throw conflict('session_completed', 'The checkout session is already completed.');
  if (invoice.status === 'void') throw new DomainError('gone', 'session_expired', 'The checkout session has expired. Create a new session to pay.');
  const known = invoice.paymentIntents ?? [];
  const last = known.at(-1);
  if (last) {
    const existing = await live.provider.retrievePayment(last);
    // A discount code or the buyer's country may have repriced the invoice since: only its current total is charged.
    const current = existing.kind === 'setup' ? invoice.invoice.total === 0 : existing.amount === invoice.invoice.total && existing.currency === invoice.invoice.currency;
    if (existing.status !== 'canceled' && existing.clientSecret && current) return prepared(invoiceId, existing, live);
    if (!current && existing.kind === 'payment' && CANCELABLE.has(existing.status)) {
      await live.provider.cancelPayment({ paymentId: existing.id, idempotencyKey: `commerce-${invoiceId}-repriced-${existing.id}` });
    }
  }
  // The discount's redemption is held before the buyer can confirm, as a test-mode pay holds it before the charge.
  await reserveSessionRedemption(ctx, session.session);
  const attempt = known.length + 1;
  const buyer = invoice.invoice.customer ?? session.customer;
  const email = buyer?.email ?? null;
  const metadata = {
    organization_id: invoice.invoice.organization_id,
    session_id: sessionId,
    invoice_id: invoiceId,
    invoice_number: String(invoice.invoice.number),
  };
  const idempotencyKey = `commerce-${invoiceId}-attempt-${attempt}`;
  const description = `${session.session.offer.name} (invoice ${invoice.invoice.number})`;
  let created: LivePayment;
  if (session.session.recurring) {
    // Stripe reuses a PaymentMethod off-session only through the customer it is attached to: one
    // per session and buyer, so a retried request (or a second attempt) finds the same one.
    const customer = await live.provider.createCustomer({
      email,
      name: buyer?.name ?? null,
      metadata: { organization_id: metadata.organization_id, session_id: sessionId },
      idempotencyKey: `commerce-${sessionId}-customer-${createHash('sha256').update(email ?? '').digest('hex').slice(0, 16)}`,
    });
    // A trial charges nothing now: Stripe takes no payment of zero, so the card is set up instead.
    created =
      invoice.invoice.total === 0
        ? await live.provider.createSetup({ customer: customer.id, metadata, idempotencyKey, description })
        : await live.provider.createPayment({
            amount: invoice.invoice.total,
            currency: invoice.invoice.currency,
            metadata,
            idempotencyKey,
            description,
            receiptEmail: email,
            customer: customer.id,
            saveForOffSession: true,
          });
  } else {
    created = await live.provider.createPayment({ amount: invoice.invoice.total, currency: invoice.invoice.currency, metadata, idempotencyKey, description, receiptEmail: email });
  }
  return recorded(ctx, live, invoice.invoice, attempt, created);
}

/** A subscription's open invoice, to be paid by its buyer on the hosted card page with the saved method. */
export type RenewalPaymentInput = {
  organizationId: string;
  subscriptionId: string;
  invoiceId: string;
  /** The attempt this payment is of the invoice: one PaymentIntent per attempt, however often the page asks. */
  attempt: number;
  paymentMethod: PaymentMethod;
  description: string;
};

/**
 * The buyer of a live subscription whose renewal needs them (Stripe's `authentication_required`)
 * confirms its payment on the hosted card page: a PaymentIntent on the saved method and customer
 * for what the open invoice asks, its metadata naming the invoice and subscription (so its
 * settlement, from the page or Stripe's webhook, finds them), keyed per invoice and attempt, and
 * recorded on the invoice. A PaymentIntent of the invoice Stripe can still confirm is reused.
 */
export async function prepareRenewalPayment(ctx: CommandContext, services: Services, input: RenewalPaymentInput): Promise<PreparedPayment> {
  const live = await liveProviderOf(services, input.organizationId);
  if (!live) throw liveModeUnavailable('conflict');
  if (input.paymentMethod.provider !== 'stripe') throw conflict('payment_method_unsupported', 'The saved card is not a Stripe payment method.');
  const invoice = await loadInvoice(ctx, input.invoiceId);
  if (invoice.status === 'none' || invoice.invoice.organization_id !== input.organizationId || invoice.invoice.subscription_id !== input.subscriptionId) throw notFound('Invoice');
  if (invoice.status === 'paid') throw conflict('invoice_paid', 'The invoice is already paid.');
  if (invoice.status === 'void') throw conflict('invoice_void', 'The invoice is void and cannot be paid.');
  const amount = invoice.invoice.amount_due ?? invoice.invoice.total;
  const last = invoice.paymentIntents?.at(-1);
  if (last) {
    const existing = await retrieveOwn(live, last);
    const confirmable = existing && ['requires_payment_method', 'requires_confirmation', 'requires_action'].includes(existing.status);
    if (existing && confirmable && existing.amount === amount && existing.metadata.attempt === String(input.attempt)) return prepared(input.invoiceId, existing, live);
  }
  const created = await live.provider.createSavedMethodPayment({
    paymentMethod: input.paymentMethod,
    amount,
    currency: invoice.invoice.currency,
    metadata: {
      organization_id: input.organizationId,
      subscription_id: input.subscriptionId,
      invoice_id: input.invoiceId,
      invoice_number: String(invoice.invoice.number),
      attempt: String(input.attempt),
    },
    idempotencyKey: `commerce-${input.invoiceId}-confirm-${input.attempt}`,
    description: input.description,
  });
  return recorded(ctx, live, invoice.invoice, input.attempt, created);
}

/**
 * A live subscription's buyer enters a new card on the hosted card page: a SetupIntent for later
 * charges without them, on the customer of the saved card (else a new one), its metadata naming
 * the subscription, confirmed in their browser with Stripe.js's Payment Element. Its client
 * secret goes to that browser only.
 */
export async function prepareCardSetup(
  services: Services,
  input: { organizationId: string; subscriptionId: string; customer: string | null; email: string | null; name: string | null; description: string },
): Promise<{ setupIntentId: string; clientSecret: string; publishableKey: string }> {
  const live = await liveProviderOf(services, input.organizationId);
  if (!live) throw liveModeUnavailable('conflict');
  const metadata = { organization_id: input.organizationId, subscription_id: input.subscriptionId, purpose: 'card_update' };
  const customer =
    input.customer ??
    (await live.provider.createCustomer({ email: input.email, name: input.name, metadata, idempotencyKey: `commerce-${input.subscriptionId}-customer` })).id;
  // A fresh one per press: Stripe advises against long-lived unconfirmed SetupIntents.
  const setup = await live.provider.createSetup({ customer, metadata, idempotencyKey: `commerce-${input.subscriptionId}-card-${randomBytes(12).toString('hex')}`, description: input.description });
  if (!setup.clientSecret) throw new DomainError('conflict', 'payment_unavailable', 'Stripe gave no client secret for this card setup.');
  return { setupIntentId: setup.id, clientSecret: setup.clientSecret, publishableKey: live.credentials.publishableKey };
}

export type CardSetupOutcome =
  | { status: 'saved'; paymentMethod: PaymentMethod }
  | { status: 'declined'; code: string; declineCode: string | null; message: string }
  | { status: 'pending'; providerStatus: string }
  | { status: 'unknown' };

/**
 * The outcome of a card setup of the hosted card page, read from Stripe (never from the browser):
 * only a SetupIntent of this organization's account made for this subscription counts.
 */
export async function readCardSetup(services: Services, organizationId: string, subscriptionId: string, setupIntentId: string): Promise<CardSetupOutcome> {
  const live = await liveProviderOf(services, organizationId);
  if (!live || !setupIntentId.startsWith('seti_')) return { status: 'unknown' };
  const setup = await retrieveOwn(live, setupIntentId);
  if (!setup || setup.kind !== 'setup' || setup.metadata.organization_id !== organizationId || setup.metadata.subscription_id !== subscriptionId) return { status: 'unknown' };
  if (setup.status === 'succeeded' && setup.paymentMethod) {
    const m = setup.paymentMethod;
    return { status: 'saved', paymentMethod: { id: m.id, provider: 'stripe', card: m.card, exp_month: m.exp_month, exp_year: m.exp_year, ...(setup.customer ? { customer: setup.customer } : {}) } };
  }
  if (setup.failure) return { status: 'declined', code: setup.failure.code, declineCode: setup.failure.declineCode, message: setup.failure.message };
  return { status: 'pending', providerStatus: setup.status };
}

/** The payment made for an attempt, recorded on its invoice before its client secret goes out. */
async function recorded(ctx: CommandContext, live: Live, invoice: { id: string; currency: string }, attempt: number, created: LivePayment): Promise<PreparedPayment> {
  const command = { type: 'RecordPaymentIntent', paymentIntentId: created.id, attempt, amount: created.amount, currency: invoice.currency, now: ctx.metadata.occurred_at } as const;
  await handleCommand(ctx, invoiceStream(invoice.id), invoiceDecider, command);
  return prepared(invoice.id, created, live);
}

function prepared(invoiceId: string, payment: LivePayment, live: Live): PreparedPayment {
  if (!payment.clientSecret) throw new DomainError('conflict', 'payment_unavailable', 'Stripe gave no client secret for this payment.');
  return { invoiceId, paymentIntentId: payment.id, clientSecret: payment.clientSecret, publishableKey: live.credentials.publishableKey, status: payment.status };
}

/** `sessionId` names the checkout of the invoice; null for a subscription's renewal the buyer paid on the hosted card page. */
export type SettleOutcome =
  | { status: 'paid'; invoiceId: string; sessionId: string | null }
  | { status: 'declined'; invoiceId: string; sessionId: string | null; code: string; declineCode: string | null; message: string }
  | { status: 'pending'; invoiceId: string; sessionId: string | null; providerStatus: string }
  /** Not ours to act on: another organization's, an unknown invoice, or one that can no longer be paid. */
  | { status: 'ignored'; reason: string };

/**
 * Takes a PaymentIntent's outcome from Stripe itself (retrieved, never from what a browser says):
 * a succeeded one pays its invoice once (the PaymentIntent's id is the attempt, so a second report
 * changes nothing) and completes the session. An invoice paid by another attempt, or voided since,
 * is never paid again nor reopened.
 */
export async function settlePaymentIntent(ctx: CommandContext, organizationId: string, live: Live, paymentIntentId: string): Promise<SettleOutcome> {
  const payment = await retrieveOwn(live, paymentIntentId);
  if (!payment) return { status: 'ignored', reason: 'unknown_payment' };
  const invoiceId = payment.metadata.invoice_id;
  if (payment.metadata.organization_id !== organizationId || !invoiceId) return { status: 'ignored', reason: 'not_this_organization' };
  const invoice = await loadInvoice(ctx, invoiceId);
  if (invoice.status === 'none' || invoice.invoice.organization_id !== organizationId) return { status: 'ignored', reason: 'unknown_invoice' };
  if (!(invoice.paymentIntents ?? []).includes(payment.id)) return { status: 'ignored', reason: 'unknown_payment' };
  const sessionId = invoice.invoice.session_id;
  // A subscription's invoice: paid here only by a PaymentIntent its buyer confirmed on the hosted card page.
  if (sessionId === null) return invoice.invoice.subscription_id ? settleRenewalPayment(ctx, live, invoiceId, invoice, payment) : { status: 'ignored', reason: 'unknown_invoice' };
  const matches = payment.kind === 'setup' ? invoice.invoice.total === 0 : payment.amount === invoice.invoice.total && payment.currency === invoice.invoice.currency;
  if (!matches) return { status: 'ignored', reason: 'amount_mismatch' };
  if (payment.status === 'succeeded') {
    if (invoice.status === 'void') return returnUnowed(ctx, live, invoiceId, payment, 'invoice_void');
    if (invoice.status === 'paid' && invoice.paidAttempt !== payment.id) return returnUnowed(ctx, live, invoiceId, payment, 'invoice_paid');
    const session = fold(checkoutSessionDecider, (await ctx.store.readStream(checkoutSessionStream(sessionId))) as never);
    const recurring = session.status !== 'none' && session.session.recurring !== undefined;
    const method = payment.paymentMethod;
    const customerId = session.status === 'none' ? null : await sessionCustomerId(ctx, session.session, session.customer);
    try {
      await handleCommand(ctx, invoiceStream(invoiceId), invoiceDecider, {
        type: 'PayInvoice',
        attemptId: payment.id,
        card: payment.card ?? { brand: 'card', last4: '' },
        customer: session.status === 'none' ? null : session.customer,
        chargeId: payment.chargeId,
        provider: 'stripe',
        // The method Stripe saved for renewals, as the test provider's is: the session completes with it.
        paymentMethod:
          recurring && method
            ? { id: method.id, provider: 'stripe', card: method.card, exp_month: method.exp_month, exp_year: method.exp_year, ...(payment.customer ? { customer: payment.customer } : {}) }
            : null,
        customerId,
        now: ctx.metadata.occurred_at,
      });
    } catch (error) {
      // Paid by another attempt or voided in between: recorded as it stands.
      if (error instanceof DomainError && (error.code === 'invoice_paid' || error.code === 'invoice_void')) return returnUnowed(ctx, live, invoiceId, payment, error.code);
      throw error;
    }
    await completePaidInvoiceSession(ctx, invoiceId).catch((error: unknown) => {
      // The completion subscriber finishes it (modules/checkout/jobs/checkoutCompletion.ts); the invoice is the purchase.
      if (!(error instanceof DomainError)) throw error;
    });
    return { status: 'paid', invoiceId, sessionId };
  }
  if (payment.status === 'requires_payment_method' && payment.failure) {
    return { status: 'declined', invoiceId, sessionId, code: payment.failure.code, declineCode: payment.failure.declineCode, message: payment.failure.message };
  }
  return { status: 'pending', invoiceId, sessionId, providerStatus: payment.status };
}

/**
 * A subscription invoice's PaymentIntent that its buyer confirmed (and authenticated) on the
 * hosted card page: a success is recorded on the subscription as the payment of its open invoice,
 * as a retry's would be, so it recovers and the invoice is paid through the same path. Paid
 * meanwhile by another charge (a retry of the ladder): the money goes back, as any unowed payment.
 */
async function settleRenewalPayment(ctx: CommandContext, live: Live, invoiceId: string, invoice: Exclude<InvoiceState, { status: 'none' }>, payment: LivePayment): Promise<SettleOutcome> {
  const subscriptionId = invoice.invoice.subscription_id!;
  if (payment.kind !== 'payment' || payment.metadata.subscription_id !== subscriptionId) return { status: 'ignored', reason: 'unknown_payment' };
  if (payment.amount !== (invoice.invoice.amount_due ?? invoice.invoice.total) || payment.currency !== invoice.invoice.currency) return { status: 'ignored', reason: 'amount_mismatch' };
  if (payment.status === 'requires_payment_method' && payment.failure) {
    return { status: 'declined', invoiceId, sessionId: null, code: payment.failure.code, declineCode: payment.failure.declineCode, message: payment.failure.message };
  }
  if (payment.status !== 'succeeded') return { status: 'pending', invoiceId, sessionId: null, providerStatus: payment.status };
  const stream = subscriptionStream(subscriptionId);
  const events = await ctx.store.readStream(stream);
  const paidBy = (recorded: readonly { type: string; data: unknown }[]) =>
    payment.chargeId !== null &&
    recorded.some((e) => e.type === 'SubscriptionInvoicePaid' && (e.data as { invoice_id: string; charge_id: string | null }).invoice_id === invoiceId && (e.data as { charge_id: string | null }).charge_id === payment.chargeId);
  if (paidBy(events)) return { status: 'paid', invoiceId, sessionId: null };
  const state = fold(subscriptionDecider, events as never);
  const open = state.status === 'none' ? null : state.open_invoice;
  if (state.status !== 'none' && open?.id === invoiceId) {
    const result = await handleCommand(
      ctx,
      stream,
      subscriptionDecider,
      { type: 'RecordPaymentSucceeded', invoiceId, attempt: currentAttempt(open), chargeId: payment.chargeId, card: payment.card, now: ctx.metadata.occurred_at },
      { known: events },
    ).catch((error: unknown) => {
      // Another writer got there first: the read below says whose payment it was.
      if (error instanceof DomainError) return null;
      throw error;
    });
    if (result && paidBy(result.events as never)) return { status: 'paid', invoiceId, sessionId: null };
    if (paidBy(await ctx.store.readStream(stream))) return { status: 'paid', invoiceId, sessionId: null };
  }
  return returnUnowed(ctx, live, invoiceId, payment, invoice.status === 'paid' ? 'invoice_paid' : 'invoice_closed');
}

/**
 * A payment that succeeded when its invoice could no longer take it (the session expired, or
 * another attempt paid first): nothing was bought, so it goes back to the buyer in full, keyed on
 * the PaymentIntent so every report of it refunds once, and the return is recorded on the invoice.
 */
async function returnUnowed(ctx: CommandContext, live: Live, invoiceId: string, payment: LivePayment, reason: string): Promise<SettleOutcome> {
  // A card setup took no money: nothing to give back.
  if (payment.kind === 'setup') return { status: 'ignored', reason };
  const refund = await live.provider.refund({ paymentId: payment.id, amount: null, idempotencyKey: `commerce-unowed-${payment.id}` });
  await handleCommand(ctx, invoiceStream(invoiceId), invoiceDecider, {
    type: 'RecordUnowedRefund',
    paymentIntentId: payment.id,
    refundId: refund.id,
    chargeId: refund.chargeId,
    amount: payment.amount,
    reason,
    now: ctx.metadata.occurred_at,
  });
  return { status: 'ignored', reason: `${reason}:refunded` };
}

/** The PaymentIntent from this organization's Stripe account; null when that account has none of that id (Stripe's resource_missing). */
async function retrieveOwn(live: Live, id: string): Promise<LivePayment | null> {
  try {
    return await live.provider.retrievePayment(id);
  } catch (error) {
    if (error instanceof PaymentProviderError && error.providerCode === 'resource_missing') return null;
    throw error;
  }
}

/** The invoice a charge, dispute or refund belongs to, through its PaymentIntent's metadata (read from Stripe). */
async function invoiceOfPayment(ctx: CommandContext, organizationId: string, live: Live, paymentIntentId: string | null): Promise<{ invoiceId: string; invoice: Exclude<InvoiceState, { status: 'none' }> } | null> {
  if (!paymentIntentId) return null;
  const payment = await retrieveOwn(live, paymentIntentId);
  if (!payment) return null;
  const invoiceId = payment.metadata.invoice_id;
  if (payment.metadata.organization_id !== organizationId || !invoiceId) return null;
  const invoice = await loadInvoice(ctx, invoiceId);
  if (invoice.status === 'none' || invoice.invoice.organization_id !== organizationId || invoice.paidAttempt !== paymentIntentId) return null;
  return { invoiceId, invoice };
}

const str = (value: unknown): string | null => (typeof value === 'string' ? value : value && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string' ? (value as { id: string }).id : null);
const num = (value: unknown): number => (typeof value === 'number' && Number.isInteger(value) ? value : 0);

export type WebhookAnswer = { status: 200 | 400; body: { received: boolean; duplicate?: boolean; outcome?: string; message?: string } };

const BAD_SIGNATURE: WebhookAnswer = { status: 400, body: { received: false, message: 'The Stripe-Signature header does not verify for this endpoint.' } };

/**
 * A Stripe webhook to an organization's endpoint: 1. verified with that organization's signing
 * secret (another organization's secret, or none, verifies nothing), 2. skipped when its event id
 * was handled before, 3. acted on, 4. recorded as handled. Each action is idempotent on its own,
 * so a crash between 3 and 4 is safe to redeliver.
 */
export async function handleStripeWebhook(ctx: CommandContext, services: Services, organizationId: string, payload: string, signature: string | undefined): Promise<WebhookAnswer> {
  if (!signature) return BAD_SIGNATURE;
  let live: Live | null;
  try {
    live = await liveProviderOf(services, organizationId);
  } catch (error) {
    if (error instanceof DomainError) return { status: 400, body: { received: false, message: error.message } };
    throw error;
  }
  if (!live) return BAD_SIGNATURE;
  let event;
  try {
    event = await live.provider.verifyEvent(payload, signature, live.credentials.webhookSecret);
  } catch {
    return BAD_SIGNATURE;
  }
  const stream = stripeEventStream(organizationId, event.id.replace(/[^A-Za-z0-9_]/g, '_').slice(0, 120));
  if ((await ctx.store.readStream(stream)).length > 0) return { status: 200, body: { received: true, duplicate: true } };
  const outcome = await actOn(ctx, organizationId, live, event.type, event.id, event.object);
  await handleCommand(ctx, stream, stripeEventDecider, { type: 'Handle', eventId: event.id, eventType: event.type, organizationId, outcome, now: ctx.metadata.occurred_at }, { known: [] }).catch((error: unknown) => {
    // A concurrent delivery of the same event recorded it first.
    if (!(error instanceof DomainError)) throw error;
  });
  return { status: 200, body: { received: true, outcome } };
}

async function actOn(ctx: CommandContext, organizationId: string, live: Live, type: string, eventId: string, object: Record<string, unknown>): Promise<string> {
  switch (type) {
    case 'payment_intent.succeeded':
    case 'payment_intent.payment_failed':
    // A trial's card setup (a SetupIntent) settles as a payment of zero.
    case 'setup_intent.succeeded':
    case 'setup_intent.setup_failed': {
      const id = str(object.id);
      if (!id) return 'ignored';
      const settled = await settlePaymentIntent(ctx, organizationId, live, id);
      return settled.status === 'ignored' ? `ignored:${settled.reason}` : settled.status;
    }
    case 'charge.refunded': {
      const found = await invoiceOfPayment(ctx, organizationId, live, str(object.payment_intent));
      if (!found) return 'ignored';
      const refunds = (object.refunds as { data?: Array<{ id?: unknown }> } | undefined)?.data;
      const result = await handleCommand(ctx, invoiceStream(found.invoiceId), invoiceDecider, {
        type: 'RecordRefund',
        refundId: str(refunds?.[0]?.id) ?? eventId,
        chargeId: str(object.id) ?? '',
        amountRefunded: num(object.amount_refunded),
        now: ctx.metadata.occurred_at,
      });
      return result.events.length ? 'refund_recorded' : 'refund_known';
    }
    case 'charge.dispute.created': {
      const found = await invoiceOfPayment(ctx, organizationId, live, str(object.payment_intent));
      const disputeId = str(object.id);
      if (!found || !disputeId) return 'ignored';
      await handleCommand(ctx, invoiceStream(found.invoiceId), invoiceDecider, {
        type: 'RecordDispute',
        disputeId,
        chargeId: str(object.charge) ?? '',
        amount: num(object.amount),
        currency: typeof object.currency === 'string' ? object.currency.toUpperCase() : found.invoice.invoice.currency,
        reason: typeof object.reason === 'string' ? object.reason : 'general',
        status: typeof object.status === 'string' ? object.status : 'needs_response',
        now: ctx.metadata.occurred_at,
      });
      return 'dispute_recorded';
    }
    default:
      return 'ignored';
  }
}

export type RefundResult = {
  invoice_id: string;
  refund_id: string;
  amount: number;
  amount_refunded: number;
  fully_refunded: boolean;
  currency: string;
  /** The invoice's total, so a reader can say "€1.00 of €5.00". */
  invoice_total: number;
  refund_status: 'refunded' | 'partially_refunded' | null;
  /** The credit note this refund made; null when it recorded nothing new. */
  credit_note: { id: string; number: string } | null;
};

/** The answer of a refund of `amount`, with what the invoice has refunded after it and the credit note it made. */
function refundResult(invoiceId: string, invoice: { total: number; currency: string }, refundId: string, amount: number, refunded: number, note?: { id: string; number: number }): RefundResult {
  return {
    invoice_id: invoiceId,
    refund_id: refundId,
    amount,
    amount_refunded: refunded,
    fully_refunded: refunded >= invoice.total,
    currency: invoice.currency,
    invoice_total: invoice.total,
    refund_status: refunded <= 0 ? null : refunded >= invoice.total ? 'refunded' : 'partially_refunded',
    credit_note: note ? { id: note.id, number: formatCreditNoteNumber(note.number) } : null,
  };
}

/**
 * Refunds a paid invoice, all that is left or `amount` of it: through Stripe for a live payment
 * (keyed on the invoice, what was refunded before and the amount, so a retried request refunds
 * once), and recorded directly for a test-mode one, where no money moved.
 */
export async function refundInvoice(
  ctx: CommandContext,
  services: Services,
  organizationId: string,
  invoiceId: string,
  amount: number | null,
  /** A refund that must happen once whoever asks again (a subscription's cancellation): its key. */
  once?: string,
  /** Why, for its credit note (Stripe's CreditNote reasons). */
  reason?: string | null,
): Promise<RefundResult> {
  const events = await ctx.store.readStream(invoiceStream(invoiceId));
  const invoice = fold(invoiceDecider, events as never) as InvoiceState;
  if (invoice.status === 'none' || invoice.invoice.organization_id !== organizationId) throw notFound('Invoice');
  if (invoice.status !== 'paid' || !invoice.paidAttempt) throw conflict('invoice_not_paid', 'Only a paid invoice can be refunded.');
  const before = invoice.amountRefunded ?? 0;
  const testRefundId = once ? `re_test_${createHash('sha256').update(once).digest('hex').slice(0, 24)}` : null;
  const done = testRefundId ? events.find((e) => e.type === 'InvoiceRefunded' && (e.data as { refund_id: string }).refund_id === testRefundId) : undefined;
  if (done) {
    const d = done.data as { refund_id: string; amount: number };
    const notes = await issueCreditNotes(ctx, invoiceId);
    return refundResult(invoiceId, invoice.invoice, d.refund_id, d.amount, before, notes.find((n) => n.refund_id === d.refund_id));
  }
  const left = invoice.invoice.total - before;
  if (left <= 0) throw conflict('invoice_refunded', 'The invoice is refunded in full already.');
  if (amount !== null && (amount < 1 || amount > left)) {
    throw invalid('invalid_refund_amount', `The amount must be between 1 and ${left}, what is left to refund (minor units).`, 'amount');
  }
  let refundId: string;
  let chargeId: string;
  let amountRefunded: number;
  // A live renewal was paid by an off-session charge: its attempt is the subscription's, its charge Stripe's.
  const renewalCharge = invoice.invoice.mode === 'live' && invoice.chargeId?.startsWith('ch_') ? invoice.chargeId : null;
  if (invoice.paidAttempt.startsWith('pi_') || renewalCharge) {
    const live = await liveProviderOf(services, organizationId);
    if (!live) throw conflict('stripe_not_connected', 'The invoice was paid through Stripe; connect the Stripe account again to refund it.');
    const idempotencyKey = once ? `commerce-refund-${once}` : `commerce-refund-${invoiceId}-${before}-${amount ?? 'all'}`;
    const refund = invoice.paidAttempt.startsWith('pi_')
      ? await live.provider.refund({ paymentId: invoice.paidAttempt, amount, idempotencyKey })
      : await live.provider.refundCharge({ chargeId: renewalCharge!, amount, idempotencyKey });
    ({ id: refundId, chargeId, amountRefunded } = refund);
  } else {
    refundId = testRefundId ?? `re_test_${randomBytes(12).toString('hex')}`;
    chargeId = invoice.chargeId ?? invoice.paidAttempt;
    amountRefunded = before + (amount ?? left);
  }
  const result = await handleCommand(ctx, invoiceStream(invoiceId), invoiceDecider, { type: 'RecordRefund', refundId, chargeId, amountRefunded, reason: reason ?? null, now: ctx.metadata.occurred_at });
  const recorded = result.state.status === 'none' ? 0 : (result.state.amountRefunded ?? 0);
  // Issued here so the answer names it; the credit-notes subscriber issues it after a crash.
  const notes = result.events.length ? await issueCreditNotes(ctx, invoiceId) : [];
  return refundResult(invoiceId, invoice.invoice, refundId, recorded - before, recorded, notes.find((n) => n.id === creditNoteId(invoiceId, result.revision)));
}

export type CancelOutcome = { payment_intent_id: string; outcome: 'canceled' | 'refused'; status: string | null; message?: string };

/**
 * Cancels in Stripe the PaymentIntents of a void invoice (its session expired), as Stripe Checkout
 * does when a session expires: a buyer whose page is still open can no longer pay for nothing.
 * Keyed per invoice and PaymentIntent, so a repeat changes nothing. A refusal (the payment
 * succeeded meanwhile, and is refunded as unowed when reported; already cancelled; unknown) is
 * final; Stripe out of reach throws, for the caller to try again. Nothing for an invoice that is
 * not void, holds no PaymentIntent, or whose organization has no Stripe account any more.
 */
export async function cancelVoidInvoicePayments(services: Services, invoiceId: string): Promise<CancelOutcome[]> {
  const invoice = fold(invoiceDecider, (await services.store.readStream(invoiceStream(invoiceId))) as never) as InvoiceState;
  if (invoice.status !== 'void' || !invoice.paymentIntents?.length) return [];
  let live: Live | null;
  try {
    live = await liveProviderOf(services, invoice.invoice.organization_id);
  } catch (error) {
    // Credentials this service cannot open (an owner must connect again): no retry would change that.
    if (!(error instanceof DomainError)) throw error;
    return invoice.paymentIntents.map((paymentId) => ({ payment_intent_id: paymentId, outcome: 'refused', status: null, message: error.message }));
  }
  if (!live) return [];
  const outcomes: CancelOutcome[] = [];
  for (const paymentId of invoice.paymentIntents) {
    try {
      const canceled = await live.provider.cancelPayment({ paymentId, idempotencyKey: `commerce-${invoiceId}-cancel-${paymentId}` });
      outcomes.push({ payment_intent_id: paymentId, outcome: 'canceled', status: canceled.status });
    } catch (error) {
      if (!(error instanceof PaymentProviderError) || error.providerCode === null) throw error;
      outcomes.push({ payment_intent_id: paymentId, outcome: 'refused', status: null, message: error.message });
    }
  }
  return outcomes;
}
