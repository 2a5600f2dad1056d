import { decodeRouteKey } from './routeKeys.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * What an offer reference is, by its shape alone. The three kinds never overlap: slugs that read
 * as a UUID or as a route key are refused (`reservedSlugMessage`), so no seller can name an offer
 * with another organization's UUID or route key, nor squat a route key not yet allocated.
 */
export type OfferRef = { kind: 'uuid'; uuid: string } | { kind: 'route_key'; number: number } | { kind: 'slug'; slug: string };

export function parseOfferRef(ref: string): OfferRef {
  if (UUID.test(ref)) return { kind: 'uuid', uuid: ref.toLowerCase() };
  const number = decodeRouteKey(ref);
  if (number !== null) return { kind: 'route_key', number };
  return { kind: 'slug', slug: ref };
}

/**
 * Route keys of ids below this are refused as slugs: the counter that hands offer ids out could
 * one day reach them, and the offer given that id would then take the slug's place. Keys above
 * it are left to sellers: about one word in sixty of six letters or more (`starter`, 3,168,213,109)
 * is the canonical key of some huge id, and no store makes a billion offers. Resolution does not
 * depend on this bound: a route key that names an offer always wins over a slug.
 */
export const ROUTE_KEY_IDS_IN_REACH = 1_000_000_000;

/**
 * Why a slug cannot be used, or null when it can. Lives here rather than in the offer decider
 * because telling a route key apart needs the Sqids codec, which domain/ may not import.
 */
export function reservedSlugMessage(slug: string): string | null {
  const ref = parseOfferRef(slug);
  if (ref.kind === 'uuid') return 'The slug must not have the shape of a UUID: offers are also found by UUID, so it would be ambiguous.';
  if (ref.kind === 'route_key' && ref.number < ROUTE_KEY_IDS_IN_REACH) {
    return `The slug '${slug}' reads as an offer route key: offers are also found by route key, so it would be ambiguous. Add a word or a dash.`;
  }
  return null;
}
