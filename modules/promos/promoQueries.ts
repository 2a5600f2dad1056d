import { currentTier, priceUnderPromo, promoPricesOffer, promoState, tierEndsAt, type PromoPrice } from './domain/pricing.ts';
import type { ReadStore } from '../../platform/readStore/index.ts';
import { PROMOS, type PromoDoc } from './promoProjection.ts';

export async function findPromo(readStore: ReadStore, slug: string): Promise<PromoDoc | null> {
  return readStore.get<PromoDoc>(PROMOS, slug);
}

/**
 * For checkout: the offer's price (minor units) under the promo `slug` at `nowMs`, or null when the promo
 * is unknown, another organization's, does not name `offerSlug`, or has no tier in force.
 */
export async function promoPriceForOffer(
  readStore: ReadStore,
  input: { slug: string; organizationId: string; offerSlug: string; offerAmount: number; nowMs: number },
): Promise<PromoPrice | null> {
  const promo = await findPromo(readStore, input.slug);
  if (!promo || promo.organization_id !== input.organizationId || !promoPricesOffer(promo, input.offerSlug)) return null;
  return priceUnderPromo(promo, input.offerAmount, Math.floor(input.nowMs / 1000));
}

/** The public view of a promo (GET /api/promos/{slug}), at `now` (unix seconds). */
export function publicPromo(promo: PromoDoc, now: number) {
  const ends = tierEndsAt(promo, now) ?? promo.ends_at;
  return {
    slug: promo.slug,
    name: promo.name,
    state: promoState(promo, now),
    starts_at: promo.starts_at,
    ends_at: promo.ends_at,
    current_tier: currentTier(promo, now),
    tiers: promo.tiers,
    participants_count: promo.participants_count,
    countdown: { ends_at: ends, seconds_remaining: Math.max(0, ends - now) },
    server_time: now,
  };
}
