import type { AppliedDiscount } from '../../../platform/domain/index.ts';
import { boundary } from './interval.ts';

/**
 * A coupon on a subscription, as Stripe's Discount: the coupon and promotion code as applied,
 * `start` (when the subscription took it) and `end`: start + `duration_in_months` months for a
 * `repeating` coupon (month ends as the billing periods: Jan 31 + 1 month is Feb 28 or 29), null
 * for `forever` and `once`. A `once` coupon prices the subscription's first invoice only, a trial's
 * zero invoice included, as Stripe's does.
 */
export type SubscriptionDiscount = AppliedDiscount & { start: number; end: number | null };

/** When a discount that starts at `start` ends: null when it does not end in time. */
export function discountEnd(coupon: AppliedDiscount['coupon'], start: number): number | null {
  if (coupon.duration !== 'repeating') return null;
  // A repeating coupon without a month count would end as it starts: it prices no invoice.
  const months = coupon.duration_in_months ?? 0;
  return months > 0 ? boundary(start, { unit: 'month', count: months }, 1) : start;
}

export function startDiscount(applied: AppliedDiscount, start: number): SubscriptionDiscount {
  return { coupon: applied.coupon, promotion_code: applied.promotion_code, start, end: discountEnd(applied.coupon, start) };
}

/** Whether the discount prices an invoice whose period starts at `periodStart`. */
export function discountInForce(discount: SubscriptionDiscount | null | undefined, periodStart: number): discount is SubscriptionDiscount {
  // Undefined: a subscription folded from a document kept before discounts existed.
  return !!discount && (discount.end === null || periodStart < discount.end);
}

/**
 * The subscription's discount after an invoice whose period starts at `periodStart`: a `once`
 * coupon is used up by it, a `repeating` one is gone once an invoice starts at or after its end.
 */
export function discountAfterInvoice(discount: SubscriptionDiscount | null | undefined, periodStart: number): SubscriptionDiscount | null {
  if (!discount) return null;
  if (discount.coupon.duration === 'once') return null;
  return discountInForce(discount, periodStart) ? discount : null;
}

/** The discount as an invoice's pricing records it (Stripe's Discount without its dates). */
export const appliedOf = (d: SubscriptionDiscount): AppliedDiscount => ({ coupon: d.coupon, promotion_code: d.promotion_code });
