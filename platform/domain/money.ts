/**
 * The largest amount in minor units a price, a plan's charges together or a session total may
 * reach: twelve digits, Stripe's largest (its zero-decimal and IDR limits). Far below
 * Number.MAX_SAFE_INTEGER, so a sum of charges or a promo adjustment stays an exact integer;
 * two charges of MAX_SAFE_INTEGER once made a session total the API could not serialize (500).
 */
export const MAX_AMOUNT = 999_999_999_999;
