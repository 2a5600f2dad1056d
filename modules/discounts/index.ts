// Checkout calls these: nothing here may import checkout at run time.
export {
  confirmRedemption,
  couponDiscount,
  releaseRedemption,
  reserveRedemption,
  resolveDiscountCode,
  type ResolveInput,
} from './discountCommands.ts';
export { couponStream, type CouponEvent, type Restrictions } from './domain/coupon.ts';
export { CouponRedemptionSchema, CouponSchema, PromotionCodeSchema } from './http/discountSchemas.ts';
// Answers of the management routes, whose types the dashboard imports (type-only).
export type { Coupon, PromotionCode } from './http/discountSchemas.ts';
export { couponRedemptionObject, type CouponRedemptionObject } from './redemptionObject.ts';
