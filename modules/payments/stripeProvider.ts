import type Stripe from 'stripe';
import type { CardSummary } from '../checkout/index.ts';
import { PaymentProviderError, type ChargeResult, type LivePayment, type LivePaymentProvider, type ProviderEvent, type StripeClientFactory } from './paymentProvider.ts';

/** One API call's wait; Stripe's SDK default is 80 s, longer than a buyer waits for a page. */
const TIMEOUT_MS = 30_000;
/**
 * A refund's calls: a seller (or the CLI) waits on the answer, and the idempotency key makes a
 * retry by hand safe, so an unreachable Stripe is said within seconds rather than after 90.
 */
const REFUND_TIMEOUT_MS = 8_000;

const idOf = (value: string | { id: string } | null | undefined): string | null => (value == null ? null : typeof value === 'string' ? value : value.id);

function cardOf(charge: Stripe.Charge | null): CardSummary | null {
  const details = charge?.payment_method_details;
  if (!details) return null;
  if (details.card) return { brand: details.card.brand ?? 'card', last4: details.card.last4 ?? '' };
  // Not a card (a wallet or bank redirect): the method's type stands in for the brand.
  return { brand: details.type, last4: '' };
}

type Method = NonNullable<LivePayment['paymentMethod']>;

/** The method and its card, from the method itself when expanded, else from the charge it made. */
function methodOf(method: string | Stripe.PaymentMethod | null, charge: Stripe.Charge | null): Method | null {
  const id = idOf(method);
  if (!id) return null;
  const card = typeof method === 'object' && method?.card ? method.card : charge?.payment_method_details?.card;
  if (!card) return null;
  return { id, card: { brand: card.brand ?? 'card', last4: card.last4 ?? '' }, exp_month: card.exp_month, exp_year: card.exp_year };
}

function presentSetup(setup: Stripe.SetupIntent): LivePayment {
  const error = setup.last_setup_error;
  const method = methodOf(setup.payment_method, null);
  return {
    id: setup.id,
    kind: 'setup',
    status: setup.status,
    amount: 0,
    currency: '',
    metadata: { ...setup.metadata },
    clientSecret: setup.client_secret,
    chargeId: null,
    card: method?.card ?? null,
    failure: error ? { code: error.code ?? 'setup_failed', declineCode: error.decline_code ?? null, message: error.message ?? 'The card could not be saved.' } : null,
    customer: idOf(setup.customer),
    paymentMethod: method,
  };
}

function present(intent: Stripe.PaymentIntent): LivePayment {
  const charge = typeof intent.latest_charge === 'object' ? intent.latest_charge : null;
  const error = intent.last_payment_error;
  return {
    id: intent.id,
    kind: 'payment',
    status: intent.status,
    amount: intent.amount,
    currency: intent.currency.toUpperCase(),
    metadata: { ...intent.metadata },
    clientSecret: intent.client_secret,
    chargeId: idOf(intent.latest_charge),
    card: cardOf(charge),
    failure: error ? { code: error.code ?? 'payment_failed', declineCode: error.decline_code ?? null, message: error.message ?? 'The payment failed.' } : null,
    customer: idOf(intent.customer),
    paymentMethod: methodOf(intent.payment_method, charge),
  };
}

const isSetup = (id: string) => id.startsWith('seti_');

/**
 * Loaded on first use: the package is slow to load, which every CLI command and every start of
 * a service that never takes a live payment would otherwise pay for.
 */
let stripeModule: Promise<{ default: typeof Stripe }> | null = null;
const loadStripe = () => (stripeModule ??= import('stripe'));

/** Stripe's errors carry a type and code, never the key; the message is Stripe's, for the operator. */
async function call<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw await providerError(what, error);
  }
}

async function providerError(what: string, error: unknown): Promise<PaymentProviderError> {
  const { default: StripeClass } = await loadStripe();
  // Stripe's SDK reports a network failure as one of its errors too: nothing reached Stripe.
  if (error instanceof StripeClass.errors.StripeError && !(error instanceof StripeClass.errors.StripeConnectionError)) {
    return new PaymentProviderError(`Stripe refused to ${what}: ${error.message}`, error.code ?? error.type, { cause: error });
  }
  return new PaymentProviderError(`Stripe could not be reached to ${what}.`, null, { cause: error });
}

/** The Stripe provider of one organization, on Stripe's official package, at the configured API address. */
export function stripeClientFactory(config: {
  STRIPE_API_HOST?: string | undefined;
  STRIPE_API_PORT?: number | undefined;
  STRIPE_API_PROTOCOL?: 'http' | 'https' | undefined;
  /** A refund call's wait (tests shorten it to see a silent Stripe given up on). */
  refundTimeoutMs?: number;
}): StripeClientFactory {
  const REFUND_REQUEST = { timeout: config.refundTimeoutMs ?? REFUND_TIMEOUT_MS, maxNetworkRetries: 1 } as const;
  return (secretKey) => {
    let client: Promise<Stripe> | null = null;
    const connect = () =>
      (client ??= loadStripe().then(
        ({ default: StripeClass }) =>
          new StripeClass(secretKey, {
            timeout: TIMEOUT_MS,
            maxNetworkRetries: 2,
            telemetry: false,
            ...(config.STRIPE_API_HOST ? { host: config.STRIPE_API_HOST } : {}),
            ...(config.STRIPE_API_PORT !== undefined ? { port: config.STRIPE_API_PORT } : {}),
            ...(config.STRIPE_API_PROTOCOL ? { protocol: config.STRIPE_API_PROTOCOL } : {}),
          }),
      ));
    const readCharge = async (id: string, options: { timeout?: number; maxNetworkRetries?: number } = {}) => {
      const stripe = await connect();
      const charge = await call('read a charge', () => stripe.charges.retrieve(id, {}, options));
      return { id: charge.id, paymentId: idOf(charge.payment_intent), amountRefunded: charge.amount_refunded };
    };
    const createRefund = async (of: { payment_intent: string } | { charge: string }, request: { amount: number | null; idempotencyKey: string }) => {
      const stripe = await connect();
      return call('refund a payment', () => stripe.refunds.create({ ...of, ...(request.amount !== null ? { amount: request.amount } : {}) }, { idempotencyKey: request.idempotencyKey, ...REFUND_REQUEST }));
    };
    const provider: LivePaymentProvider = {
      name: 'stripe',
      async createPayment(request) {
        const stripe = await connect();
        const intent = await call('create a payment', () =>
          stripe.paymentIntents.create(
            {
              amount: request.amount,
              currency: request.currency.toLowerCase(),
              metadata: request.metadata,
              description: request.description,
              automatic_payment_methods: { enabled: true },
              ...(request.receiptEmail ? { receipt_email: request.receiptEmail } : {}),
              // Stripe's "save a payment method during payment": attached to the customer once confirmed.
              ...(request.customer ? { customer: request.customer } : {}),
              ...(request.saveForOffSession ? { setup_future_usage: 'off_session' as const } : {}),
            },
            { idempotencyKey: request.idempotencyKey },
          ),
        );
        return present(intent);
      },
      async createSetup(request) {
        const stripe = await connect();
        const setup = await call('save a card', () =>
          stripe.setupIntents.create(
            {
              customer: request.customer,
              usage: 'off_session',
              automatic_payment_methods: { enabled: true },
              metadata: request.metadata,
              description: request.description,
            },
            { idempotencyKey: request.idempotencyKey },
          ),
        );
        return presentSetup(setup);
      },
      async createSavedMethodPayment(request) {
        const stripe = await connect();
        const intent = await call('create a payment', () =>
          stripe.paymentIntents.create(
            {
              amount: request.amount,
              currency: request.currency.toLowerCase(),
              payment_method: request.paymentMethod.id,
              ...(request.paymentMethod.customer ? { customer: request.paymentMethod.customer } : {}),
              // Confirmed by the buyer on the page, where the bank can ask them to authenticate.
              setup_future_usage: 'off_session',
              metadata: request.metadata,
              description: request.description,
            },
            { idempotencyKey: request.idempotencyKey },
          ),
        );
        return present(intent);
      },
      async createCustomer(request) {
        const stripe = await connect();
        const customer = await call('create a customer', () =>
          stripe.customers.create(
            { ...(request.email ? { email: request.email } : {}), ...(request.name ? { name: request.name } : {}), metadata: request.metadata },
            { idempotencyKey: request.idempotencyKey },
          ),
        );
        return { id: customer.id };
      },
      async retrievePayment(id) {
        const stripe = await connect();
        if (isSetup(id)) return presentSetup(await call('read a card setup', () => stripe.setupIntents.retrieve(id, { expand: ['payment_method'] })));
        return present(await call('read a payment', () => stripe.paymentIntents.retrieve(id, { expand: ['latest_charge'] })));
      },
      async cancelPayment(request) {
        const stripe = await connect();
        if (isSetup(request.paymentId)) {
          return presentSetup(
            await call('cancel a card setup', () => stripe.setupIntents.cancel(request.paymentId, { cancellation_reason: 'abandoned' }, { idempotencyKey: request.idempotencyKey })),
          );
        }
        return present(
          await call('cancel a payment', () => stripe.paymentIntents.cancel(request.paymentId, { cancellation_reason: 'abandoned' }, { idempotencyKey: request.idempotencyKey })),
        );
      },
      async refund(request) {
        const refund = await createRefund({ payment_intent: request.paymentId }, request);
        const chargeId = idOf(refund.charge);
        if (!chargeId) throw new PaymentProviderError('Stripe answered a refund without its charge.', null);
        // The charge's running total, so a refund made elsewhere meanwhile is counted once.
        const charge = await readCharge(chargeId, REFUND_REQUEST);
        return { id: refund.id, chargeId, amountRefunded: charge.amountRefunded };
      },
      async refundCharge(request) {
        const refund = await createRefund({ charge: request.chargeId }, request);
        const charge = await readCharge(request.chargeId, REFUND_REQUEST);
        return { id: refund.id, chargeId: request.chargeId, amountRefunded: charge.amountRefunded };
      },
      retrieveCharge: (id) => readCharge(id),
      // Stripe's "charge a saved payment method later": an off-session PaymentIntent, confirmed at
      // once. A decline is an answer (402 card_error), not a failure to reach Stripe.
      async chargeSaved(request): Promise<ChargeResult> {
        const method = request.paymentMethod;
        // Nothing to charge (an invoice the customer's credit paid): no PaymentIntent, and a reference that names none.
        if (request.amount === 0) return { status: 'succeeded', card: method.card, reference: `none_${request.idempotencyKey}` };
        const stripe = await connect();
        const { default: StripeClass } = await loadStripe();
        let intent: Stripe.PaymentIntent;
        try {
          intent = await stripe.paymentIntents.create(
            {
              amount: request.amount,
              currency: request.currency.toLowerCase(),
              payment_method: method.id,
              ...(request.customer ? { customer: request.customer } : {}),
              off_session: true,
              confirm: true,
              description: request.description,
              expand: ['latest_charge'],
            },
            { idempotencyKey: request.idempotencyKey },
          );
        } catch (error) {
          if (error instanceof StripeClass.errors.StripeCardError) {
            return { status: 'declined', code: error.code ?? 'card_declined', declineCode: error.decline_code ?? null, message: error.message, card: method.card };
          }
          throw await providerError('charge a saved card', error);
        }
        const payment = present(intent);
        if (intent.status === 'succeeded' && payment.chargeId) return { status: 'succeeded', card: payment.card ?? method.card, reference: payment.chargeId };
        if (intent.status === 'requires_action') {
          return { status: 'declined', code: 'authentication_required', declineCode: 'authentication_required', message: 'The bank asks the buyer to authenticate this payment.', card: method.card };
        }
        if (payment.failure) return { status: 'declined', code: payment.failure.code, declineCode: payment.failure.declineCode, message: payment.failure.message, card: method.card };
        // Still processing: the same key later answers the same PaymentIntent, so a retry charges once.
        throw new PaymentProviderError(`Stripe has not settled the charge yet (${intent.status}).`, intent.status);
      },
      async verifyEvent(payload, signature, webhookSecret): Promise<ProviderEvent> {
        const stripe = await connect();
        const event = stripe.webhooks.constructEvent(payload, signature, webhookSecret);
        return { id: event.id, type: event.type, object: event.data.object as unknown as Record<string, unknown> };
      },
    };
    return provider;
  };
}
