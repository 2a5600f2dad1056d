import type { z } from 'zod';
import type { EventStore, RecordedEvent } from '../../platform/eventStore/index.ts';
import { couponDecider, type CouponEvent, type CouponState } from './domain/coupon.ts';
import { presentCoupon } from './discountQueries.ts';
import type { CouponRedemptionSchema } from './http/discountSchemas.ts';

export type CouponRedemptionObject = z.infer<typeof CouponRedemptionSchema>;

/**
 * `data.object` of the `coupon.redeemed` webhook: the coupon and the code as they stood right after
 * the redemption (folded from the coupon's stream up to it), with what it took off which invoice.
 */
export async function couponRedemptionObject(
  store: Pick<EventStore, 'readStream'>,
  event: RecordedEvent,
): Promise<{ object: CouponRedemptionObject; organizationId: string } | null> {
  if (event.type !== 'CouponRedeemed') return null;
  let state: CouponState = couponDecider.initialState();
  for (const e of await store.readStream(event.stream)) {
    if (e.revision > event.revision) break;
    state = couponDecider.evolve(state, e as unknown as CouponEvent);
  }
  if (state.status === 'none') return null;
  const d = (event as unknown as Extract<CouponEvent, { type: 'CouponRedeemed' }>).data;
  const c = state.coupon;
  const coupon = presentCoupon({ ...c, id: event.stream, coupon_id: c.id, times_redeemed: state.times_redeemed, deleted: state.status === 'deleted', updated: d.redeemed_at }, d.redeemed_at);
  const code = d.promotion_code_id ? state.codes[d.promotion_code_id] : undefined;
  return {
    object: {
      object: 'coupon_redemption',
      coupon,
      promotion_code: code
        ? {
            id: code.id,
            object: 'promotion_code',
            code: code.code,
            active: code.active,
            max_redemptions: code.max_redemptions,
            expires_at: code.expires_at,
            times_redeemed: code.times_redeemed,
            restrictions: code.restrictions,
            metadata: code.metadata,
            created: code.created,
          }
        : null,
      invoice: d.invoice_id,
      checkout_session: d.key,
      customer: d.customer_id,
      amount_off: d.amount_discount,
      currency: d.currency,
      redeemed_at: d.redeemed_at,
    },
    organizationId: c.organization_id,
  };
}
