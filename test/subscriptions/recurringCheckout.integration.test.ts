import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutSessionDecider, checkoutSessionStream } from '../../modules/checkout/domain/checkoutSession.ts';
import { invoiceDecider, invoiceStream } from '../../modules/checkout/domain/invoice.ts';
import { offerSlugStream } from '../../modules/checkout/domain/offer.ts';
import { loadOffer } from '../../modules/checkout/offerCommands.ts';
import { completePaidInvoiceSession, createSession } from '../../modules/checkout/sessionCommands.ts';
import { testPaymentProvider } from '../../modules/payments/testPaymentProvider.ts';
import { encodeRouteKey } from '../../platform/lib/routeKeys.ts';
import { handleCommand } from '../../platform/es/handleCommand.ts';
import { GOOD_CARD } from '../checkout/checkoutFixtures.ts';
import { clockApp, type ClockApp } from './clockApp.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const T0 = Date.UTC(2027, 0, 31, 12) / 1000;
const FAILS_LATER = { ...GOOD_CARD, number: '4000 0000 0000 0341' };

describe('checkout of a recurring plan', () => {
  let harness: ClockApp;
  let seller: { organizationId: string; token: string };
  let other: { organizationId: string; token: string };

  beforeAll(async () => {
    harness = await clockApp();
    seller = await harness.identity();
    other = await harness.identity();
    await harness.offerOf(seller.organizationId, 'monthly-pro');
    await harness.offerOf(seller.organizationId, 'lifetime-pro', 'one_time');
  });
  afterAll(async () => harness.close());

  const createSessionOf = (body: Body, token?: string) => harness.call('POST', '/api/checkout/sessions', { ...(token ? { token } : {}), body });
  const pay = (id: string, card = GOOD_CARD) => harness.call('POST', `/api/checkout/sessions/${id}/pay`, { body: { email: 'buyer@example.com', card } });
  const eventsOf = async (stream: string) => (await harness.services.store.readStream(stream)).map((e) => ({ type: e.type, data: e.data as Body }));
  const newClock = async (token = seller.token) => (await harness.call('POST', '/api/test_clocks', { token, body: { frozen_time: T0 } })).body.id as string;

  it("records the plan's terms and the clock, saves the card, and names the subscription on completion", async () => {
    const clock = await newClock();
    const created = await createSessionOf({ offer: 'monthly-pro', test_clock: clock }, seller.token);
    expect(created.status).toBe(201);
    expect(created.body.session).toMatchObject({ total: 1900, subscription: null });
    const id = created.body.session.id as string;
    const [first] = await eventsOf(checkoutSessionStream(id));
    expect(first!.data).toMatchObject({ recurring: { renew_interval: 'P1Y', invoice_interval: 'P1M', trial_period_days: null }, test_clock: clock });

    const paid = await pay(id);
    expect(paid.status).toBe(200);
    expect(paid.body.session.subscription).toEqual({ id: expect.stringMatching(/^sub_[A-Za-z0-9]{24}$/), status: 'active' });
    const completed = (await eventsOf(checkoutSessionStream(id))).find((e) => e.type === 'CheckoutSessionCompleted')!;
    const method = { id: 'pm_card_visa', provider: 'test', card: { brand: 'visa', last4: '4242' }, exp_month: 12, exp_year: 2099 };
    expect(completed.data).toMatchObject({ subscription_id: paid.body.session.subscription.id, payment_method: method });
    const invoicePaid = (await eventsOf(invoiceStream(paid.body.invoice.id))).find((e) => e.type === 'InvoicePaid')!;
    expect(invoicePaid.data.payment_method).toEqual(method);

    await harness.settle();
    const read = await harness.call('GET', `/api/checkout/sessions/${id}`);
    expect(read.body.session.subscription).toEqual(paid.body.session.subscription);
  });

  it('makes no subscription of a one-time plan', async () => {
    const created = await createSessionOf({ offer: 'lifetime-pro' });
    const id = created.body.session.id as string;
    const [first] = await eventsOf(checkoutSessionStream(id));
    expect(first!.data).not.toHaveProperty('recurring');
    const paid = await pay(id);
    expect(paid.body.session.subscription).toBeNull();
    const completed = (await eventsOf(checkoutSessionStream(id))).find((e) => e.type === 'CheckoutSessionCompleted')!;
    expect(completed.data).not.toHaveProperty('subscription_id');
    expect(completed.data).not.toHaveProperty('payment_method');
  });

  it('refuses a clock from a public caller, in live mode, of another organization, deleted or unknown', async () => {
    const clock = await newClock();
    const othersClock = await newClock(other.token);
    const deletedClock = await newClock();
    await harness.call('DELETE', `/api/test_clocks/${deletedClock}`, { token: seller.token });
    const cases: Array<[Body, string | undefined, string]> = [
      [{ offer: 'monthly-pro', test_clock: clock }, undefined, 'test_clock_needs_credential'],
      [{ offer: 'monthly-pro', test_clock: clock, mode: 'live' }, seller.token, 'test_clock_live_mode'],
      [{ offer: 'monthly-pro', test_clock: othersClock }, seller.token, 'unknown_test_clock'],
      [{ offer: 'monthly-pro', test_clock: deletedClock }, seller.token, 'unknown_test_clock'],
      [{ offer: 'monthly-pro', test_clock: 'clock_doesnotexist' }, seller.token, 'unknown_test_clock'],
    ];
    for (const [body, token, code] of cases) {
      const refused = await createSessionOf(body, token);
      expect(refused.status, code).toBe(422);
      expect(refused.body).toMatchObject({ code, errors: { test_clock: [expect.any(String)] } });
    }
    expect((await createSessionOf({ offer: 'monthly-pro', test_clock: 'not a clock' }, seller.token)).status).toBe(422);
  });

  /** The monthly offer as a session sees it, with a trial (the offer's trial_period_days). */
  async function trialOffer() {
    const offer = await loadOffer(harness.ctx(seller.organizationId), await offerUuid('monthly-pro'));
    if (offer.status === 'none') throw new Error('no offer');
    return {
      uuid: offer.uuid,
      route_key: encodeRouteKey(offer.id),
      slug: offer.slug,
      name: offer.name,
      organization_id: offer.organizationId,
      plan: offer.plan,
      currency: offer.currency,
      trial_period_days: 14,
    };
  }

  it('sells a trial in live mode too, charging nothing (the card is set up with Stripe when paid)', async () => {
    const { state } = await createSession(harness.ctx(seller.organizationId), { offer: await trialOffer(), customer: null, metadata: {}, mode: 'live', expiresIn: 3600, promo: null });
    expect(state.status === 'open' && state.session).toMatchObject({ mode: 'live', total: 0, recurring: { trial_period_days: 14 } });
  });

  it('charges nothing during a trial and saves the card, even one that will fail later', async () => {
    const { state } = await createSession(harness.ctx(seller.organizationId), {
      offer: await trialOffer(),
      customer: null,
      metadata: {},
      mode: 'test',
      expiresIn: 3600,
      promo: null,
    });
    if (state.status === 'none') throw new Error('no session');
    expect(state.session.total).toBe(0);
    // Each line names its product, for a coupon limited to products.
    expect(state.session.lines).toEqual([
      { name: 'Monthly', amount: 0, product_id: expect.any(String) },
      { name: 'Free trial: 14 days', amount: 0, product_id: expect.any(String) },
    ]);
    expect(state.session.recurring).toEqual({ renew_interval: 'P1Y', invoice_interval: 'P1M', trial_period_days: 14 });
    const paid = await pay(state.session.id, FAILS_LATER);
    expect(paid.status).toBe(200);
    expect(paid.body.invoice.total).toBe(0);
    expect(paid.body.session.subscription).toEqual({ id: expect.stringMatching(/^sub_/), status: 'trialing' });
    const completed = (await eventsOf(checkoutSessionStream(state.session.id))).find((e) => e.type === 'CheckoutSessionCompleted')!;
    expect(completed.data.payment_method).toMatchObject({ id: 'pm_card_chargeCustomerFail', card: { last4: '0341' } });
  });

  it('completes a session whose payment a crash cut short with the card that payment saved', async () => {
    const created = await createSessionOf({ offer: 'monthly-pro' });
    const id = created.body.session.id as string;
    const started = await harness.call('POST', `/api/checkout/sessions/${id}/start`, { body: { email: 'buyer@example.com' } });
    const invoiceId = started.body.invoice.id as string;
    const ctx = harness.ctx(seller.organizationId);
    // The pay request's steps up to the paid invoice; the process dies before the completion.
    await handleCommand(ctx, checkoutSessionStream(id), checkoutSessionDecider, { type: 'AttemptPayment', attemptId: 'pa_crash', now: ctx.metadata.occurred_at });
    const charge = await testPaymentProvider.charge({
      amount: 1900,
      currency: 'EUR',
      card: { number: '5555555555554444', exp_month: 12, exp_year: 2099, cvc: '123' },
      idempotencyKey: 'pa_crash',
      description: 'crash',
      now: harness.services.clock(),
      save: true,
    });
    if (charge.status !== 'succeeded') throw new Error('charge declined');
    await handleCommand(ctx, invoiceStream(invoiceId), invoiceDecider, {
      type: 'PayInvoice',
      attemptId: 'pa_crash',
      card: charge.card,
      customer: null,
      chargeId: charge.reference,
      provider: 'test',
      paymentMethod: charge.paymentMethod ?? null,
      now: ctx.metadata.occurred_at,
    });
    expect(await completePaidInvoiceSession(ctx, invoiceId)).toEqual({ completed: true });
    const completed = (await eventsOf(checkoutSessionStream(id))).find((e) => e.type === 'CheckoutSessionCompleted')!;
    expect(completed.data).toMatchObject({ subscription_id: expect.stringMatching(/^sub_/), payment_method: { id: 'pm_card_mastercard', card: { last4: '4444' } } });
    // Completing again decides nothing: the subscription keeps its one id.
    expect(await completePaidInvoiceSession(ctx, invoiceId)).toEqual({ completed: false });
    expect((await eventsOf(checkoutSessionStream(id))).filter((e) => e.type === 'CheckoutSessionCompleted')).toHaveLength(1);
  });

  async function offerUuid(slug: string): Promise<string> {
    const [claim] = await harness.services.store.readStream(offerSlugStream(slug));
    return (claim!.data as { offer_uuid: string }).offer_uuid;
  }
});
