import { afterEach, describe, expect, it } from 'vitest';
import { openSqliteEventStore } from '../../platform/eventStore/sqlite/sqliteEventStore.ts';
import type { CommandContext } from '../../platform/es/index.ts';
import { DomainError } from '../../platform/domain/index.ts';
import { confirmRedemption, couponDiscount, releaseRedemption, reserveRedemption, resolveDiscountCode } from '../../modules/discounts/index.ts';
import { createCoupon, createPromotionCode, deleteCoupon, loadCoupon, updatePromotionCode } from '../../modules/discounts/discountCommands.ts';
import { ensureCustomer } from '../../modules/customers/index.ts';
import { openTempStores } from '../helpers/sqliteStores.ts';

const NOW = 1_800_000_000;
const ORG = 'org_seller';
const OTHER = 'org_other';

function context(store: CommandContext['store'], organizationId = ORG): CommandContext {
  return { store, metadata: { correlation_id: 'test', actor: { type: 'system', name: 'test' }, organization_id: organizationId, occurred_at: NOW } };
}

const lines = [{ product_id: 'prod_a', amount: 5000 }];
const resolveInput = (code: string, over: Partial<Parameters<typeof resolveDiscountCode>[1]> = {}) => ({
  organizationId: ORG,
  code,
  currency: 'eur',
  lines,
  customerId: null,
  customerEmail: null,
  now: NOW,
  ...over,
});

async function refusal(promise: Promise<unknown>): Promise<{ kind: string; code: string; fields: unknown; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof DomainError) return { kind: error.kind, code: error.code, fields: error.fields, message: error.message };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('discount redemptions', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup.length = 0;
  });

  it('resolves a code whatever its case, to the coupon and the code as Stripe names them', async () => {
    const { store } = openTempStores(cleanup, 'discounts-');
    const ctx = context(store);
    await createCoupon(ctx, { organizationId: ORG, id: 'LAUNCH', name: 'Launch', percent_off: 20, duration: 'once' });
    const { id } = await createPromotionCode(ctx, { organizationId: ORG, coupon: 'LAUNCH', code: 'Launch20' });
    expect(id).toMatch(/^promo_[A-Za-z0-9]{14}$/);
    const discount = await resolveDiscountCode(ctx, resolveInput('  launch20 '));
    expect(discount).toEqual({
      coupon: { id: 'LAUNCH', name: 'Launch', percent_off: 20, amount_off: null, currency: null, duration: 'once', duration_in_months: null, applies_to: null },
      promotion_code: { id, code: 'Launch20' },
    });
    // Another organization's buyer typing the same code: the one answer for every unknown code.
    const other = await refusal(resolveDiscountCode(context(store, OTHER), resolveInput('LAUNCH20', { organizationId: OTHER })));
    expect(other).toMatchObject({ kind: 'invalid', code: 'discount_code_invalid', fields: { discount_code: ['This code is not valid.'] } });
    expect(await refusal(resolveDiscountCode(ctx, resolveInput('NOPE')))).toMatchObject({ code: 'discount_code_invalid' });
    // Unique per organization whatever the case; another organization may have it.
    expect(await refusal(createPromotionCode(ctx, { organizationId: ORG, coupon: 'LAUNCH', code: 'LAUNCH20' }))).toMatchObject({ kind: 'conflict', code: 'promotion_code_exists' });
    await createCoupon(context(store, OTHER), { organizationId: OTHER, id: 'LAUNCH', percent_off: 50 });
    await createPromotionCode(context(store, OTHER), { organizationId: OTHER, coupon: 'LAUNCH', code: 'launch20' });
    expect((await resolveDiscountCode(ctx, resolveInput('LAUNCH20'))).coupon.percent_off).toBe(20);
  });

  it('refuses inactive, deleted, expired, exhausted and inapplicable codes with a message a buyer reads', async () => {
    const { store } = openTempStores(cleanup, 'discounts-');
    const ctx = context(store);
    await createCoupon(ctx, { organizationId: ORG, id: 'TEN', amount_off: 1000, currency: 'EUR', redeem_by: NOW + 100, applies_to: { products: ['prod_a'] }, restrictions: { minimum_amount: 3000, minimum_amount_currency: 'eur' } });
    const off = await createPromotionCode(ctx, { organizationId: ORG, coupon: 'TEN', code: 'OFF' });
    await createPromotionCode(ctx, { organizationId: ORG, coupon: 'TEN', code: 'OLD', expires_at: NOW - 1 });
    await createPromotionCode(ctx, { organizationId: ORG, coupon: 'TEN', code: 'ONE', max_redemptions: 1 });
    expect((await resolveDiscountCode(ctx, resolveInput('off'))).coupon).toMatchObject({ amount_off: 1000, currency: 'eur' });

    expect(await refusal(resolveDiscountCode(ctx, resolveInput('OLD')))).toMatchObject({ kind: 'invalid', code: 'discount_code_expired', message: 'This code has expired.' });
    expect(await refusal(resolveDiscountCode(ctx, resolveInput('OFF', { now: NOW + 100 })))).toMatchObject({ code: 'discount_code_expired' });
    expect(await refusal(resolveDiscountCode(ctx, resolveInput('OFF', { currency: 'usd' })))).toMatchObject({ code: 'discount_code_not_applicable' });
    expect(await refusal(resolveDiscountCode(ctx, resolveInput('OFF', { lines: [{ product_id: 'prod_b', amount: 5000 }] })))).toMatchObject({ code: 'discount_code_not_applicable' });
    expect(await refusal(resolveDiscountCode(ctx, resolveInput('OFF', { lines: [{ product_id: 'prod_a', amount: 2999 }] })))).toMatchObject({
      code: 'discount_code_not_applicable',
      message: 'This order is below the minimum amount for this code.',
    });

    const one = await resolveDiscountCode(ctx, resolveInput('ONE'));
    await reserveRedemption(ctx, { organizationId: ORG, discount: one, key: 'cs_1', customerId: null, now: NOW });
    // A reserved redemption holds the limit: the next buyer is told at once.
    expect(await refusal(resolveDiscountCode(ctx, resolveInput('one')))).toMatchObject({ code: 'discount_code_exhausted', message: 'This code has been used up.' });
    expect(await refusal(reserveRedemption(ctx, { organizationId: ORG, discount: one, key: 'cs_2', customerId: null, now: NOW }))).toMatchObject({ kind: 'conflict', code: 'discount_code_exhausted' });
    // Released on a decline: the code is free again.
    await releaseRedemption(ctx, { organizationId: ORG, discount: one, key: 'cs_1', now: NOW });
    await resolveDiscountCode(ctx, resolveInput('one'));

    await updatePromotionCode(ctx, ORG, off.id, { active: false });
    expect(await refusal(resolveDiscountCode(ctx, resolveInput('OFF')))).toMatchObject({ code: 'discount_code_invalid' });
    await deleteCoupon(ctx, ORG, 'TEN');
    expect(await refusal(resolveDiscountCode(ctx, resolveInput('ONE')))).toMatchObject({ code: 'discount_code_invalid' });
    expect(await couponDiscount(ctx, { organizationId: ORG, couponId: 'TEN', currency: 'eur', lines, now: NOW })).toBeNull();
  });

  it('counts a confirmed redemption once, keeps a confirmed one from release, and frees a released one', async () => {
    const { store } = openTempStores(cleanup, 'discounts-');
    const ctx = context(store);
    await createCoupon(ctx, { organizationId: ORG, id: 'TWO', percent_off: 10, max_redemptions: 2 });
    const code = await createPromotionCode(ctx, { organizationId: ORG, coupon: 'TWO', code: 'TWO' });
    const discount = await resolveDiscountCode(ctx, resolveInput('TWO'));
    const reserve = (key: string) => reserveRedemption(ctx, { organizationId: ORG, discount, key, customerId: null, now: NOW });
    const confirm = (key: string) => confirmRedemption(ctx, { organizationId: ORG, discount, key, invoiceId: `in_${key}`, customerId: 'cus_x', amountDiscount: 500, currency: 'EUR', now: NOW });
    await reserve('cs_a');
    await reserve('cs_a');
    await reserve('cs_b');
    await confirm('cs_a');
    await confirm('cs_a');
    await releaseRedemption(ctx, { organizationId: ORG, discount, key: 'cs_a', now: NOW });
    await releaseRedemption(ctx, { organizationId: ORG, discount, key: 'cs_never', now: NOW });
    expect(await refusal(reserve('cs_c'))).toMatchObject({ code: 'discount_code_exhausted' });
    await releaseRedemption(ctx, { organizationId: ORG, discount, key: 'cs_b', now: NOW });
    await reserve('cs_c');
    const state = await loadCoupon(ctx, ORG, 'TWO');
    if (state.status === 'none') throw new Error('coupon missing');
    expect(state.times_redeemed).toBe(1);
    expect(state.codes[code.id]!.times_redeemed).toBe(1);
    const redeemed = (await store.readStream(`coupon-${ORG}-TWO`)).filter((e) => e.type === 'CouponRedeemed');
    expect(redeemed.map((e) => e.data)).toEqual([
      { key: 'cs_a', coupon_id: 'TWO', promotion_code_id: code.id, invoice_id: 'in_cs_a', customer_id: 'cus_x', amount_discount: 500, currency: 'eur', redeemed_at: NOW },
    ]);
  });

  it('gives the last redemption to exactly one of 25 buyers racing from their own connections', async () => {
    const { store, file } = openTempStores(cleanup, 'discounts-race-');
    const ctx = context(store);
    await createCoupon(ctx, { organizationId: ORG, id: 'LAST', percent_off: 20, max_redemptions: 10 });
    const code = await createPromotionCode(ctx, { organizationId: ORG, coupon: 'LAST', code: 'LAST', max_redemptions: 3 });
    const discount = await resolveDiscountCode(ctx, resolveInput('LAST'));
    await reserveRedemption(ctx, { organizationId: ORG, discount, key: 'cs_early_1', customerId: null, now: NOW });
    await confirmRedemption(ctx, { organizationId: ORG, discount, key: 'cs_early_1', invoiceId: 'in_1', customerId: null, amountDiscount: 1, currency: 'eur', now: NOW });
    await reserveRedemption(ctx, { organizationId: ORG, discount, key: 'cs_early_2', customerId: null, now: NOW });
    // One store per buyer: separate connections to the file, so only the append's expected revision orders them.
    const stores = Array.from({ length: 25 }, () => openSqliteEventStore({ file }));
    cleanup.push(async () => {
      for (const s of stores) await s.close();
    });
    const outcomes = await Promise.allSettled(stores.map((s, i) => reserveRedemption(context(s), { organizationId: ORG, discount, key: `cs_race_${i}`, customerId: null, now: NOW })));
    const won = outcomes.filter((o) => o.status === 'fulfilled');
    const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(24);
    for (const l of lost) expect(l.reason).toMatchObject({ kind: 'conflict', code: 'discount_code_exhausted' });
    const reserved = (await store.readStream(`coupon-${ORG}-LAST`)).filter((e) => e.type === 'RedemptionReserved' && (e.data as { key: string }).key.startsWith('cs_race_'));
    expect(reserved).toHaveLength(1);
    expect(code.id).toBeTruthy();
  });

  it('reserves for each of 25 buyers racing when there is room for all, none told to try again', async () => {
    const { store, file } = openTempStores(cleanup, 'discounts-room-');
    const ctx = context(store);
    await createCoupon(ctx, { organizationId: ORG, id: 'ROOM', percent_off: 20, max_redemptions: 25 });
    await createPromotionCode(ctx, { organizationId: ORG, coupon: 'ROOM', code: 'ROOM' });
    const discount = await resolveDiscountCode(ctx, resolveInput('ROOM'));
    const stores = Array.from({ length: 25 }, () => openSqliteEventStore({ file }));
    cleanup.push(async () => {
      for (const s of stores) await s.close();
    });
    const outcomes = await Promise.allSettled(stores.map((s, i) => reserveRedemption(context(s), { organizationId: ORG, discount, key: `cs_${i}`, customerId: null, now: NOW })));
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason)).toEqual([]);
    expect(await refusal(reserveRedemption(ctx, { organizationId: ORG, discount, key: 'cs_late', customerId: null, now: NOW }))).toMatchObject({ code: 'discount_code_exhausted' });
  });

  it('keeps a first-purchase code from a customer who bought before', async () => {
    const { store } = openTempStores(cleanup, 'discounts-');
    const ctx = context(store);
    await createCoupon(ctx, { organizationId: ORG, id: 'WELCOME', percent_off: 15, restrictions: { first_time_transaction: true } });
    await createPromotionCode(ctx, { organizationId: ORG, coupon: 'WELCOME', code: 'WELCOME' });
    const customer = (await ensureCustomer(ctx, { organizationId: ORG, mode: 'live', email: 'ada@example.com' }))!;
    const discount = await resolveDiscountCode(ctx, resolveInput('welcome', { customerEmail: 'Ada@Example.com', mode: 'live' }));
    await store.append(
      'checkout_session-cs_earlier',
      [{ id: globalThis.crypto.randomUUID(), type: 'CheckoutSessionCompleted', data: { attempt_id: 'a', invoice_id: 'in_1', card: { brand: 'visa', last4: '4242' }, completed_at: NOW, customer_id: customer.id }, metadata: ctx.metadata }],
      'any',
    );
    expect(await refusal(resolveDiscountCode(ctx, resolveInput('welcome', { customerEmail: 'ADA@example.com', mode: 'live' })))).toMatchObject({
      code: 'discount_code_first_time_only',
      message: 'This code is for a first purchase only.',
    });
    expect(await refusal(resolveDiscountCode(ctx, resolveInput('welcome', { customerId: customer.id })))).toMatchObject({ code: 'discount_code_first_time_only' });
    // Checked again at payment, when the buyer's customer is known.
    expect(await refusal(reserveRedemption(ctx, { organizationId: ORG, discount, key: 'cs_2', customerId: customer.id, now: NOW }))).toMatchObject({ code: 'discount_code_first_time_only' });
    await resolveDiscountCode(ctx, resolveInput('welcome', { customerEmail: 'grace@example.com', mode: 'live' }));
  });
});
