import type { CardSummary } from '../checkout/index.ts';
import type { PaymentMethod } from '../subscriptions/index.ts';

export type { PaymentMethod };

/** Card details as the buyer typed them. They reach the provider and nothing else: never an event, never a log. */
export type CardInput = { number: string; exp_month: number; exp_year: number; cvc: string };

export type ChargeRequest = {
  amount: number;
  currency: string;
  card: CardInput;
  /** One per payment attempt, so a provider that sees a retry charges once. */
  idempotencyKey: string;
  description: string;
  /** Milliseconds: the injected clock, for card expiry. */
  now: number;
  /** Keep the card for later charges without the buyer (a subscription's renewals): the answer names it. */
  save?: boolean;
};

/** A charge of a card saved earlier, with no buyer present (Stripe's off-session PaymentIntent). */
export type SavedChargeRequest = {
  paymentMethod: PaymentMethod;
  /** The provider's customer the method is attached to (Stripe's `cus_…`): Stripe charges a saved method only with it. */
  customer?: string | null;
  /** Zero checks the card and charges nothing (a trial's, as Stripe's SetupIntent). */
  amount: number;
  currency: string;
  /** One per invoice attempt: a retry with the same key is the same charge, never a second. */
  idempotencyKey: string;
  description: string;
  /** Milliseconds: the subscription's clock (a test clock's frozen time), for card expiry. */
  now: number;
};

export type ChargeResult =
  | { status: 'succeeded'; card: CardSummary; reference: string; paymentMethod?: PaymentMethod }
  | { status: 'declined'; code: string; declineCode: string | null; message: string; card: CardSummary | null };

/** The payment-provider port. The built-in test provider serves `test` mode; a live one plugs in here. */
export interface PaymentProvider {
  readonly name: string;
  charge(request: ChargeRequest): Promise<ChargeResult>;
  chargeSaved(request: SavedChargeRequest): Promise<ChargeResult>;
}

export function cardBrand(number: string): string {
  if (/^4/.test(number)) return 'visa';
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(number)) return 'mastercard';
  if (/^3[47]/.test(number)) return 'amex';
  if (/^6(011|5)/.test(number)) return 'discover';
  return 'unknown';
}

export function cardSummary(number: string): CardSummary {
  return { brand: cardBrand(number), last4: number.slice(-4) };
}

export function luhnValid(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i++) {
    let digit = number.charCodeAt(number.length - 1 - i) - 48;
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return number.length >= 12 && sum % 10 === 0;
}

/**
 * A live payment as the provider holds it (a Stripe PaymentIntent): created by the server, confirmed
 * by the buyer's browser with the provider's own script, so card data never reaches this service.
 */
export type LivePayment = {
  id: string;
  /** A payment (Stripe's PaymentIntent), or a setup that saves a card and charges nothing (a SetupIntent, a trial's). */
  kind: 'payment' | 'setup';
  /** Stripe's PaymentIntent (or SetupIntent) statuses. */
  status: string;
  amount: number;
  currency: string;
  metadata: Record<string, string>;
  /** For the buyer's browser only: never recorded, never logged. */
  clientSecret: string | null;
  chargeId: string | null;
  card: CardSummary | null;
  failure: { code: string; declineCode: string | null; message: string } | null;
  /** The customer it was made for (Stripe's `cus_…`), when one was. */
  customer: string | null;
  /** The method that paid or was set up, with its card: what a subscription charges later. */
  paymentMethod: { id: string; card: CardSummary; exp_month: number; exp_year: number } | null;
};

/** A new live payment: for a recurring plan, made for a customer and kept for charges without the buyer. */
export type CreatePaymentRequest = {
  amount: number;
  currency: string;
  metadata: Record<string, string>;
  idempotencyKey: string;
  description: string;
  receiptEmail: string | null;
  /** The provider's customer (Stripe's `cus_…`) the saved method is attached to. */
  customer?: string;
  /** Stripe's `setup_future_usage: off_session`: the method is saved for renewals. */
  saveForOffSession?: boolean;
};

/** An on-session payment of an open invoice with the saved method, for the buyer to authenticate (3-D Secure) on a page. */
export type SavedMethodPaymentRequest = {
  paymentMethod: PaymentMethod;
  amount: number;
  currency: string;
  metadata: Record<string, string>;
  idempotencyKey: string;
  description: string;
};

/** A provider event whose signature checked out: its id, type and object as the provider sent them. */
export type ProviderEvent = { id: string; type: string; object: Record<string, unknown> };

export interface LivePaymentProvider {
  readonly name: string;
  createPayment(request: CreatePaymentRequest): Promise<LivePayment>;
  /** A setup of a card for later charges, charging nothing (Stripe's SetupIntent with `usage: off_session`). */
  createSetup(request: { customer: string; metadata: Record<string, string>; idempotencyKey: string; description: string }): Promise<LivePayment>;
  /** A payment with the saved method that the buyer confirms (and authenticates) in their browser. */
  createSavedMethodPayment(request: SavedMethodPaymentRequest): Promise<LivePayment>;
  /** A customer to save a method on (Stripe's `cus_…`). */
  createCustomer(request: { email: string | null; name: string | null; metadata: Record<string, string>; idempotencyKey: string }): Promise<{ id: string }>;
  /** A PaymentIntent (`pi_…`) or SetupIntent (`seti_…`), with its charge and method. */
  retrievePayment(id: string): Promise<LivePayment>;
  /** Cancels a payment nobody can pay any more (its invoice is void): the buyer's page can no longer confirm it. */
  cancelPayment(request: { paymentId: string; idempotencyKey: string }): Promise<LivePayment>;
  /** Refunds all that is left of the payment, or `amount`; answers with the charge's running refunded total. */
  refund(request: { paymentId: string; amount: number | null; idempotencyKey: string }): Promise<{ id: string; chargeId: string; amountRefunded: number }>;
  /** The same, of a charge that no PaymentIntent of ours names (a renewal's off-session charge, known by its `ch_…`). */
  refundCharge(request: { chargeId: string; amount: number | null; idempotencyKey: string }): Promise<{ id: string; chargeId: string; amountRefunded: number }>;
  retrieveCharge(id: string): Promise<{ id: string; paymentId: string | null; amountRefunded: number }>;
  /** Charges a PaymentMethod saved at checkout, without the buyer (a renewal). */
  chargeSaved(request: SavedChargeRequest): Promise<ChargeResult>;
  /** Checks the signature over the raw body and parses it; throws when it does not check out. */
  verifyEvent(payload: string, signature: string, webhookSecret: string): Promise<ProviderEvent>;
}

/** The live provider of an organization, made from its own secret key. */
export type StripeClientFactory = (secretKey: string) => LivePaymentProvider;

/** The provider could not be reached, or refused the call: nothing is known to have changed there. */
export class PaymentProviderError extends Error {
  override readonly name = 'PaymentProviderError';
  constructor(
    message: string,
    readonly providerCode: string | null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
