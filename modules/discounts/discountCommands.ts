import { createHash, randomBytes } from 'node:crypto';
import { DomainError, fold, notFound, type AppliedDiscount, type CouponDuration } from '../../platform/domain/index.ts';
import { handleCommand, type CommandContext } from '../../platform/es/index.ts';
import { WrongExpectedRevisionError } from '../../platform/eventStore/index.ts';
import {
  appliedDiscount,
  applicabilityProblem,
  codeClaimDecider,
  codeClaimStream,
  codeFirstTimeOnly,
  codeInvalid,
  couponDecider,
  couponStream,
  firstTimeOnly,
  normalizeCode,
  promotionCodeStream,
  redeemableProblem,
  type CouponCommand,
  type CouponState,
  type PromotionCodeData,
  type PurchaseLine,
  type Restrictions,
} from './domain/coupon.ts';
import { hasCompletedPurchase } from './firstPurchase.ts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
function randomId(prefix: string, length: number): string {
  let id = prefix;
  for (const b of randomBytes(length)) id += ALPHABET[b % ALPHABET.length];
  return id;
}
export const newCouponId = () => randomId('', 8);
export const newPromotionCodeId = () => randomId('promo_', 14);

export const codeHash = (organizationId: string, code: string) => createHash('sha256').update(`${organizationId}|${normalizeCode(code)}`).digest('hex');

export async function loadCoupon(ctx: Pick<CommandContext, 'store'>, organizationId: string, couponId: string): Promise<CouponState> {
  return fold(couponDecider, (await ctx.store.readStream(couponStream(organizationId, couponId))) as never);
}

export type CreateCouponInput = {
  organizationId: string;
  id?: string | null;
  name?: string | null;
  percent_off?: number | null;
  amount_off?: number | null;
  currency?: string | null;
  duration?: CouponDuration;
  duration_in_months?: number | null;
  max_redemptions?: number | null;
  redeem_by?: number | null;
  applies_to?: { products: string[] } | null;
  restrictions?: Partial<Restrictions> | null;
  metadata?: Record<string, string>;
};

/** A refusal of one field, in the validation answer's shape. */
const fieldError = (code: string, field: string, message: string, kind: 'invalid' | 'conflict' = 'invalid') => new DomainError(kind, code, message, { [field]: [message] });
const minimumWithoutCurrency = (code: string) => fieldError(code, 'restrictions.minimum_amount_currency', 'A minimum_amount needs a minimum_amount_currency.');

const restrictionsOf = (r: Partial<Restrictions> | null | undefined): Restrictions => ({
  first_time_transaction: r?.first_time_transaction ?? false,
  minimum_amount: r?.minimum_amount ?? null,
  minimum_amount_currency: r?.minimum_amount != null ? (r.minimum_amount_currency?.toLowerCase() ?? null) : null,
});

/** The input is validated at the edge (zod); these are the rules a schema cannot see. */
export async function createCoupon(ctx: CommandContext, input: CreateCouponInput) {
  const percentOff = input.percent_off ?? null;
  const amountOff = input.amount_off ?? null;
  if ((percentOff === null) === (amountOff === null)) throw fieldError('invalid_coupon', percentOff === null ? 'percent_off' : 'amount_off', 'Give a percentage off or an amount off, not both.');
  if (amountOff !== null && !input.currency) throw fieldError('invalid_coupon', 'currency', 'An amount_off needs a currency.');
  const duration = input.duration ?? 'once';
  if ((duration === 'repeating') !== (input.duration_in_months != null)) throw fieldError('invalid_coupon', 'duration_in_months', 'duration_in_months is given with a repeating duration, and only then.');
  const restrictions = restrictionsOf(input.restrictions);
  if (restrictions.minimum_amount !== null && !restrictions.minimum_amount_currency) throw minimumWithoutCurrency('invalid_coupon');
  const id = input.id ?? newCouponId();
  const result = await handleCommand(ctx, couponStream(input.organizationId, id), couponDecider, {
    type: 'CreateCoupon',
    coupon: {
      id,
      organization_id: input.organizationId,
      name: input.name ?? null,
      percent_off: percentOff,
      amount_off: amountOff,
      currency: amountOff !== null ? input.currency!.toLowerCase() : null,
      duration,
      duration_in_months: duration === 'repeating' ? input.duration_in_months! : null,
      max_redemptions: input.max_redemptions ?? null,
      redeem_by: input.redeem_by ?? null,
      applies_to: input.applies_to && input.applies_to.products.length > 0 ? { products: [...new Set(input.applies_to.products)] } : null,
      restrictions,
      metadata: input.metadata ?? {},
      created: ctx.metadata.occurred_at,
    },
  });
  return { id, position: result.position };
}

export async function updateCoupon(ctx: CommandContext, organizationId: string, couponId: string, input: { name?: string | null; metadata?: Record<string, string> }) {
  const result = await handleCommand(ctx, couponStream(organizationId, couponId), couponDecider, { type: 'UpdateCoupon', ...input, now: ctx.metadata.occurred_at });
  return { position: result.position };
}

/** Stripe's delete: the coupon and its codes can no longer be redeemed; redemptions made stay. */
export async function deleteCoupon(ctx: CommandContext, organizationId: string, couponId: string) {
  const result = await handleCommand(ctx, couponStream(organizationId, couponId), couponDecider, { type: 'DeleteCoupon', now: ctx.metadata.occurred_at });
  return { position: result.position };
}

export type CreatePromotionCodeInput = {
  organizationId: string;
  coupon: string;
  code?: string | null;
  active?: boolean;
  max_redemptions?: number | null;
  expires_at?: number | null;
  restrictions?: Partial<Restrictions> | null;
  metadata?: Record<string, string>;
};

/**
 * A customer-facing code for a coupon. The claim on the normalized code decides who has it (unique
 * per organization, whatever the case); a pointer stream leads from the code's id to its coupon.
 */
export async function createPromotionCode(ctx: CommandContext, input: CreatePromotionCodeInput): Promise<{ id: string; position: number | null }> {
  const coupon = await loadCoupon(ctx, input.organizationId, input.coupon);
  if (coupon.status !== 'active') throw fieldError('coupon_invalid', 'coupon', 'No such coupon.');
  const restrictions = restrictionsOf(input.restrictions);
  if (restrictions.minimum_amount !== null && !restrictions.minimum_amount_currency) throw minimumWithoutCurrency('invalid_promotion_code');
  const code = input.code?.trim() || randomId('', 8).toUpperCase();
  const candidate = newPromotionCodeId();
  const claim = await handleCommand(ctx, codeClaimStream(input.organizationId, codeHash(input.organizationId, code)), codeClaimDecider, {
    type: 'ClaimCode',
    promotionCodeId: candidate,
    couponId: input.coupon,
    organizationId: input.organizationId,
    now: ctx.metadata.occurred_at,
  });
  const holder = claim.state.holder!;
  let id = candidate;
  if (holder.promotion_code_id !== candidate) {
    // Someone holds the code: taken, unless it is a creation of this coupon a crash cut short.
    const holderCoupon = holder.coupon_id === input.coupon ? coupon : await loadCoupon(ctx, input.organizationId, holder.coupon_id);
    const made = holderCoupon.status !== 'none' && holderCoupon.codes[holder.promotion_code_id] !== undefined;
    if (made || holder.coupon_id !== input.coupon) throw fieldError('promotion_code_exists', 'code', `The code ${code} is already in use.`, 'conflict');
    id = holder.promotion_code_id;
  }
  await registerPointer(ctx, id, input.organizationId, input.coupon);
  const data: PromotionCodeData = {
    id,
    code,
    coupon: input.coupon,
    active: input.active ?? true,
    max_redemptions: input.max_redemptions ?? null,
    expires_at: input.expires_at ?? null,
    restrictions,
    metadata: input.metadata ?? {},
    created: ctx.metadata.occurred_at,
  };
  const result = await handleCommand(ctx, couponStream(input.organizationId, input.coupon), couponDecider, { type: 'CreatePromotionCode', code: data });
  return { id, position: result.position };
}

async function registerPointer(ctx: CommandContext, id: string, organizationId: string, couponId: string) {
  try {
    await ctx.store.append(promotionCodeStream(id), [{ id: randomUuid(), type: 'PromotionCodeRegistered', data: { organization_id: organizationId, coupon_id: couponId }, metadata: ctx.metadata }], 'no_stream');
  } catch (error) {
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
  }
}

const randomUuid = () => globalThis.crypto.randomUUID();

/** The coupon a promotion code belongs to, in this organization; null for another's or an unknown id. */
export async function couponOfCode(ctx: Pick<CommandContext, 'store'>, organizationId: string, promotionCodeId: string): Promise<string | null> {
  const first = await ctx.store.readEvent(promotionCodeStream(promotionCodeId), 0);
  const data = first?.data as { organization_id: string; coupon_id: string } | undefined;
  return data && data.organization_id === organizationId ? data.coupon_id : null;
}

export async function updatePromotionCode(ctx: CommandContext, organizationId: string, id: string, input: { active?: boolean; metadata?: Record<string, string> }) {
  const couponId = await couponOfCode(ctx, organizationId, id);
  if (!couponId) throw notFound('Promotion code');
  const result = await handleCommand(ctx, couponStream(organizationId, couponId), couponDecider, { type: 'UpdatePromotionCode', id, ...input, now: ctx.metadata.occurred_at });
  return { position: result.position };
}

export type ResolveInput = {
  organizationId: string;
  code: string;
  currency: string;
  lines: PurchaseLine[];
  customerId: string | null;
  customerEmail: string | null;
  now: number;
  /** The session's mode, so a test purchase does not make a live buyer a returning one; both when absent. */
  mode?: 'test' | 'live';
};

/**
 * A buyer's code → the discount it gives, checked against the coupon's and the code's limits.
 * Unknown, inactive, deleted and another organization's codes all get the one answer.
 */
export async function resolveDiscountCode(ctx: CommandContext, input: ResolveInput): Promise<AppliedDiscount> {
  const trimmed = input.code.trim();
  if (trimmed === '' || trimmed.length > 200) throw codeInvalid();
  const claim = await ctx.store.readEvent(codeClaimStream(input.organizationId, codeHash(input.organizationId, trimmed)), 0);
  if (!claim) throw codeInvalid();
  const holder = claim.data as { promotion_code_id: string; coupon_id: string };
  const state = await loadCoupon(ctx, input.organizationId, holder.coupon_id);
  const problem = redeemableProblem(state, holder.promotion_code_id, input.now);
  if (problem) throw problem;
  if (state.status === 'none') throw codeInvalid();
  const notApplicable = applicabilityProblem(state, holder.promotion_code_id, input.currency, input.lines);
  if (notApplicable) throw notApplicable;
  if (firstTimeOnly(state, holder.promotion_code_id) && (await hasCompletedPurchase(ctx, input))) throw codeFirstTimeOnly();
  return appliedDiscount(state.coupon, state.codes[holder.promotion_code_id]!);
}

/** A coupon the seller attached to an offer; null when it cannot apply now (the offer sells at its price). */
export async function couponDiscount(
  ctx: CommandContext,
  input: { organizationId: string; couponId: string; currency: string; lines: PurchaseLine[]; now: number },
): Promise<AppliedDiscount | null> {
  const state = await loadCoupon(ctx, input.organizationId, input.couponId);
  if (redeemableProblem(state, null, input.now) || state.status === 'none') return null;
  if (applicabilityProblem(state, null, input.currency, input.lines)) return null;
  return appliedDiscount(state.coupon, null);
}

/*
 * Reservations are few and small, so a loser of the race for the coupon's stream decides again
 * rather than answering `concurrent_update`: every buyer gets a real answer (reserved, or used up).
 */
const RESERVE_ATTEMPTS = 50;

async function onCoupon(ctx: CommandContext, organizationId: string, couponId: string, command: CouponCommand) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await handleCommand(ctx, couponStream(organizationId, couponId), couponDecider, command);
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'concurrent_update') || attempt >= RESERVE_ATTEMPTS) throw error;
    }
  }
}

/**
 * Holds one redemption for the key (the checkout session) while the buyer pays, idempotently; the
 * coupon stream's expected revision keeps the limits under concurrency.
 */
export async function reserveRedemption(
  ctx: CommandContext,
  input: { organizationId: string; discount: AppliedDiscount; key: string; customerId: string | null; now: number; mode?: 'test' | 'live' },
): Promise<void> {
  const couponId = input.discount.coupon.id;
  const codeId = input.discount.promotion_code?.id ?? null;
  if (input.customerId) {
    const state = await loadCoupon(ctx, input.organizationId, couponId);
    const reserved = state.status !== 'none' && state.redemptions[input.key] && state.redemptions[input.key]!.status !== 'released';
    if (state.status !== 'none' && !reserved && firstTimeOnly(state, codeId) && (await hasCompletedPurchase(ctx, { organizationId: input.organizationId, customerId: input.customerId, customerEmail: null, mode: input.mode }))) {
      throw codeFirstTimeOnly();
    }
  }
  await onCoupon(ctx, input.organizationId, couponId, { type: 'ReserveRedemption', key: input.key, promotionCodeId: codeId, customerId: input.customerId, now: input.now });
}

/** Idempotent: records CouponRedeemed (the `coupon.redeemed` webhook), counted in times_redeemed. */
export async function confirmRedemption(
  ctx: CommandContext,
  input: { organizationId: string; discount: AppliedDiscount; key: string; invoiceId: string; customerId: string | null; amountDiscount: number; currency: string; now: number },
): Promise<void> {
  await onCoupon(ctx, input.organizationId, input.discount.coupon.id, { type: 'ConfirmRedemption', ...input, promotionCodeId: input.discount.promotion_code?.id ?? null });
}

/** Idempotent: nothing when no redemption is reserved for the key or it was confirmed. */
export async function releaseRedemption(ctx: CommandContext, input: { organizationId: string; discount: AppliedDiscount; key: string; now: number }): Promise<void> {
  await onCoupon(ctx, input.organizationId, input.discount.coupon.id, { type: 'ReleaseRedemption', key: input.key, now: input.now });
}

