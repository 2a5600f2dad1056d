import { z } from 'zod';
import { MAX_AMOUNT } from '../../../platform/domain/index.ts';

const Unix = z.number().int().describe('Unix seconds.');
const Currency = z.string().regex(/^[A-Za-z]{3}$/, 'must be a three-letter currency code').transform((c) => c.toLowerCase());
/** Stripe's metadata: up to 50 keys of 40 characters, values of 500. */
export const Metadata = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((m) => Object.keys(m).length <= 50, 'must have at most 50 keys');

/** Seller-chosen coupon ids: what a path segment can carry unescaped. */
export const CouponId = z.string().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, 'must contain only letters, digits, - and _');
export const CouponIdParams = z.object({ id: CouponId });
export const PromotionCodeIdParams = z.object({ id: z.string().regex(/^promo_[A-Za-z0-9]{1,40}$/, 'must be a promotion code id (promo_…)') });

const RestrictionsInput = z
  .object({
    first_time_transaction: z.boolean().optional(),
    minimum_amount: z.number().int().min(1).max(MAX_AMOUNT).nullable().optional(),
    minimum_amount_currency: Currency.nullable().optional(),
  })
  .strict();

const Restrictions = z.object({
  first_time_transaction: z.boolean(),
  minimum_amount: z.number().int().nullable(),
  minimum_amount_currency: z.string().nullable(),
});

export const CouponCreateBody = z
  .object({
    id: CouponId.optional().describe('Your id for the coupon (a generated one when absent).'),
    name: z.string().trim().min(1).max(40).nullable().optional().describe('Shown to buyers on invoices and at checkout.'),
    percent_off: z.number().gt(0).max(100).multipleOf(0.01).optional(),
    amount_off: z.number().int().min(1).max(MAX_AMOUNT).optional().describe('Minor units of `currency`.'),
    currency: Currency.optional(),
    duration: z.enum(['once', 'repeating', 'forever']).default('once').describe('For subscriptions: the first invoice only, `duration_in_months`, or every invoice.'),
    duration_in_months: z.number().int().min(1).max(120).optional(),
    max_redemptions: z.number().int().min(1).max(1_000_000_000).optional(),
    redeem_by: Unix.optional().describe('After this, no new redemption.'),
    applies_to: z.object({ products: z.array(z.string().min(1).max(128)).min(1).max(100) }).strict().optional(),
    restrictions: RestrictionsInput.optional(),
    metadata: Metadata.optional(),
  })
  .strict();

export const CouponUpdateBody = z.object({ name: z.string().trim().min(1).max(40).nullable().optional(), metadata: Metadata.optional() }).strict();

export const PromotionCodeCreateBody = z
  .object({
    coupon: CouponId,
    code: z.string().trim().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, 'must contain only letters, digits, - and _').optional().describe('Case-insensitive, unique in the organization; a generated one when absent.'),
    active: z.boolean().optional(),
    max_redemptions: z.number().int().min(1).max(1_000_000_000).optional(),
    expires_at: Unix.optional(),
    restrictions: RestrictionsInput.optional(),
    metadata: Metadata.optional(),
  })
  .strict();

export const PromotionCodeUpdateBody = z.object({ active: z.boolean().optional(), metadata: Metadata.optional() }).strict();

/** Stripe's Coupon, with our `restrictions`. */
export const CouponSchema = z.object({
  id: z.string(),
  object: z.literal('coupon'),
  name: z.string().nullable(),
  percent_off: z.number().nullable(),
  amount_off: z.number().int().nullable(),
  currency: z.string().nullable(),
  duration: z.enum(['once', 'repeating', 'forever']),
  duration_in_months: z.number().int().nullable(),
  max_redemptions: z.number().int().nullable(),
  redeem_by: Unix.nullable(),
  times_redeemed: z.number().int().describe('Completed purchases that used it.'),
  valid: z.boolean().describe('Whether it can still be redeemed.'),
  applies_to: z.object({ products: z.array(z.string()) }).nullable(),
  restrictions: Restrictions,
  metadata: z.record(z.string(), z.string()),
  created: Unix,
});
export type Coupon = z.infer<typeof CouponSchema>;

export const DeletedCouponSchema = z.object({ id: z.string(), object: z.literal('coupon'), deleted: z.literal(true) });

/** Stripe's PromotionCode, its coupon embedded. */
export const PromotionCodeSchema = z.object({
  id: z.string(),
  object: z.literal('promotion_code'),
  code: z.string(),
  coupon: CouponSchema,
  active: z.boolean(),
  max_redemptions: z.number().int().nullable(),
  expires_at: Unix.nullable(),
  times_redeemed: z.number().int(),
  restrictions: Restrictions,
  metadata: z.record(z.string(), z.string()),
  created: Unix,
});
export type PromotionCode = z.infer<typeof PromotionCodeSchema>;

/** `data.object` of the `coupon.redeemed` webhook. */
export const CouponRedemptionSchema = z.object({
  object: z.literal('coupon_redemption'),
  coupon: CouponSchema.describe('As it stood right after the redemption.'),
  promotion_code: PromotionCodeSchema.omit({ coupon: true }).nullable().describe('The code the buyer typed; null for a coupon the seller attached to the offer.'),
  invoice: z.string().describe('The invoice the discount was taken off.'),
  checkout_session: z.string(),
  customer: z.string().nullable().describe('cus_…'),
  amount_off: z.number().int().describe('What the discount took off the invoice, minor units of `currency`.'),
  currency: z.string(),
  redeemed_at: Unix,
});
