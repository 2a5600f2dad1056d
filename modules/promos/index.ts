export { promoPriceForOffer } from './promoQueries.ts';
export { FIXED_PRICE_NEEDS_OFFERS, promoStream, SLUG } from './domain/promo.ts';
export { createPromo, enrolParticipant, updatePromo } from './promoCommands.ts';
export { PROMO_PARTICIPANTS, type PromoDoc, PROMOS } from './promoProjection.ts';
export { scrubPromoParticipant } from './promoScrub.ts';
