import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confirmRedemption, reserveRedemption, resolveDiscountCode } from '../../modules/discounts/index.ts';
import { createCoupon, createPromotionCode } from '../../modules/discounts/discountCommands.ts';
import { eventPayloadSchema } from '../../modules/webhooks/http/webhookSchemas.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { subscribe, verified, WEBHOOK_ENV } from '../webhooks/webhookFixtures.ts';

describe('coupon.redeemed', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: WEBHOOK_ENV });
  });
  afterAll(() => server.close({ remove: true }));

  it('announces a confirmed redemption with the coupon, the code, the invoice, the customer and the amount off, once', { timeout: 60_000 }, async () => {
    const org = await server.identity();
    const r = await startReceiver();
    try {
      const endpoint = await subscribe(server, org.organizationId, r.url, ['coupon.redeemed']);
      const ctx = server.cliContext(org.organizationId);
      const organizationId = org.organizationId;
      await createCoupon(ctx, { organizationId, id: 'LAUNCH', name: 'Launch', percent_off: 20, max_redemptions: 10 });
      const code = await createPromotionCode(ctx, { organizationId, coupon: 'LAUNCH', code: 'LAUNCH20' });
      await server.settle();
      const now = ctx.metadata.occurred_at;
      const discount = await resolveDiscountCode(ctx, { organizationId, code: 'launch20', currency: 'eur', lines: [{ product_id: null, amount: 4900 }], customerId: null, customerEmail: null, now });
      await reserveRedemption(ctx, { organizationId, discount, key: 'cs_1', customerId: 'cus_1', now });
      const confirm = () => confirmRedemption(ctx, { organizationId, discount, key: 'cs_1', invoiceId: 'in_1', customerId: 'cus_1', amountDiscount: 980, currency: 'eur', now });
      await confirm();
      await confirm();

      await expect.poll(() => r.calls.length, { timeout: 20_000 }).toBeGreaterThan(0);
      const body = verified(endpoint.secret, r.calls[0]!);
      expect(body.type).toBe('coupon.redeemed');
      expect(body.organization_id).toBe(organizationId);
      expect(body.data.object).toEqual({
        object: 'coupon_redemption',
        coupon: expect.objectContaining({ id: 'LAUNCH', object: 'coupon', name: 'Launch', percent_off: 20, times_redeemed: 1, max_redemptions: 10, valid: true }),
        promotion_code: expect.objectContaining({ id: code.id, object: 'promotion_code', code: 'LAUNCH20', times_redeemed: 1 }),
        invoice: 'in_1',
        checkout_session: 'cs_1',
        customer: 'cus_1',
        amount_off: 980,
        currency: 'eur',
        redeemed_at: now,
      });
      expect(eventPayloadSchema('coupon.redeemed').safeParse(body).success).toBe(true);
      // A reservation announces nothing, and a repeated confirmation records nothing more.
      await server.settle();
      const redeemed = (await server.services.store.readStream(`coupon-${organizationId}-LAUNCH`)).filter((e) => e.type === 'CouponRedeemed');
      expect(redeemed).toHaveLength(1);
      expect(new Set(r.calls.map((c) => c.headers['webhook-id'])).size).toBe(1);
    } finally {
      await r.close();
    }
  });
});
