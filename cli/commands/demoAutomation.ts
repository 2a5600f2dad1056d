import { demoOffers } from './demoOffer.ts';

export const DEMO_PROMO_SLUG = 'demo-launch';

/** The demo promo and a sequence whose catch URL enrols `webhook_payload.email` in it; a re-run keeps the first run's dates. */
export function demoAutomation(nowSeconds: number) {
  return {
    promos: [
      {
        slug: DEMO_PROMO_SLUG,
        name: 'Launch week',
        starts_at: nowSeconds - 60,
        ends_at: nowSeconds + 30 * 24 * 3600,
        tiers: [
          { name: 'Early bird', price: 1900, max_participants: 100 },
          { name: 'Launch', discount_percent: 20 },
        ],
        // Its fixed price is the demo offer's: a promo names the offers it prices.
        offers: demoOffers.map((o) => o.slug),
      },
    ],
    sequences: [
      {
        key: 'demo-launch-signups',
        name: 'Launch sign-ups',
        actions: [{ type: 'enrol_in_promo', promo: DEMO_PROMO_SLUG }],
        triggers: [{ key: 'demo-webhook', name: 'Sign-up form webhook' }],
      },
    ],
  };
}
