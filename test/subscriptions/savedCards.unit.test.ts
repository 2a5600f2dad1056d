import { describe, expect, it } from 'vitest';
import type { PaymentMethod } from '../../modules/payments/paymentProvider.ts';
import { testPaymentProvider } from '../../modules/payments/testPaymentProvider.ts';

const now = Date.UTC(2026, 5, 15);
const pay = (number: string, save = true, amount = 500) =>
  testPaymentProvider.charge({ amount, currency: 'EUR', card: { number, exp_month: 12, exp_year: 2030, cvc: '123' }, idempotencyKey: 'pa_1', description: 'd', now, save });
const saved = (method: PaymentMethod, key = 'in_1:1', amount = 500, at = now) =>
  testPaymentProvider.chargeSaved({ paymentMethod: method, amount, currency: 'EUR', idempotencyKey: key, description: 'renewal', now: at });

async function methodOf(number: string): Promise<PaymentMethod> {
  const result = await pay(number);
  if (result.status !== 'succeeded' || !result.paymentMethod) throw new Error(`no payment method: ${JSON.stringify(result)}`);
  return result.paymentMethod;
}

describe('saved cards of the test provider', () => {
  it("answers with Stripe's test PaymentMethod of the card when asked to save it", async () => {
    expect(await methodOf('4242424242424242')).toEqual({ id: 'pm_card_visa', provider: 'test', card: { brand: 'visa', last4: '4242' }, exp_month: 12, exp_year: 2030 });
    expect((await methodOf('5555555555554444')).id).toBe('pm_card_mastercard');
    expect((await methodOf('4000000000000341')).id).toBe('pm_card_chargeCustomerFail');
    expect(await pay('4242424242424242', false)).not.toHaveProperty('paymentMethod');
  });

  it('charges a saved card once per idempotency key', async () => {
    const visa = await methodOf('4242424242424242');
    const first = await saved(visa, 'in_1:1');
    expect(first).toMatchObject({ status: 'succeeded', card: { brand: 'visa', last4: '4242' } });
    expect(await saved(visa, 'in_1:1')).toEqual(first);
    const other = await saved(visa, 'in_1:2');
    expect(other.status === 'succeeded' && first.status === 'succeeded' && other.reference !== first.reference).toBe(true);
  });

  it('declines every later charge of 4000000000000341, which paid at checkout', async () => {
    expect(await pay('4000000000000341')).toMatchObject({ status: 'succeeded' });
    const failing = await methodOf('4000000000000341');
    expect(await saved(failing)).toMatchObject({ status: 'declined', code: 'card_declined', declineCode: 'generic_decline', card: { last4: '0341' } });
  });

  it("declines a saved card past its expiry month at the charge's time", async () => {
    const visa = await methodOf('4242424242424242');
    expect(await saved(visa, 'k', 500, Date.UTC(2030, 11, 31, 23))).toMatchObject({ status: 'succeeded' });
    expect(await saved(visa, 'k', 500, Date.UTC(2031, 0, 1))).toMatchObject({ status: 'declined', code: 'expired_card' });
  });

  it('charges nothing for an amount of zero, and refuses a method it never saved', async () => {
    const failing = await methodOf('4000000000000341');
    const check = await saved(failing, 'trial', 0);
    expect(check.status).toBe('succeeded');
    expect(check.status === 'succeeded' && check.reference).toMatch(/^seti_test_/);
    expect(await saved({ ...failing, id: 'pm_live_123' })).toMatchObject({ status: 'declined', declineCode: 'test_mode_live_card' });
  });
});
