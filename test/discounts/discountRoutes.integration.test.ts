import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveDiscountCode } from '../../modules/discounts/index.ts';
import { type DomainError } from '../../platform/domain/index.ts';
import { GOOD_CARD } from '../checkout/checkoutFixtures.ts';
import { clockApp, type ClockApp } from '../subscriptions/clockApp.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The coupon and promotion code routes (Stripe's), over app.inject on a real SQLite file. */
describe('coupons and promotion codes', () => {
  let harness: ClockApp;
  let seller: { organizationId: string; token: string };
  let other: { organizationId: string; token: string };
  let productId: string;

  beforeAll(async () => {
    harness = await clockApp();
    seller = await harness.identity();
    other = await harness.identity();
    await harness.offerOf(seller.organizationId, 'lifetime', 'one_time');
    const products = await harness.call('GET', '/api/catalog/products', { token: seller.token });
    productId = products.body.data[0].id;
  });
  afterAll(async () => harness.close());

  const call = (method: 'GET' | 'POST' | 'DELETE', url: string, body?: unknown, token = seller.token) => harness.call(method, url, { token, ...(body !== undefined ? { body } : {}) });

  it('creates a coupon and its code, reads them back as Stripe shows them, and lists with filters', async () => {
    const created = await call('POST', '/api/coupons', {
      id: 'LAUNCH',
      name: 'Launch',
      percent_off: 20,
      duration: 'once',
      max_redemptions: 100,
      applies_to: { products: [productId] },
      restrictions: { minimum_amount: 1000, minimum_amount_currency: 'EUR' },
      metadata: { campaign: 'spring' },
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: 'LAUNCH',
      object: 'coupon',
      name: 'Launch',
      percent_off: 20,
      amount_off: null,
      currency: null,
      duration: 'once',
      duration_in_months: null,
      max_redemptions: 100,
      redeem_by: null,
      times_redeemed: 0,
      valid: true,
      applies_to: { products: [productId] },
      restrictions: { first_time_transaction: false, minimum_amount: 1000, minimum_amount_currency: 'eur' },
      metadata: { campaign: 'spring' },
      created: expect.any(Number),
    });
    const code = await call('POST', '/api/promotion_codes', { coupon: 'LAUNCH', code: 'Launch20', max_redemptions: 5 });
    expect(code.status).toBe(201);
    expect(code.body).toMatchObject({ id: expect.stringMatching(/^promo_/), object: 'promotion_code', code: 'Launch20', coupon: { id: 'LAUNCH', object: 'coupon' }, active: true, max_redemptions: 5, times_redeemed: 0 });
    await call('POST', '/api/promotion_codes', { coupon: 'LAUNCH', code: 'SPRING' });

    expect((await call('GET', '/api/coupons/LAUNCH')).body.name).toBe('Launch');
    expect((await call('GET', `/api/promotion_codes/${code.body.id}`)).body.code).toBe('Launch20');
    const byCode = await call('GET', '/api/promotion_codes?code=launch20');
    expect(byCode.body.data.map((c: Body) => c.id)).toEqual([code.body.id]);
    expect(byCode.body.meta).toMatchObject({ total: 1 });
    expect((await call('GET', '/api/promotion_codes?coupon=LAUNCH')).body.data).toHaveLength(2);
    const off = await call('POST', `/api/promotion_codes/${code.body.id}`, { active: false, metadata: { note: 'paused' } });
    expect(off.body).toMatchObject({ active: false, metadata: { note: 'paused' } });
    expect((await call('GET', '/api/promotion_codes?active=false')).body.data.map((c: Body) => c.code)).toEqual(['Launch20']);
    expect((await call('GET', '/api/promotion_codes?active=true')).body.data.map((c: Body) => c.code)).toEqual(['SPRING']);
    expect((await call('GET', '/api/coupons')).body.data.map((c: Body) => c.id)).toEqual(['LAUNCH']);

    // Only the name and metadata change (Stripe's update); other fields are refused.
    const renamed = await call('POST', '/api/coupons/LAUNCH', { name: 'Launch week', metadata: { campaign: '' } });
    expect(renamed.body).toMatchObject({ name: 'Launch week', metadata: {}, percent_off: 20 });
    expect((await call('POST', '/api/coupons/LAUNCH', { percent_off: 50 })).status).toBe(422);
  });

  it('keeps each organization to its own coupons and codes', async () => {
    await call('POST', '/api/coupons', { id: 'MINE', amount_off: 500, currency: 'eur' });
    const code = await call('POST', '/api/promotion_codes', { coupon: 'MINE', code: 'MINE5' });
    expect((await call('GET', '/api/coupons/MINE', undefined, other.token)).status).toBe(404);
    expect((await call('GET', `/api/promotion_codes/${code.body.id}`, undefined, other.token)).status).toBe(404);
    expect((await call('POST', `/api/promotion_codes/${code.body.id}`, { active: false }, other.token)).status).toBe(404);
    expect((await call('DELETE', '/api/coupons/MINE', undefined, other.token)).status).toBe(404);
    expect((await call('GET', '/api/coupons', undefined, other.token)).body.data).toEqual([]);
    expect((await call('GET', '/api/promotion_codes?code=MINE5', undefined, other.token)).body.data).toEqual([]);
    // The same id and code are free in another organization.
    expect((await call('POST', '/api/coupons', { id: 'MINE', percent_off: 5 }, other.token)).status).toBe(201);
    expect((await call('POST', '/api/promotion_codes', { coupon: 'MINE', code: 'mine5' }, other.token)).status).toBe(201);
    expect((await call('POST', '/api/promotion_codes', { coupon: 'MINE', code: 'mine5' })).body).toMatchObject({ code: 'promotion_code_exists' });
  });

  it('answers bad input with a field-named 422 or 409, never a 500', async () => {
    const cases: Array<[unknown, number, string]> = [
      [{ percent_off: 10, amount_off: 100, currency: 'eur' }, 422, 'amount_off'],
      [{ duration: 'once' }, 422, 'percent_off'],
      [{ amount_off: 100 }, 422, 'currency'],
      [{ percent_off: 0 }, 422, 'percent_off'],
      [{ percent_off: 101 }, 422, 'percent_off'],
      [{ percent_off: 10, duration: 'repeating' }, 422, 'duration_in_months'],
      [{ percent_off: 10, duration_in_months: 3 }, 422, 'duration_in_months'],
      [{ percent_off: 10, redeem_by: 1000 }, 422, 'redeem_by'],
      [{ percent_off: 10, applies_to: { products: ['nope'] } }, 422, 'applies_to.products'],
      [{ percent_off: 10, restrictions: { minimum_amount: 100 } }, 422, 'restrictions.minimum_amount_currency'],
      [{ id: 'has space', percent_off: 10 }, 422, 'id'],
      [{ percent_off: 10, surprise: 1 }, 422, ''],
    ];
    for (const [body, status, field] of cases) {
      const answer = await call('POST', '/api/coupons', body);
      expect(answer.status, JSON.stringify(body)).toBe(status);
      expect(answer.body.code, JSON.stringify(answer.body)).toEqual(expect.any(String));
      if (field) expect(Object.keys(answer.body.errors ?? {}), JSON.stringify(answer.body)).toContain(field);
    }
    await call('POST', '/api/coupons', { id: 'TAKEN', percent_off: 10 });
    expect(await call('POST', '/api/coupons', { id: 'TAKEN', percent_off: 10 })).toMatchObject({ status: 409, body: { code: 'resource_already_exists' } });
    expect((await call('POST', '/api/promotion_codes', { coupon: 'NONE', code: 'X1' })).body).toMatchObject({ code: 'coupon_invalid', errors: { coupon: expect.any(Array) } });
    expect((await call('POST', '/api/promotion_codes', { coupon: 'TAKEN', code: 'X2', expires_at: 1000 })).status).toBe(422);
    expect((await call('GET', '/api/promotion_codes/promo_unknown')).status).toBe(404);
    expect((await call('GET', '/api/promotion_codes/nope')).status).toBe(422);
  });

  it('deletes a coupon: gone from the list and by id, its codes no longer redeem', async () => {
    await call('POST', '/api/coupons', { id: 'GONE', percent_off: 10 });
    await call('POST', '/api/promotion_codes', { coupon: 'GONE', code: 'GONE10' });
    expect((await call('DELETE', '/api/coupons/GONE')).body).toEqual({ id: 'GONE', object: 'coupon', deleted: true });
    expect((await call('GET', '/api/coupons/GONE')).status).toBe(404);
    expect((await call('GET', '/api/coupons')).body.data.map((c: Body) => c.id)).not.toContain('GONE');
    const code = (await call('GET', '/api/promotion_codes?code=GONE10')).body.data[0];
    expect(code.coupon.valid).toBe(false);
    const refused = await resolveDiscountCode(harness.ctx(seller.organizationId), { organizationId: seller.organizationId, code: 'gone10', currency: 'eur', lines: [], customerId: null, customerEmail: null, now: 2_000_000_000 }).catch((e: DomainError) => e);
    expect(refused).toMatchObject({ code: 'discount_code_invalid' });
  });

  it('tells a returning buyer that a first-purchase code is not for them, from a real purchase', async () => {
    await call('POST', '/api/coupons', { id: 'WELCOME', percent_off: 10, restrictions: { first_time_transaction: true } });
    await call('POST', '/api/promotion_codes', { coupon: 'WELCOME', code: 'WELCOME' });
    const resolve = (email: string) =>
      resolveDiscountCode(harness.ctx(seller.organizationId), { organizationId: seller.organizationId, code: 'welcome', currency: 'eur', lines: [{ product_id: productId, amount: 4900 }], customerId: null, customerEmail: email, now: Math.floor(harness.services.clock() / 1000) });
    await expect(resolve('returning@example.com')).resolves.toMatchObject({ coupon: { id: 'WELCOME' } });
    const session = await call('POST', '/api/checkout/sessions', { offer: 'lifetime' });
    const paid = await harness.call('POST', `/api/checkout/sessions/${session.body.session.id}/pay`, { body: { email: 'Returning@Example.com', card: GOOD_CARD } });
    expect(paid.status).toBe(200);
    await expect(resolve('returning@example.com')).rejects.toMatchObject({ code: 'discount_code_first_time_only' });
    await expect(resolve('new@example.com')).resolves.toMatchObject({ promotion_code: { code: 'WELCOME' } });
  });

  it('needs the coupons scopes for an OAuth token (read for GET, write for the rest)', async () => {
    const { scopeForRoute } = await import('../../modules/oauth/domain/oauthScopes.ts');
    expect(scopeForRoute('GET', '/api/coupons/:id')).toBe('coupons:read');
    expect(scopeForRoute('POST', '/api/promotion_codes/:id')).toBe('coupons:write');
    expect(scopeForRoute('DELETE', '/api/coupons/:id')).toBe('coupons:write');
  });
});
