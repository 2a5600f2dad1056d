import { isRedirectUrl } from './redirectUrls.ts';
import { type Decider, type DomainEvent, type PricingRecord, type TaxBehavior, DomainError, conflict, invalid, notFound } from '../../../platform/domain/index.ts';
import type { PaymentMethod } from '../../subscriptions/domain/subscription.ts';
import type { TestClockState } from '../../subscriptions/domain/testClock.ts';

// The test clock's stream and fold, for the session commands (which reach subscriptions' pure
// rules only through this domain file: a run-time import of that module's index would be a cycle).
export { testClockDecider, testClockStream } from '../../subscriptions/domain/testClock.ts';
export type { PaymentMethod };

export type SessionMode = 'test' | 'live';
export type SessionStatus = 'open' | 'completed' | 'expired';
export type OfferRef = { uuid: string; id: string; slug: string; name: string };
export type SessionCustomer = { email: string | null; name: string | null; user_id: string | null };
/** What the buyer typed on start or pay; an absent field keeps the recorded value. */
export type CustomerInput = { email?: string | undefined; name?: string | undefined };
/**
 * A line as charged. `product_id` says which product it sells (a coupon's `applies_to`); the
 * priced amounts (platform/domain/invoiceTotals.ts) are present once a discount or tax priced it.
 */
export type SessionLine = { name: string; amount: number; product_id?: string; discount_amount?: number; taxable_amount?: number; tax_amount?: number };
export type CardSummary = { brand: string; last4: string };
/** A session of a recurring plan: completing it makes a subscription on these terms. */
export type SessionRecurring = { renew_interval: string | null; invoice_interval: string; trial_period_days: number | null };

/** Between 30 minutes and 24 hours, as Stripe allows; 24 hours by default. */
export const MIN_EXPIRES_IN = 1800;
export const MAX_EXPIRES_IN = 86_400;
/** A payment attempt that has not finished after this long (a crashed process) no longer blocks. */
export const PAYMENT_ATTEMPT_TIMEOUT = 60;

export type CheckoutSessionEvent =
  | DomainEvent<
      'CheckoutSessionCreated',
      {
        id: string;
        organization_id: string;
        offer: OfferRef;
        plan: { product_id: string; plan_id: string; plan_name: string };
        lines: SessionLine[];
        total: number;
        currency: string;
        mode: SessionMode;
        customer: SessionCustomer | null;
        metadata: Record<string, string>;
        promo: string | null;
        /** The promo tier whose price the session took; null without a promo or when none was in force. */
        promo_tier: string | null;
        /** Set for this session by its creator: override the offer's for the full-page checkout (absent: the offer's). */
        success_url?: string;
        cancel_url?: string;
        /** The plan is recurring: the purchase makes a subscription (absent on a one-time sale). */
        recurring?: SessionRecurring;
        /** The test clock the subscription it makes lives on (test mode, set by the seller). */
        test_clock?: string;
        /** The discount and tax as priced at creation (absent: neither applied; lines and total are the list price). */
        pricing?: PricingRecord;
        /** The plan's price behaviour; `unspecified` takes the seller's tax settings' default when the tax is calculated. */
        tax_behavior?: TaxBehavior | 'unspecified';
        expires_at: number;
        created_at: number;
      }
    >
  | DomainEvent<'CheckoutSessionStarted', { invoice_id: string; customer: SessionCustomer | null; started_at: number }>
  | DomainEvent<'CheckoutSessionCustomerChanged', { customer: SessionCustomer; changed_at: number }>
  | DomainEvent<'CheckoutSessionPaymentAttempted', { attempt_id: string; attempted_at: number }>
  | DomainEvent<
      'CheckoutSessionPaymentDeclined',
      { attempt_id: string; code: string; decline_code: string | null; card: CardSummary | null; declined_at: number }
    >
  | DomainEvent<'CheckoutSessionCancelled', { cancelled_at: number }>
  | DomainEvent<
      'CheckoutSessionCompleted',
      {
        attempt_id: string;
        invoice_id: string;
        card: CardSummary;
        completed_at: number;
        /** The card saved for the subscription's later charges (a recurring session's). */
        payment_method?: PaymentMethod;
        /** The subscription this purchase makes (a recurring session's), decided here so every reader agrees on it. */
        subscription_id?: string;
        /** The buyer's customer (`cus_…`); absent on completions recorded before customers existed, or with no email. */
        customer_id?: string;
      }
    >
  | DomainEvent<'CheckoutSessionExpired', { expired_at: number }>
  /** The buyer applied or removed a discount code, or gave what the tax needs: the price as it now stands. */
  | DomainEvent<'CheckoutSessionRepriced', { lines: SessionLine[]; total: number; pricing: PricingRecord; repriced_at: number }>;

type Created = Extract<CheckoutSessionEvent, { type: 'CheckoutSessionCreated' }>['data'];

export type CheckoutSessionCommand =
  | {
      type: 'CreateSession';
      session: Omit<Created, 'expires_at' | 'created_at'>;
      expiresIn: number;
      now: number;
      /** The clock `session.test_clock` names, as its stream says. */
      testClock?: TestClockState;
    }
  | { type: 'StartSession'; invoiceId: string; customer: CustomerInput | null; now: number }
  | {
      type: 'AttemptPayment';
      attemptId: string;
      /** What the pay request typed: the charge is claimed for the customer it names, in the same append. */
      customer?: CustomerInput | null;
      now: number;
    }
  | { type: 'DeclinePayment'; attemptId: string; code: string; declineCode: string | null; card: CardSummary | null; now: number }
  | {
      type: 'CompleteSession';
      attemptId: string;
      card: CardSummary;
      now: number;
      /** The invoice already records this attempt as paid (recovery after a crash between the two appends). */
      invoicePaid?: boolean;
      /** The card the charge saved (recorded on a recurring session's completion). */
      paymentMethod?: PaymentMethod | null;
      /** A fresh `sub_…` id: a recurring session's completion names its subscription with it. */
      subscriptionId?: string;
      /** The customer the purchase belongs to (modules/customers ensureCustomer). */
      customerId?: string | null;
    }
  | {
      type: 'CancelSession';
      now: number;
      /** The session's invoice is paid (read from the invoice stream): the purchase happened. */
      invoicePaid?: boolean;
    }
  | { type: 'ExpireSession'; now: number }
  /** The price as the buyer's discount code and tax details now make it (sessionPricing.ts priced it). */
  | {
      type: 'RepriceSession';
      lines: SessionLine[];
      total: number;
      pricing: PricingRecord;
      /** The pricing this price was computed from: another change recorded since refuses it (the caller prices again). */
      basis?: PricingRecord | null;
      now: number;
    }
  /** A GDPR erasure of the buyer (modules/customers): their details replaced, whatever the status. */
  | { type: 'RedactCustomer'; customer: SessionCustomer; now: number };

export type CheckoutSessionState =
  | { status: 'none' }
  | {
      status: SessionStatus;
      session: Created;
      /** As the buyer last corrected it; the invoice follows it until it is paid. */
      customer: SessionCustomer | null;
      invoiceId: string | null;
      pendingAttempt: { id: string; at: number } | null;
      completedAttempt: string | null;
    };

export const checkoutSessionStream = (id: string) => `checkout_session-${id}`;

/** Open until due: a session past expires_at reads as expired before the scheduler records it. */
export function effectiveStatus(status: SessionStatus, expiresAt: number, now: number): SessionStatus {
  return status === 'open' && now >= expiresAt ? 'expired' : status;
}

const expiredError = () =>
  new DomainError('gone', 'session_expired', 'The checkout session has expired. Create a new session to pay.');
const completedError = () => conflict('session_completed', 'The checkout session is already completed.');

/** Refuses anything but an open session that is not yet due. */
function requireOpen(state: CheckoutSessionState, now: number): asserts state is Exclude<CheckoutSessionState, { status: 'none' }> {
  if (state.status === 'none') throw notFound('Checkout session');
  if (state.status === 'completed') throw completedError();
  if (effectiveStatus(state.status, state.session.expires_at, now) === 'expired') throw expiredError();
}

const attemptBlocks = (attempt: { at: number } | null, now: number) =>
  attempt !== null && now - attempt.at < PAYMENT_ATTEMPT_TIMEOUT;

/**
 * The customer once the buyer's input is applied; null when the input names nothing. A signed
 * identity's email (the one its token carried when the session was created) was verified, so a
 * typed one never replaces it under the same user_id; its name can still change.
 */
function customerWith(session: Created, current: SessionCustomer | null, input: CustomerInput | null): SessionCustomer | null {
  if (!input || (input.email === undefined && input.name === undefined)) return null;
  const verifiedEmail = session.customer?.user_id ? session.customer.email : null;
  return {
    email: verifiedEmail ?? input.email ?? current?.email ?? null,
    name: input.name ?? current?.name ?? null,
    user_id: current?.user_id ?? null,
  };
}

/**
 * A clock is the seller's tool for test mode: another organization's, a deleted or an unknown one
 * is refused alike, so an id says nothing about other organizations.
 */
function assertUsableClock(session: Omit<Created, 'expires_at' | 'created_at'>, clock: TestClockState | undefined): void {
  if (session.mode !== 'test') throw invalid('test_clock_live_mode', 'The test_clock field can only be used in test mode.', 'test_clock');
  if (!clock || clock.status === 'none' || clock.status === 'deleted' || clock.organization_id !== session.organization_id) {
    throw invalid('unknown_test_clock', `No test clock ${session.test_clock} in this organization.`, 'test_clock');
  }
}

/** Same lines, total and pricing: a reprice that changes nothing records nothing. */
export const samePrice = (
  a: { lines: readonly SessionLine[]; total: number; pricing?: PricingRecord | null | undefined },
  b: { lines: readonly SessionLine[]; total: number; pricing?: PricingRecord | null | undefined },
) => a.total === b.total && canonical(a.lines) === canonical(b.lines) && canonical(a.pricing ?? null) === canonical(b.pricing ?? null);

/** JSON with sorted keys, so two records built in a different key order compare equal. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).filter(([, x]) => x !== undefined).sort(([a], [b]) => (a < b ? -1 : 1))) : v,
  );
}

export const sameCustomer = (a: SessionCustomer | null, b: SessionCustomer | null) =>
  a?.email === b?.email && a?.name === b?.name && a?.user_id === b?.user_id;

export const checkoutSessionDecider: Decider<CheckoutSessionState, CheckoutSessionCommand, CheckoutSessionEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    if (event.type === 'CheckoutSessionCreated') {
      return { status: 'open', session: event.data, customer: event.data.customer, invoiceId: null, pendingAttempt: null, completedAttempt: null };
    }
    if (state.status === 'none') return state;
    switch (event.type) {
      case 'CheckoutSessionStarted':
        return { ...state, invoiceId: event.data.invoice_id, customer: event.data.customer ?? state.customer };
      case 'CheckoutSessionCustomerChanged':
        return { ...state, customer: event.data.customer };
      case 'CheckoutSessionPaymentAttempted':
        return { ...state, pendingAttempt: { id: event.data.attempt_id, at: event.data.attempted_at } };
      case 'CheckoutSessionPaymentDeclined':
        return { ...state, pendingAttempt: null };
      case 'CheckoutSessionCancelled':
        return state;
      case 'CheckoutSessionCompleted':
        return { ...state, status: 'completed', pendingAttempt: null, completedAttempt: event.data.attempt_id };
      case 'CheckoutSessionExpired':
        return { ...state, status: 'expired', pendingAttempt: null };
      case 'CheckoutSessionRepriced':
        return { ...state, session: { ...state.session, lines: event.data.lines, total: event.data.total, pricing: event.data.pricing } };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'CreateSession': {
        if (state.status !== 'none') throw conflict('session_exists', 'The checkout session already exists.');
        const { expiresIn } = command;
        if (!Number.isInteger(expiresIn) || expiresIn < MIN_EXPIRES_IN || expiresIn > MAX_EXPIRES_IN) {
          throw invalid('invalid_expires_in', `The expires_in field must be between ${MIN_EXPIRES_IN} and ${MAX_EXPIRES_IN} seconds.`, 'expires_in');
        }
        for (const field of ['success_url', 'cancel_url'] as const) {
          const url = command.session[field];
          if (url !== undefined && !isRedirectUrl(url)) throw invalid('invalid_redirect_url', `The ${field} field must be an http or https URL.`, field);
        }
        if (command.session.test_clock !== undefined) assertUsableClock(command.session, command.testClock);
        return {
          type: 'CheckoutSessionCreated',
          data: { ...command.session, expires_at: command.now + expiresIn, created_at: command.now },
        };
      }
      case 'StartSession': {
        requireOpen(state, command.now);
        const customer = customerWith(state.session, state.customer, command.customer);
        if (state.invoiceId === null) {
          return { type: 'CheckoutSessionStarted', data: { invoice_id: command.invoiceId, customer, started_at: command.now } };
        }
        // As Stripe: the buyer may correct their email or name (say after a declined card) until they have paid.
        if (customer === null || sameCustomer(customer, state.customer)) return [];
        // The charge in flight was made out to the customer as it stands; its outcome decides first.
        if (attemptBlocks(state.pendingAttempt, command.now)) {
          throw conflict('payment_in_progress', 'A payment for this checkout session is already in progress.');
        }
        return { type: 'CheckoutSessionCustomerChanged', data: { customer, changed_at: command.now } };
      }
      case 'AttemptPayment': {
        requireOpen(state, command.now);
        if (state.invoiceId === null) throw conflict('session_not_started', 'Start the checkout session before paying.');
        if (attemptBlocks(state.pendingAttempt, command.now)) {
          throw conflict('payment_in_progress', 'A payment for this checkout session is already in progress.');
        }
        const attempted: CheckoutSessionEvent = {
          type: 'CheckoutSessionPaymentAttempted',
          data: { attempt_id: command.attemptId, attempted_at: command.now },
        };
        // A start that changed the customer since this pay's own start must not redirect its charge:
        // the customer this pay typed is recorded with the claim, so the invoice is made out to it.
        const customer = customerWith(state.session, state.customer, command.customer ?? null);
        if (customer === null || sameCustomer(customer, state.customer)) return attempted;
        return [{ type: 'CheckoutSessionCustomerChanged', data: { customer, changed_at: command.now } }, attempted];
      }
      case 'DeclinePayment':
        if (state.status === 'none') throw notFound('Checkout session');
        if (state.pendingAttempt?.id !== command.attemptId) return [];
        return {
          type: 'CheckoutSessionPaymentDeclined',
          data: {
            attempt_id: command.attemptId,
            code: command.code,
            decline_code: command.declineCode,
            card: command.card,
            declined_at: command.now,
          },
        };
      case 'CompleteSession':
        if (state.status === 'none') throw notFound('Checkout session');
        if (state.completedAttempt === command.attemptId) return [];
        if (state.status === 'completed') throw completedError();
        // Completing needs the attempt that was charged; it may finish after the due time.
        if (state.status === 'expired' || state.invoiceId === null) {
          throw conflict('payment_attempt_superseded', 'The payment attempt is no longer current.');
        }
        if (state.pendingAttempt?.id !== command.attemptId && command.invoicePaid !== true) {
          throw conflict('payment_attempt_superseded', 'The payment attempt is no longer current.');
        }
        if (state.session.recurring && !command.subscriptionId) throw new Error('a recurring session completes with a subscription id');
        return {
          type: 'CheckoutSessionCompleted',
          data: {
            attempt_id: command.attemptId,
            invoice_id: state.invoiceId,
            card: command.card,
            completed_at: command.now,
            ...(state.session.recurring && command.paymentMethod ? { payment_method: command.paymentMethod } : {}),
            ...(state.session.recurring ? { subscription_id: command.subscriptionId! } : {}),
            ...(command.customerId ? { customer_id: command.customerId } : {}),
          },
        };
      case 'CancelSession':
        requireOpen(state, command.now);
        // Paid (the completion may lag a crash) or being charged: the buyer did not dismiss a purchase.
        if (command.invoicePaid === true) throw conflict('invoice_paid', 'The checkout session is paid; it can no longer be cancelled.');
        if (attemptBlocks(state.pendingAttempt, command.now)) {
          throw conflict('payment_in_progress', 'A payment for this checkout session is in progress; it can no longer be cancelled.');
        }
        return { type: 'CheckoutSessionCancelled', data: { cancelled_at: command.now } };
      case 'RepriceSession': {
        requireOpen(state, command.now);
        if (samePrice(state.session, command)) return [];
        if (command.basis !== undefined && !samePrice({ lines: [], total: 0, pricing: state.session.pricing ?? null }, { lines: [], total: 0, pricing: command.basis })) {
          throw conflict('pricing_changed', 'The price changed meanwhile; price it again.');
        }
        // The charge in flight was claimed for the price as it stands; its outcome decides first.
        if (attemptBlocks(state.pendingAttempt, command.now)) {
          throw conflict('payment_in_progress', 'A payment for this checkout session is already in progress.');
        }
        return { type: 'CheckoutSessionRepriced', data: { lines: command.lines, total: command.total, pricing: command.pricing, repriced_at: command.now } };
      }
      case 'RedactCustomer':
        if (state.status === 'none') throw notFound('Checkout session');
        if (sameCustomer(state.customer, command.customer)) return [];
        return { type: 'CheckoutSessionCustomerChanged', data: { customer: command.customer, changed_at: command.now } };
      case 'ExpireSession':
        if (state.status === 'none') throw notFound('Checkout session');
        if (state.status !== 'open' || command.now < state.session.expires_at) return [];
        // A charge in flight decides first; the next run expires the session if it failed.
        if (attemptBlocks(state.pendingAttempt, command.now)) return [];
        return { type: 'CheckoutSessionExpired', data: { expired_at: command.now } };
    }
  },
};
