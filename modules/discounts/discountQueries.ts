import type { Filter, ReadStore } from '../../platform/readStore/index.ts';
import { normalizeCode } from './domain/coupon.ts';
import type { Coupon, PromotionCode } from './http/discountSchemas.ts';
import { COUPONS, couponDocId, PROMOTION_CODES, type CouponDoc, type PromotionCodeDoc } from './discountProjection.ts';

export type CouponResource = Coupon;
export type PromotionCodeResource = PromotionCode;

/** Stripe's `valid`: whether it can still be redeemed (not deleted, before redeem_by, under max_redemptions). */
export function presentCoupon(doc: CouponDoc, now: number): CouponResource {
  const valid = !doc.deleted && (doc.redeem_by === null || now < doc.redeem_by) && (doc.max_redemptions === null || doc.times_redeemed < doc.max_redemptions);
  return {
    id: doc.coupon_id,
    object: 'coupon',
    name: doc.name,
    percent_off: doc.percent_off,
    amount_off: doc.amount_off,
    currency: doc.currency,
    duration: doc.duration,
    duration_in_months: doc.duration_in_months,
    max_redemptions: doc.max_redemptions,
    redeem_by: doc.redeem_by,
    times_redeemed: doc.times_redeemed,
    valid,
    applies_to: doc.applies_to,
    restrictions: doc.restrictions,
    metadata: doc.metadata,
    created: doc.created,
  };
}

export function presentPromotionCode(doc: PromotionCodeDoc, coupon: CouponDoc, now: number): PromotionCodeResource {
  return {
    id: doc.id,
    object: 'promotion_code',
    code: doc.code,
    coupon: presentCoupon(coupon, now),
    active: doc.active,
    max_redemptions: doc.max_redemptions,
    expires_at: doc.expires_at,
    times_redeemed: doc.times_redeemed,
    restrictions: doc.restrictions,
    metadata: doc.metadata,
    created: doc.created,
  };
}

/** The organization's coupon, deleted ones included (the caller decides what a deleted one answers). */
export const findCoupon = (readStore: ReadStore, organizationId: string, couponId: string) => readStore.get<CouponDoc>(COUPONS, couponDocId(organizationId, couponId));

export async function listCoupons(readStore: ReadStore, organizationId: string, q: { skip: number; limit: number }): Promise<{ items: CouponDoc[]; total: number }> {
  const filter: Filter = { organization_id: organizationId, deleted: false };
  const [items, total] = await Promise.all([
    readStore.find<CouponDoc>(COUPONS, { filter, sort: [['created', -1], ['id', -1]], skip: q.skip, limit: q.limit }),
    readStore.count(COUPONS, filter),
  ]);
  return { items, total };
}

export async function findPromotionCode(readStore: ReadStore, organizationId: string, id: string): Promise<PromotionCodeDoc | null> {
  const doc = await readStore.get<PromotionCodeDoc>(PROMOTION_CODES, id);
  return doc && doc.organization_id === organizationId ? doc : null;
}

export async function listPromotionCodes(
  readStore: ReadStore,
  organizationId: string,
  q: { code?: string | undefined; coupon?: string | undefined; active?: boolean | undefined; skip: number; limit: number },
): Promise<{ items: PromotionCodeDoc[]; total: number }> {
  const filter: Filter = { organization_id: organizationId };
  if (q.code !== undefined) filter.code_key = normalizeCode(q.code);
  if (q.coupon !== undefined) filter.coupon = q.coupon;
  if (q.active !== undefined) filter.active = q.active;
  const [items, total] = await Promise.all([
    readStore.find<PromotionCodeDoc>(PROMOTION_CODES, { filter, sort: [['created', -1], ['id', -1]], skip: q.skip, limit: q.limit }),
    readStore.count(PROMOTION_CODES, filter),
  ]);
  return { items, total };
}

/** Each code with its coupon (one read per coupon of the page). */
export async function presentPromotionCodes(readStore: ReadStore, organizationId: string, docs: PromotionCodeDoc[], now: number): Promise<PromotionCodeResource[]> {
  const coupons = new Map<string, CouponDoc | null>();
  for (const d of docs) if (!coupons.has(d.coupon)) coupons.set(d.coupon, await findCoupon(readStore, organizationId, d.coupon));
  return docs.flatMap((d) => {
    const coupon = coupons.get(d.coupon);
    return coupon ? [presentPromotionCode(d, coupon, now)] : [];
  });
}
