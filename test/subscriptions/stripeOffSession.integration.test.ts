import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PaymentMethod } from '../../modules/payments/paymentProvider.ts';
import { stripeClientFactory } from '../../modules/payments/stripeProvider.ts';
import { startFakeStripe, type FakeStripe } from '../helpers/fakeStripe.ts';

/* A renewal's charge of the card saved at checkout, through Stripe's own package, at the HTTP boundary of the Stripe stand-in. */

const method = (id: string): PaymentMethod => ({ id, provider: 'stripe', card: { brand: 'visa', last4: '4242' }, exp_month: 12, exp_year: 2034 });

describe('Stripe off-session charges of a saved card', () => {
  let stripe: FakeStripe;
  let provider: ReturnType<ReturnType<typeof stripeClientFactory>>;

  beforeAll(async () => {
    stripe = await startFakeStripe();
    provider = stripeClientFactory({ STRIPE_API_HOST: '127.0.0.1', STRIPE_API_PORT: stripe.port, STRIPE_API_PROTOCOL: 'http' })(stripe.account().secretKey);
  });
  afterAll(async () => stripe.close());

  const charge = (pm: string, idempotencyKey: string, amount = 1900) =>
    provider.chargeSaved({ paymentMethod: method(pm), customer: 'cus_123', amount, currency: 'EUR', idempotencyKey, description: 'Pro, renewal', now: Date.now() });

  it('confirms an off-session PaymentIntent on the saved method, once per idempotency key', async () => {
    const first = await charge('pm_card_visa', 'in_1:1');
    expect(first).toMatchObject({ status: 'succeeded', card: { brand: 'visa', last4: '4242' }, reference: expect.stringMatching(/^ch_/) });
    const call = stripe.calls.find((c) => c.path === '/v1/payment_intents' && c.idempotencyKey === 'in_1:1')!;
    expect(call.body).toMatchObject({ amount: '1900', currency: 'eur', payment_method: 'pm_card_visa', customer: 'cus_123', off_session: 'true', confirm: 'true' });
    // A retry after a crash sends the same key: Stripe answers the first charge, and charges nothing more.
    expect(await charge('pm_card_visa', 'in_1:1')).toEqual(first);
    const second = await charge('pm_card_visa', 'in_1:2');
    expect(second.status === 'succeeded' && first.status === 'succeeded' && second.reference !== first.reference).toBe(true);
  });

  it("reports Stripe's card errors as declines, authentication_required included", async () => {
    expect(await charge('pm_card_chargeCustomerFail', 'in_2:1')).toMatchObject({ status: 'declined', code: 'card_declined', declineCode: 'generic_decline' });
    expect(await charge('pm_card_authenticationRequired', 'in_3:1')).toMatchObject({ status: 'declined', code: 'authentication_required' });
  });

  it('calls Stripe for nothing when nothing is owed, and fails loudly when Stripe refuses the request', async () => {
    const before = stripe.calls.length;
    expect(await charge('pm_card_visa', 'in_4:1', 0)).toMatchObject({ status: 'succeeded' });
    expect(stripe.calls.length).toBe(before);
    await expect(charge('pm_unknown', 'in_5:1')).rejects.toMatchObject({ name: 'PaymentProviderError', providerCode: 'resource_missing' });
  });
});
