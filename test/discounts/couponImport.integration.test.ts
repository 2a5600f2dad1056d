import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clockApp, importer, type ClockApp } from '../subscriptions/clockApp.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('the coupons section of an import file', () => {
  let harness: ClockApp;
  let seller: { organizationId: string; token: string };
  beforeAll(async () => {
    harness = await clockApp();
    seller = await harness.identity();
    await harness.offerOf(seller.organizationId, 'course', 'one_time');
  });
  afterAll(async () => harness.close());

  const importFile = (file: unknown) => importer(harness, seller.organizationId).importFile(file);
  const refusal = (file: unknown) => importer(harness, seller.organizationId).refusal(file);
  const get = (url: string) => harness.call('GET', url, { token: seller.token });

  const file = (overrides: Body = {}) => ({
    coupons: [
      {
        id: 'LAUNCH',
        name: 'Launch',
        percent_off: 20,
        duration: 'once',
        applies_to: { products: ['course-product'] },
        codes: [{ code: 'LAUNCH20', max_redemptions: 50 }, { code: 'friends' }],
        ...overrides,
      },
    ],
  });

  it('makes coupons with their codes, products named by key; a second run changes only what changed', async () => {
    await importFile(file());
    await harness.settle();
    const product = (await get('/api/catalog/products')).body.data[0].id as string;
    expect((await get('/api/coupons/LAUNCH')).body).toMatchObject({ percent_off: 20, applies_to: { products: [product] } });
    const codes = (await get('/api/promotion_codes?coupon=LAUNCH')).body.data as Body[];
    expect(codes.map((c) => c.code).sort()).toEqual(['LAUNCH20', 'friends']);
    expect(codes.find((c) => c.code === 'LAUNCH20')).toMatchObject({ max_redemptions: 50, active: true });

    const positionBefore = await harness.services.store.headPosition();
    await importFile(file());
    expect(await harness.services.store.headPosition()).toBe(positionBefore);

    await importFile(file({ name: 'Launch week', codes: [{ code: 'launch20', active: false }, { code: 'friends' }, { code: 'NEW' }] }));
    await harness.settle();
    expect((await get('/api/coupons/LAUNCH')).body.name).toBe('Launch week');
    const after = (await get('/api/promotion_codes?coupon=LAUNCH')).body.data as Body[];
    expect(after.find((c) => c.code === 'LAUNCH20')!.active).toBe(false);
    expect(after.map((c) => c.code).sort()).toEqual(['LAUNCH20', 'NEW', 'friends']);
  });

  it('refuses, at the path in the file, changed terms, unknown products, a code of another coupon and duplicates', async () => {
    expect(await refusal(file({ percent_off: 30 }))).toEqual({ 'coupons[0].id': [expect.stringContaining("terms cannot change")] });
    expect(await refusal({ coupons: [{ id: 'OTHER', percent_off: 5, applies_to: { products: ['nope'] } }] })).toEqual({ 'coupons[0].applies_to.products[0]': ['No product with key nope in this organization.'] });
    expect(await refusal({ coupons: [{ id: 'OTHER', percent_off: 5, codes: [{ code: 'FRIENDS' }] }] })).toEqual({ 'coupons[0].codes[0].code': [expect.stringContaining('unique in the organization')] });
    const duplicate = await refusal({ coupons: [{ id: 'A', percent_off: 5, codes: [{ code: 'X' }] }, { id: 'A', percent_off: 5, codes: [{ code: 'x' }] }] });
    expect(Object.keys(duplicate).sort()).toEqual(['coupons[1].codes[0].code', 'coupons[1].id']);
    expect(await refusal({ coupons: [{ id: 'B', amount_off: 100 }] })).toHaveProperty(['coupons[0].currency']);
    // Nothing of a refused file is written.
    await harness.settle();
    expect((await get('/api/coupons/OTHER')).status).toBe(404);
  });
});
