import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCoupon, createPromotionCode } from '../../modules/discounts/discountCommands.ts';
import { expireSession, reserveSessionRedemption } from '../../modules/checkout/sessionCommands.ts';
import { readSessionSnapshot } from '../../modules/checkout/sessionSnapshot.ts';
import { checkoutSessionDecider, checkoutSessionStream } from '../../modules/checkout/domain/checkoutSession.ts';
import { fold } from '../../platform/domain/index.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { DECLINED_CARD, GOOD_CARD, json, makeOffer } from './checkoutFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('discount codes at checkout', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000' } });
  });
  afterAll(() => server.close({ remove: true }));

  const post = async (path: string, body: unknown) => {
    const response = await server.fetch(path, json(body));
    return { status: response.status, body: (await response.json()) as Body };
  };
  const events = async (type: string) => (await server.services.store.readAll({ after: null, limit: 1_000_000 })).filter((e) => e.type === type);

  async function seller(code: string, coupon: Parameters<typeof createCoupon>[1] extends infer C ? Partial<C> : never = {}) {
    const org = await server.identity();
    const ctx = server.cliContext(org.organizationId);
    const { id } = await createCoupon(ctx, { organizationId: org.organizationId, name: 'Launch', percent_off: 20, duration: 'once', ...coupon });
    await createPromotionCode(ctx, { organizationId: org.organizationId, coupon: id, code });
    const offer = await makeOffer(server, org.organizationId);
    return { org, offer, couponId: id };
  }

  it('prices a session created with a code, and refuses a wrong one without making a session', async () => {
    const { offer } = await seller('LAUNCH20');
    const created = await post('/api/checkout/sessions', { offer: offer.slug, discount_code: 'launch20' });
    expect(created.status).toBe(201);
    // 1900 + 500 at 20% off, each line on its own: 380 + 100.
    expect(created.body.session).toMatchObject({
      total: 1920,
      amount_subtotal: 2400,
      total_details: { amount_discount: 480, amount_tax: 0 },
      discounts: [{ coupon: { percent_off: 20 }, promotion_code: { code: 'LAUNCH20' } }],
      customer_details: null,
    });
    const before = (await events('CheckoutSessionCreated')).length;
    const wrong = await post('/api/checkout/sessions', { offer: offer.slug, discount_code: 'NOPE' });
    expect(wrong.status).toBe(422);
    expect(wrong.body).toMatchObject({ code: 'discount_code_invalid', errors: { discount_code: ['This code is not valid.'] } });
    expect((await events('CheckoutSessionCreated')).length).toBe(before);
  });

  it('applies and removes a code on start, on the session and its open invoice; a wrong code changes nothing', async () => {
    const { offer } = await seller('SPRING');
    const created = await post('/api/checkout/sessions', { offer: offer.slug });
    const id = created.body.session.id as string;
    const started = await post(`/api/checkout/sessions/${id}/start`, { email: 'ada@example.com' });
    expect(started.body.invoice).toMatchObject({ total: 2400, subtotal: 2400, discounts: [], total_discount_amounts: [], tax: null });

    const applied = await post(`/api/checkout/sessions/${id}/start`, { discount_code: 'spring' });
    expect(applied.status).toBe(200);
    expect(applied.body.session).toMatchObject({ total: 1920, total_details: { amount_discount: 480 } });
    expect(applied.body.invoice).toMatchObject({ total: 1920, subtotal: 2400, total_discount_amounts: [{ amount: 480, discount: { promotion_code: { code: 'SPRING' } } }] });

    const repriced = (await events('CheckoutSessionRepriced')).filter((e) => e.stream === `checkout_session-${id}`).length;
    const wrong = await post(`/api/checkout/sessions/${id}/start`, { discount_code: 'WINTER' });
    expect(wrong.status).toBe(422);
    expect(wrong.body.code).toBe('discount_code_invalid');
    expect((await events('CheckoutSessionRepriced')).filter((e) => e.stream === `checkout_session-${id}`).length).toBe(repriced);
    const again = await post(`/api/checkout/sessions/${id}/start`, { discount_code: 'SPRING' });
    expect(again.body.session.total).toBe(1920);
    expect((await events('CheckoutSessionRepriced')).filter((e) => e.stream === `checkout_session-${id}`).length).toBe(repriced);

    const removed = await post(`/api/checkout/sessions/${id}/start`, { discount_code: null });
    expect(removed.body.session).toMatchObject({ total: 2400, discounts: [], total_details: { amount_discount: 0 } });
    expect(removed.body.invoice).toMatchObject({ total: 2400, discounts: [] });
    const paid = await post(`/api/checkout/sessions/${id}/pay`, { card: GOOD_CARD, discount_code: 'SPRING' });
    expect(paid.status).toBe(200);
    expect(paid.body.invoice).toMatchObject({ status: 'paid', total: 1920 });
  });

  it('releases the redemption of a declined card and confirms it once paid', async () => {
    const { offer, couponId, org } = await seller('ONCE', { max_redemptions: 1 });
    const first = await post('/api/checkout/sessions', { offer: offer.slug, discount_code: 'ONCE' });
    const id = first.body.session.id as string;
    const declined = await post(`/api/checkout/sessions/${id}/pay`, { email: 'a@example.com', card: DECLINED_CARD });
    expect(declined.status).toBe(402);
    // Released: another buyer can take the one redemption.
    const second = await post('/api/checkout/sessions', { offer: offer.slug, discount_code: 'ONCE' });
    const paid = await post(`/api/checkout/sessions/${second.body.session.id}/pay`, { email: 'b@example.com', card: GOOD_CARD });
    expect(paid.status).toBe(200);
    expect(paid.body.invoice.total).toBe(1920);
    const redeemed = (await events('CouponRedeemed')).filter((e) => e.stream.includes(couponId));
    expect(redeemed).toHaveLength(1);
    // The first buyer's retry finds the code used up: refused before any charge.
    const paidBefore = (await events('InvoicePaid')).length;
    const retry = await post(`/api/checkout/sessions/${id}/pay`, { email: 'a@example.com', card: GOOD_CARD });
    expect(retry.status).toBe(409);
    expect(retry.body.code).toBe('discount_code_exhausted');
    expect((await events('InvoicePaid')).length).toBe(paidBefore);
    void org;
  });

  it('gives the last redemption to exactly one of 25 buyers paying at once', async () => {
    const { offer, couponId } = await seller('LAST', { max_redemptions: 1 });
    const sessions = await Promise.all(Array.from({ length: 25 }, () => post('/api/checkout/sessions', { offer: offer.slug, discount_code: 'LAST' })));
    expect(sessions.every((s) => s.status === 201 && s.body.session.total === 1920)).toBe(true);
    const paidBefore = (await events('InvoicePaid')).length;
    const outcomes = await Promise.all(
      sessions.map((s, i) => post(`/api/checkout/sessions/${s.body.session.id}/pay`, { email: `buyer${i}@example.com`, card: GOOD_CARD })),
    );
    const ok = outcomes.filter((o) => o.status === 200);
    expect(ok).toHaveLength(1);
    expect(ok[0]!.body.invoice.total).toBe(1920);
    for (const o of outcomes.filter((x) => x.status !== 200)) expect(o).toMatchObject({ status: 409, body: { code: 'discount_code_exhausted' } });
    // No charge but the one: one paid invoice, one redemption.
    expect((await events('InvoicePaid')).length - paidBefore).toBe(1);
    expect((await events('CouponRedeemed')).filter((e) => e.stream.includes(couponId))).toHaveLength(1);
  });

  it("releases the redemption an expired session held when its process stopped before the charge", async () => {
    const { offer, org } = await seller('HELD', { max_redemptions: 1 });
    const held = await post('/api/checkout/sessions', { offer: offer.slug, discount_code: 'HELD' });
    const heldId = held.body.session.id as string;
    const other = await post('/api/checkout/sessions', { offer: offer.slug, discount_code: 'HELD' });
    const otherId = other.body.session.id as string;
    // As a pay that reserved, then stopped before charging.
    const state = fold(checkoutSessionDecider, (await server.services.store.readStream(checkoutSessionStream(heldId))) as never);
    if (state.status === 'none') throw new Error('no session');
    await reserveSessionRedemption(server.cliContext(org.organizationId), state.session);
    expect((await post(`/api/checkout/sessions/${otherId}/pay`, { email: 'b@example.com', card: DECLINED_CARD })).body.code).toBe('discount_code_exhausted');
    const later = { ...server.cliContext(org.organizationId) };
    later.metadata = { ...later.metadata, occurred_at: later.metadata.occurred_at + 2 * 86_400 };
    expect((await expireSession(later, heldId)).expired).toBe(true);
    expect((await readSessionSnapshot(server.services.store, heldId))?.view.status).toBe('expired');
    // The subscriber lets go of it: the other buyer's card is tried (and declined), the code is no longer the refusal.
    await expect.poll(async () => (await post(`/api/checkout/sessions/${otherId}/pay`, { email: 'b@example.com', card: DECLINED_CARD })).status, { timeout: 20_000 }).toBe(402);
  });
});
