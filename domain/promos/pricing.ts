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
 * The tier in force at `now` (unix seconds): the first tier whose time has not run out and whose
 * participant threshold is not reached. Null before the start, after the end, or when every tier
 * is used up (sold out).
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
  const amount = tier.price !== null ? tier.price : Math.round((offerAmount * (100 - (tier.discount_percent ?? 0))) / 100);
  return { amount: Math.max(0, amount), tier: tier.name, tier_index: index };
}
