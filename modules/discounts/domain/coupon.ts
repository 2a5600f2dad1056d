import type { AppliedDiscount, CouponDuration, Decider, DomainEvent } from '../../../platform/domain/index.ts';
import { conflict, DomainError, invalid, notFound } from '../../../platform/domain/index.ts';

/**
 * A coupon (Stripe's Coupon) and its promotion codes, on one stream per coupon. The redemptions
 * of the coupon and of every code of it live here too, so one append with the expected revision
 * decides the coupon's limit and the code's together: two buyers racing for the last redemption
 * cannot both be counted.
 */

/** Our extension of Stripe's code restrictions, on a coupon as on its codes. */
export type Restrictions = {
  first_time_transaction: boolean;
  minimum_amount: number | null;
  minimum_amount_currency: string | null;
};

export const NO_RESTRICTIONS: Restrictions = { first_time_transaction: false, minimum_amount: null, minimum_amount_currency: null };

export type CouponData = {
  id: string;
  organization_id: string;
  name: string | null;
  percent_off: number | null;
  amount_off: number | null;
  currency: string | null;
  duration: CouponDuration;
  duration_in_months: number | null;
  max_redemptions: number | null;
  redeem_by: number | null;
  applies_to: { products: string[] } | null;
  restrictions: Restrictions;
  metadata: Record<string, string>;
  created: number;
};

export type PromotionCodeData = {
  id: string;
  code: string;
  coupon: string;
  active: boolean;
  max_redemptions: number | null;
  expires_at: number | null;
  restrictions: Restrictions;
  metadata: Record<string, string>;
  created: number;
};

export type CouponEvent =
  | DomainEvent<'CouponCreated', CouponData>
  | DomainEvent<'CouponUpdated', { name: string | null; metadata: Record<string, string>; updated_at: number }>
  | DomainEvent<'CouponDeleted', { deleted_at: number }>
  | DomainEvent<'PromotionCodeCreated', PromotionCodeData>
  | DomainEvent<'PromotionCodeUpdated', { id: string; active: boolean; metadata: Record<string, string>; updated_at: number }>
  /** A buyer is paying with the discount: counts against the limits until released or confirmed. */
  | DomainEvent<'RedemptionReserved', { key: string; promotion_code_id: string | null; customer_id: string | null; reserved_at: number }>
  | DomainEvent<'RedemptionReleased', { key: string; released_at: number }>
  /** The purchase completed: one redemption, counted in `times_redeemed`. */
  | DomainEvent<
      'CouponRedeemed',
      {
        key: string;
        coupon_id: string;
        promotion_code_id: string | null;
        invoice_id: string;
        customer_id: string | null;
        amount_discount: number;
        currency: string;
        redeemed_at: number;
      }
    >;

export type Redemption = { status: 'reserved' | 'released' | 'confirmed'; promotion_code_id: string | null };

export type PromotionCodeState = PromotionCodeData & { times_redeemed: number; updated: number };

export type CouponState =
  | { status: 'none' }
  | {
      status: 'active' | 'deleted';
      coupon: CouponData;
      times_redeemed: number;
      codes: Record<string, PromotionCodeState>;
      /** Per key (a checkout session id): the last word on its redemption. */
      redemptions: Record<string, Redemption>;
    };

export type CouponCommand =
  | { type: 'CreateCoupon'; coupon: CouponData }
  | { type: 'UpdateCoupon'; name?: string | null; metadata?: Record<string, string>; now: number }
  | { type: 'DeleteCoupon'; now: number }
  | { type: 'CreatePromotionCode'; code: PromotionCodeData }
  | { type: 'UpdatePromotionCode'; id: string; active?: boolean; metadata?: Record<string, string>; now: number }
  | { type: 'ReserveRedemption'; key: string; promotionCodeId: string | null; customerId: string | null; now: number }
  | { type: 'ReleaseRedemption'; key: string; now: number }
  | {
      type: 'ConfirmRedemption';
      key: string;
      promotionCodeId: string | null;
      invoiceId: string;
      customerId: string | null;
      amountDiscount: number;
      currency: string;
      now: number;
    };

/** Seller-chosen ids share the stream name with the organization's, so two sellers may both have `SUMMER`. */
export const couponStream = (organizationId: string, couponId: string) => `coupon-${organizationId}-${couponId}`;

const FIELD = 'discount_code';
export const codeInvalid = () => invalid('discount_code_invalid', 'This code is not valid.', FIELD);
export const codeExpired = () => invalid('discount_code_expired', 'This code has expired.', FIELD);
export const codeExhausted = () => invalid('discount_code_exhausted', 'This code has been used up.', FIELD);
export const codeNotApplicable = (why: string) => invalid('discount_code_not_applicable', why, FIELD);
export const codeFirstTimeOnly = () => invalid('discount_code_first_time_only', 'This code is for a first purchase only.', FIELD);
/** At payment, the last redemption went to someone else: a conflict, as the contract says. */
export const reservationExhausted = () => new DomainError('conflict', 'discount_code_exhausted', 'This code has been used up.', { [FIELD]: ['This code has been used up.'] });

/** Reserved and confirmed redemptions: what the limits count. */
export function heldRedemptions(state: Extract<CouponState, { status: 'active' | 'deleted' }>, promotionCodeId: string | null): { coupon: number; code: number } {
  let coupon = 0;
  let code = 0;
  for (const r of Object.values(state.redemptions)) {
    if (r.status === 'released') continue;
    coupon++;
    if (promotionCodeId !== null && r.promotion_code_id === promotionCodeId) code++;
  }
  return { coupon, code };
}

/** Why the coupon (and the code, when one is named) cannot be redeemed now, or null; ignores what the buyer buys. */
export function redeemableProblem(state: CouponState, promotionCodeId: string | null, now: number): DomainError | null {
  if (state.status !== 'active') return codeInvalid();
  const code = promotionCodeId === null ? null : state.codes[promotionCodeId];
  if (code === undefined || (code !== null && !code.active)) return codeInvalid();
  if (state.coupon.redeem_by !== null && now >= state.coupon.redeem_by) return codeExpired();
  if (code && code.expires_at !== null && now >= code.expires_at) return codeExpired();
  const held = heldRedemptions(state, promotionCodeId);
  if (state.coupon.max_redemptions !== null && held.coupon >= state.coupon.max_redemptions) return codeExhausted();
  if (code && code.max_redemptions !== null && held.code >= code.max_redemptions) return codeExhausted();
  return null;
}

export type PurchaseLine = { product_id: string | null; amount: number };

/** Whether the coupon can discount these lines in this currency (products, currency, minimum amount). */
export function applicabilityProblem(state: Extract<CouponState, { status: 'active' | 'deleted' }>, promotionCodeId: string | null, currency: string, lines: readonly PurchaseLine[]): DomainError | null {
  const c = state.coupon;
  const cur = currency.toLowerCase();
  if (c.amount_off !== null && c.currency !== cur) return codeNotApplicable('This code cannot be used in this currency.');
  if (c.applies_to && !lines.some((l) => l.product_id !== null && c.applies_to!.products.includes(l.product_id))) {
    return codeNotApplicable('This code does not apply to these products.');
  }
  const subtotal = lines.reduce((s, l) => s + l.amount, 0);
  const code = promotionCodeId === null ? null : state.codes[promotionCodeId];
  for (const r of [c.restrictions, code?.restrictions ?? NO_RESTRICTIONS]) {
    if (r.minimum_amount === null) continue;
    if (r.minimum_amount_currency !== cur || subtotal < r.minimum_amount) return codeNotApplicable('This order is below the minimum amount for this code.');
  }
  return null;
}

export function firstTimeOnly(state: Extract<CouponState, { status: 'active' | 'deleted' }>, promotionCodeId: string | null): boolean {
  const code = promotionCodeId === null ? null : state.codes[promotionCodeId];
  return state.coupon.restrictions.first_time_transaction || (code?.restrictions.first_time_transaction ?? false);
}

export function appliedDiscount(coupon: CouponData, code: PromotionCodeData | null): AppliedDiscount {
  return {
    coupon: {
      id: coupon.id,
      name: coupon.name,
      percent_off: coupon.percent_off,
      amount_off: coupon.amount_off,
      currency: coupon.currency,
      duration: coupon.duration,
      duration_in_months: coupon.duration_in_months,
      applies_to: coupon.applies_to ? { products: [...coupon.applies_to.products] } : null,
    },
    promotion_code: code ? { id: code.id, code: code.code } : null,
  };
}

export const couponDecider: Decider<CouponState, CouponCommand, CouponEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    if (event.type === 'CouponCreated') return { status: 'active', coupon: event.data, times_redeemed: 0, codes: {}, redemptions: {} };
    if (state.status === 'none') return state;
    switch (event.type) {
      case 'CouponUpdated':
        return { ...state, coupon: { ...state.coupon, name: event.data.name, metadata: event.data.metadata } };
      case 'CouponDeleted':
        return { ...state, status: 'deleted' };
      case 'PromotionCodeCreated':
        return { ...state, codes: { ...state.codes, [event.data.id]: { ...event.data, times_redeemed: 0, updated: event.data.created } } };
      case 'PromotionCodeUpdated': {
        const code = state.codes[event.data.id];
        if (!code) return state;
        return { ...state, codes: { ...state.codes, [code.id]: { ...code, active: event.data.active, metadata: event.data.metadata, updated: event.data.updated_at } } };
      }
      case 'RedemptionReserved':
        return { ...state, redemptions: { ...state.redemptions, [event.data.key]: { status: 'reserved', promotion_code_id: event.data.promotion_code_id } } };
      case 'RedemptionReleased': {
        const r = state.redemptions[event.data.key];
        return r ? { ...state, redemptions: { ...state.redemptions, [event.data.key]: { ...r, status: 'released' } } } : state;
      }
      case 'CouponRedeemed': {
        const codeId = event.data.promotion_code_id;
        const code = codeId === null ? undefined : state.codes[codeId];
        return {
          ...state,
          times_redeemed: state.times_redeemed + 1,
          codes: code ? { ...state.codes, [code.id]: { ...code, times_redeemed: code.times_redeemed + 1 } } : state.codes,
          redemptions: { ...state.redemptions, [event.data.key]: { status: 'confirmed', promotion_code_id: codeId } },
        };
      }
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'CreateCoupon':
        if (state.status !== 'none') throw conflict('resource_already_exists', `A coupon with the id ${command.coupon.id} already exists.`);
        return { type: 'CouponCreated', data: command.coupon };
      case 'UpdateCoupon': {
        if (state.status !== 'active') throw notFound('Coupon');
        const name = command.name !== undefined ? command.name : state.coupon.name;
        // Stripe's update: keys with an empty value are removed.
        const metadata = command.metadata ? mergeMetadata(state.coupon.metadata, command.metadata) : state.coupon.metadata;
        return { type: 'CouponUpdated', data: { name, metadata, updated_at: command.now } };
      }
      case 'DeleteCoupon':
        if (state.status === 'none') throw notFound('Coupon');
        if (state.status === 'deleted') return [];
        return { type: 'CouponDeleted', data: { deleted_at: command.now } };
      case 'CreatePromotionCode':
        if (state.status !== 'active') throw invalid('coupon_invalid', 'No such coupon.', 'coupon');
        // A retry after a crash between the code's claim and this append: made once.
        if (state.codes[command.code.id]) return [];
        return { type: 'PromotionCodeCreated', data: command.code };
      case 'UpdatePromotionCode': {
        const code = state.status === 'none' ? undefined : state.codes[command.id];
        if (!code) throw notFound('Promotion code');
        const active = command.active ?? code.active;
        const metadata = command.metadata ? mergeMetadata(code.metadata, command.metadata) : code.metadata;
        return { type: 'PromotionCodeUpdated', data: { id: code.id, active, metadata, updated_at: command.now } };
      }
      case 'ReserveRedemption': {
        if (state.status === 'none') throw codeInvalid();
        const existing = state.redemptions[command.key];
        if (existing && existing.status !== 'released') return [];
        const problem = redeemableProblem(state, command.promotionCodeId, command.now);
        if (problem) throw problem.code === 'discount_code_exhausted' ? reservationExhausted() : problem;
        return { type: 'RedemptionReserved', data: { key: command.key, promotion_code_id: command.promotionCodeId, customer_id: command.customerId, reserved_at: command.now } };
      }
      case 'ReleaseRedemption': {
        if (state.status === 'none') return [];
        if (state.redemptions[command.key]?.status !== 'reserved') return [];
        return { type: 'RedemptionReleased', data: { key: command.key, released_at: command.now } };
      }
      case 'ConfirmRedemption': {
        if (state.status === 'none') throw notFound('Coupon');
        const existing = state.redemptions[command.key];
        if (existing?.status === 'confirmed') return [];
        // The buyer paid: the redemption counts whatever happened to the coupon since the reservation.
        return {
          type: 'CouponRedeemed',
          data: {
            key: command.key,
            coupon_id: state.coupon.id,
            promotion_code_id: existing?.promotion_code_id ?? command.promotionCodeId,
            invoice_id: command.invoiceId,
            customer_id: command.customerId,
            amount_discount: command.amountDiscount,
            currency: command.currency.toLowerCase(),
            redeemed_at: command.now,
          },
        };
      }
    }
  },
};

function mergeMetadata(current: Record<string, string>, update: Record<string, string>): Record<string, string> {
  const next = { ...current };
  for (const [k, v] of Object.entries(update)) {
    if (v === '') delete next[k];
    else next[k] = v;
  }
  return next;
}

/** A code's claim: which promotion code of an organization a normalized code names, for good. */
export type CodeClaimEvent = DomainEvent<'PromotionCodeClaimed', { promotion_code_id: string; coupon_id: string; organization_id: string; claimed_at: number }>;
export type CodeClaimState = { holder: { promotion_code_id: string; coupon_id: string } | null };
export type CodeClaimCommand = { type: 'ClaimCode'; promotionCodeId: string; couponId: string; organizationId: string; now: number };

/** Case-insensitive, as Stripe's: `launch20` and `LAUNCH20` are one code. */
export const normalizeCode = (code: string) => code.trim().toUpperCase();
/** `hash`: sha256 of the organization and the normalized code, hex (the name carries no code). */
export const codeClaimStream = (organizationId: string, hash: string) => `promotion_code_key-${organizationId}-${hash}`;

export const codeClaimDecider: Decider<CodeClaimState, CodeClaimCommand, CodeClaimEvent> = {
  initialState: () => ({ holder: null }),
  evolve: (_state, event) => ({ holder: { promotion_code_id: event.data.promotion_code_id, coupon_id: event.data.coupon_id } }),
  decide(command, state) {
    // The first claim wins; later ones read the holder from the state the command returns.
    if (state.holder !== null) return [];
    return { type: 'PromotionCodeClaimed', data: { promotion_code_id: command.promotionCodeId, coupon_id: command.couponId, organization_id: command.organizationId, claimed_at: command.now } };
  },
};

/** Where a promotion code's id leads: its coupon, for the commands that name the code by id. */
export const promotionCodeStream = (id: string) => `promotion_code-${id}`;
