import { describe, expect, it } from 'vitest';
import { cardBrand, luhnValid } from '../../modules/payments/paymentProvider.ts';
import { testPaymentProvider } from '../../modules/payments/testPaymentProvider.ts';

const now = Date.UTC(2026, 5, 15);
const charge = (number: string, exp: [number, number] = [12, 2030]) =>
  testPaymentProvider.charge({ amount: 100, currency: 'EUR', card: { number, exp_month: exp[0], exp_year: exp[1], cvc: '123' }, idempotencyKey: 'k', description: 'd', now });

describe('test payment provider', () => {
  it('accepts Stripe succeeding test cards', async () => {
    expect(await charge('4242424242424242')).toMatchObject({ status: 'succeeded', card: { brand: 'visa', last4: '4242' } });
    expect(await charge('5555555555554444')).toMatchObject({ status: 'succeeded', card: { brand: 'mastercard', last4: '4444' } });
  });
  it('declines Stripe declining test cards', async () => {
    expect(await charge('4000000000000002')).toMatchObject({ status: 'declined', code: 'card_declined', declineCode: 'generic_decline' });
    expect(await charge('4000000000009995')).toMatchObject({ status: 'declined', code: 'card_declined', declineCode: 'insufficient_funds' });
  });
  it('checks Luhn and expiry (a card is valid through its expiry month)', async () => {
    expect(await charge('4242424242424241')).toMatchObject({ status: 'declined', code: 'incorrect_number' });
    expect(await charge('4242424242424242', [5, 2026])).toMatchObject({ status: 'declined', code: 'expired_card' });
    expect(await charge('4242424242424242', [6, 2026])).toMatchObject({ status: 'succeeded' });
  });
  it('knows brands and Luhn', () => {
    expect(cardBrand('378282246310005')).toBe('amex');
    expect(luhnValid('378282246310005')).toBe(true);
    expect(luhnValid('1234567812345678')).toBe(false);
  });
});
