export { promoPriceForOffer } from './promoQueries.ts';
