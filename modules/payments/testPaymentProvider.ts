import { createHash } from 'node:crypto';
import {
  cardSummary,
  luhnValid,
  type ChargeRequest,
  type ChargeResult,
  type PaymentMethod,
  type PaymentProvider,
  type SavedChargeRequest,
} from './paymentProvider.ts';

/** Stripe's test cards: the same numbers give the same outcome here. */
const DECLINES: Record<string, { declineCode: string; message: string }> = {
  '4000000000000002': { declineCode: 'generic_decline', message: 'Your card was declined.' },
  '4000000000009995': { declineCode: 'insufficient_funds', message: 'Your card has insufficient funds.' },
};

/** The cards that pay on a session, with the id of Stripe's test PaymentMethod of the same card. */
const SUCCEEDS: Record<string, string> = {
  '4242424242424242': 'pm_card_visa',
  '5555555555554444': 'pm_card_mastercard',
  // Pays at checkout; every later charge of the saved card is declined, as Stripe's.
  '4000000000000341': 'pm_card_chargeCustomerFail',
};
const FAILS_OFF_SESSION = 'pm_card_chargeCustomerFail';

/** A card is good through the last day of its expiry month. */
function expired(expMonth: number, expYear: number, nowMs: number): boolean {
  const now = new Date(nowMs);
  return expYear * 12 + expMonth < now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
}

/**
 * The same key gives the same reference: a retry is the same charge. Nothing is charged for an
 * amount of zero, so its reference is a setup's (Stripe's SetupIntent), not a charge's.
 */
const referenceOf = (idempotencyKey: string, amount: number) =>
  `${amount === 0 ? 'seti_test_' : 'ch_test_'}${createHash('sha256').update(idempotencyKey).digest('hex').slice(0, 24)}`;

/**
 * The built-in provider of `test` mode: no network, no money. Luhn and expiry are checked as a
 * real provider would; any other valid number is declined, as Stripe declines real cards in test mode.
 */
export const testPaymentProvider: PaymentProvider = {
  name: 'test',
  async charge(request: ChargeRequest): Promise<ChargeResult> {
    const { number, exp_month, exp_year, cvc } = request.card;
    if (!luhnValid(number)) {
      return { status: 'declined', code: 'incorrect_number', declineCode: null, message: 'Your card number is incorrect.', card: null };
    }
    const card = cardSummary(number);
    if (expired(exp_month, exp_year, request.now)) {
      return { status: 'declined', code: 'expired_card', declineCode: null, message: 'Your card has expired.', card };
    }
    if (!/^\d{3,4}$/.test(cvc)) {
      return { status: 'declined', code: 'incorrect_cvc', declineCode: null, message: "Your card's security code is incorrect.", card };
    }
    const decline = DECLINES[number];
    if (decline) return { status: 'declined', code: 'card_declined', ...decline, card };
    const methodId = SUCCEEDS[number];
    if (!methodId) {
      return {
        status: 'declined',
        code: 'card_declined',
        declineCode: 'test_mode_live_card',
        message: 'Your card was declined. Test mode accepts only test card numbers.',
        card,
      };
    }
    const reference = referenceOf(request.idempotencyKey, request.amount);
    if (!request.save) return { status: 'succeeded', card, reference };
    const paymentMethod: PaymentMethod = { id: methodId, provider: 'test', card, exp_month, exp_year };
    return { status: 'succeeded', card, reference, paymentMethod };
  },
  async chargeSaved(request: SavedChargeRequest): Promise<ChargeResult> {
    const { paymentMethod: method } = request;
    const card = method.card;
    if (request.amount === 0) return { status: 'succeeded', card, reference: referenceOf(request.idempotencyKey, 0) };
    if (expired(method.exp_month, method.exp_year, request.now)) {
      return { status: 'declined', code: 'expired_card', declineCode: null, message: 'Your card has expired.', card };
    }
    if (!Object.values(SUCCEEDS).includes(method.id)) {
      return { status: 'declined', code: 'card_declined', declineCode: 'test_mode_live_card', message: 'Your card was declined. Test mode accepts only test payment methods.', card };
    }
    if (method.id === FAILS_OFF_SESSION) {
      return { status: 'declined', code: 'card_declined', declineCode: 'generic_decline', message: 'Your card was declined.', card };
    }
    return { status: 'succeeded', card, reference: referenceOf(request.idempotencyKey, request.amount) };
  },
};
