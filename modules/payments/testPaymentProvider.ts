import { createHash } from 'node:crypto';
import { cardSummary, luhnValid, type ChargeRequest, type ChargeResult, type PaymentProvider } from './paymentProvider.ts';

/** Stripe's test cards: the same numbers give the same outcome here. */
const DECLINES: Record<string, { declineCode: string; message: string }> = {
  '4000000000000002': { declineCode: 'generic_decline', message: 'Your card was declined.' },
  '4000000000009995': { declineCode: 'insufficient_funds', message: 'Your card has insufficient funds.' },
};
const SUCCEEDS = new Set(['4242424242424242', '5555555555554444']);

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
    const now = new Date(request.now);
    const current = now.getUTCFullYear() * 12 + now.getUTCMonth() + 1;
    if (exp_year * 12 + exp_month < current) {
      return { status: 'declined', code: 'expired_card', declineCode: null, message: 'Your card has expired.', card };
    }
    if (!/^\d{3,4}$/.test(cvc)) {
      return { status: 'declined', code: 'incorrect_cvc', declineCode: null, message: "Your card's security code is incorrect.", card };
    }
    const decline = DECLINES[number];
    if (decline) return { status: 'declined', code: 'card_declined', ...decline, card };
    if (!SUCCEEDS.has(number)) {
      return {
        status: 'declined',
        code: 'card_declined',
        declineCode: 'test_mode_live_card',
        message: 'Your card was declined. Test mode accepts only test card numbers.',
        card,
      };
    }
    const reference = `ch_test_${createHash('sha256').update(request.idempotencyKey).digest('hex').slice(0, 24)}`;
    return { status: 'succeeded', card, reference };
  },
};
