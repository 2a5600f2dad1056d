import type { PromoTier } from './promo.ts';

export type PromoState = 'scheduled' | 'active' | 'ended';

export type PromoFacts = {
  starts_at: number;
  ends_at: number;
  tiers: readonly PromoTier[];
  participants_count: number;
  /** The slugs of the offers it prices; null or absent (a promo recorded before promos named them): every offer. */
  offers?: readonly string[] | null;
};

export function promoState(promo: PromoFacts, now: number): PromoState {
  if (now < promo.starts_at) return 'scheduled';
  return now >= promo.ends_at ? 'ended' : 'active';
}

/**
 * The tier in force at `now` (unix seconds): the first whose time has not run out and whose participant
 * threshold is not reached. Null before the start, after the end, or when sold out.
 */
export function currentTierIndex(promo: PromoFacts, now: number): number | null {
  if (promoState(promo, now) !== 'active') return null;
  const index = promo.tiers.findIndex(
    (t) => (t.until === null || now < t.until) && (t.max_participants === null || promo.participants_count < t.max_participants),
  );
  return index === -1 ? null : index;
}

export function currentTier(promo: PromoFacts, now: number): PromoTier | null {
  const i = currentTierIndex(promo, now);
  return i === null ? null : promo.tiers[i]!;
}

/** When the current tier stops being current by time alone (the sooner of its `until` and the promo's end). */
export function tierEndsAt(promo: PromoFacts, now: number): number | null {
  const tier = currentTier(promo, now);
  if (!tier) return null;
  return tier.until === null ? promo.ends_at : Math.min(tier.until, promo.ends_at);
}

export type PromoPrice = { amount: number; tier: string; tier_index: number };

/**
 * Whether a promo may price the offer of this slug: one it names, or any offer when it names none
 * (then only its discount tiers price it: see priceUnderPromo). The caller checks the organization.
 */
export function promoPricesOffer(promo: Pick<PromoFacts, 'offers'>, offerSlug: string): boolean {
  return !promo.offers || promo.offers.includes(offerSlug);
}

/**
 * The price of an offer under a promo at `now`: the current tier's fixed price, or the offer's
 * price less the tier's discount (rounded half up to a whole minor unit). Null when no tier is in
 * force (not started, ended, sold out): the caller charges the offer's own price or refuses.
 */
export function priceUnderPromo(promo: PromoFacts, offerAmount: number, now: number): PromoPrice | null {
  const index = currentTierIndex(promo, now);
  if (index === null) return null;
  const tier = promo.tiers[index]!;
  // A fixed price is one offer's price: without named offers (a promo recorded before they were
  // required) it prices none, since the buyer names the promo and could take it to any offer.
  if (tier.price !== null && !promo.offers) return null;
  const amount = tier.price !== null ? tier.price : discountedAmount(offerAmount, tier.discount_percent ?? 0);
  return { amount: Math.max(0, amount), tier: tier.name, tier_index: index };
}

/**
 * `amount` (whole minor units) less `percent` per cent, rounded half up, computed exactly on the
 * percent as written: in floating point 2625 × (100 − 0.4) / 100 is 2614.4999…, which rounded to
 * 2614 where the exact 2614.5 rounds to 2615.
 */
export function discountedAmount(amount: number, percent: number): number {
  const { digits, scale } = exactDecimal(percent);
  const whole = 100n * 10n ** scale;
  const kept = BigInt(amount) * (whole - digits);
  return Number((2n * kept + whole) / (2n * whole));
}

/** A finite non-negative number as digits / 10^scale, read from its shortest decimal form (0.4, 12.5, 1e-7). */
function exactDecimal(value: number): { digits: bigint; scale: bigint } {
  const match = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(value));
  if (!match) throw new RangeError(`Not a non-negative finite number: ${value}`);
  const fraction = match[2] ?? '';
  const scale = fraction.length - Number(match[3] ?? 0);
  const digits = BigInt(match[1]! + fraction);
  return scale >= 0 ? { digits, scale: BigInt(scale) } : { digits: digits * 10n ** BigInt(-scale), scale: 0n };
}
