import { loadCoupon } from '../../modules/discounts/discountCommands.ts';
import type { CommandContext } from '../../platform/es/index.ts';

export const DEMO_COUPON_CODE = 'LAUNCH20';

/** 20% off the first payment with LAUNCH20; first run only, so editing or deleting it never makes the demo refuse. */
export async function demoCoupons(ctx: CommandContext, organizationId: string) {
  if ((await loadCoupon(ctx, organizationId, DEMO_COUPON_CODE)).status !== 'none') return {};
  return {
    coupons: [{ id: DEMO_COUPON_CODE, name: 'Launch', percent_off: 20, duration: 'once', codes: [{ code: DEMO_COUPON_CODE }] }],
  };
}
