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
