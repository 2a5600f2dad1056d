import type { RecordedEvent } from '../../platform/eventStore/index.ts';
import type { Projection, ProjectionTx } from '../../platform/es/index.ts';
import { couponStream, normalizeCode, type CouponData, type CouponEvent, type PromotionCodeData } from './domain/coupon.ts';

export const COUPONS = 'coupons';
export const PROMOTION_CODES = 'promotion_codes';

/** A coupon as the routes show it; `id` is its stream's name (sellers choose coupon ids, so two may share one). */
export type CouponDoc = Omit<CouponData, 'id'> & {
  id: string;
  coupon_id: string;
  times_redeemed: number;
  deleted: boolean;
  updated: number;
};

export type PromotionCodeDoc = PromotionCodeData & {
  organization_id: string;
  /** The normalized code the `code` filter matches. */
  code_key: string;
  times_redeemed: number;
  updated: number;
};

export const couponDocId = couponStream;

async function apply(event: CouponEvent, recorded: RecordedEvent, tx: ProjectionTx): Promise<void> {
  if (event.type === 'CouponCreated') {
    const d = event.data;
    tx.upsert(COUPONS, { ...d, id: couponDocId(d.organization_id, d.id), coupon_id: d.id, times_redeemed: 0, deleted: false, updated: d.created } satisfies CouponDoc);
    return;
  }
  const coupon = await tx.get<CouponDoc>(COUPONS, recorded.stream);
  if (!coupon) return;
  switch (event.type) {
    case 'CouponUpdated':
      tx.upsert(COUPONS, { ...coupon, name: event.data.name, metadata: event.data.metadata, updated: event.data.updated_at });
      return;
    case 'CouponDeleted':
      tx.upsert(COUPONS, { ...coupon, deleted: true, updated: event.data.deleted_at });
      return;
    case 'PromotionCodeCreated': {
      const d = event.data;
      tx.upsert(PROMOTION_CODES, { ...d, organization_id: coupon.organization_id, code_key: normalizeCode(d.code), times_redeemed: 0, updated: d.created } satisfies PromotionCodeDoc);
      return;
    }
    case 'PromotionCodeUpdated': {
      const code = await tx.get<PromotionCodeDoc>(PROMOTION_CODES, event.data.id);
      if (code) tx.upsert(PROMOTION_CODES, { ...code, active: event.data.active, metadata: event.data.metadata, updated: event.data.updated_at });
      return;
    }
    case 'CouponRedeemed': {
      tx.upsert(COUPONS, { ...coupon, times_redeemed: coupon.times_redeemed + 1 });
      const codeId = event.data.promotion_code_id;
      const code = codeId ? await tx.get<PromotionCodeDoc>(PROMOTION_CODES, codeId) : null;
      if (code) tx.upsert(PROMOTION_CODES, { ...code, times_redeemed: code.times_redeemed + 1 });
      return;
    }
    default:
      return;
  }
}

/** Coupons and promotion codes of every organization, with their counts of confirmed redemptions. */
export const discountProjection: Projection = {
  name: 'discounts',
  collections: [COUPONS, PROMOTION_CODES],
  indexes: [
    { collection: COUPONS, fields: ['organization_id', 'deleted', 'created'] },
    { collection: PROMOTION_CODES, fields: ['organization_id', 'created'] },
    { collection: PROMOTION_CODES, fields: ['organization_id', 'code_key'] },
    { collection: PROMOTION_CODES, fields: ['organization_id', 'coupon'] },
  ],
  eventTypes: ['CouponCreated', 'CouponUpdated', 'CouponDeleted', 'PromotionCodeCreated', 'PromotionCodeUpdated', 'CouponRedeemed'],
  apply: (recorded, tx) => apply(recorded as unknown as CouponEvent, recorded, tx),
};
