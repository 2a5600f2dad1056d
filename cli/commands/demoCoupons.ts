import { loadCoupon } from '../../modules/discounts/discountCommands.ts';
import type { CommandContext } from '../../platform/es/index.ts';

export const DEMO_COUPON_CODE = 'LAUNCH20';

/**
 * The demo's coupon: 20% off the first payment with the code LAUNCH20. Imported on the first run
 * only, so a seller who deletes or edits it in the dashboard does not see the demo refuse to run.
 */
export async function demoCoupons(ctx: CommandContext, organizationId: string) {
  if ((await loadCoupon(ctx, organizationId, DEMO_COUPON_CODE)).status !== 'none') return {};
  return {
    coupons: [{ id: DEMO_COUPON_CODE, name: 'Launch', percent_off: 20, duration: 'once', codes: [{ code: DEMO_COUPON_CODE }] }],
  };
}
