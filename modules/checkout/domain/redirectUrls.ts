import { invalid } from '../../../platform/domain/index.ts';

/**
 * Where the hosted checkout page sends the buyer after paying (success_url) or on cancel
 * (cancel_url), as Stripe's Checkout does: `{CHECKOUT_SESSION_ID}` in either is replaced by the
 * session's id. Only the full-page checkout redirects; the SDK's flows report to their page instead.
 */
export type RedirectUrls = { success_url?: string; cancel_url?: string };

export const SESSION_ID_PLACEHOLDER = '{CHECKOUT_SESSION_ID}';

/** Absolute http(s) URLs of at most 2048 characters; the placeholder may stand anywhere in them. */
export function isRedirectUrl(value: string): boolean {
  if (value.length > 2048) return false;
  try {
    const url = new URL(value.split(SESSION_ID_PLACEHOLDER).join('x'));
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** How many origins an offer, or an organization, may allow. */
export const MAX_REDIRECT_ORIGINS = 20;

/**
 * An allowed origin as it is stored: `scheme://host[:port]`, lower case, without the default
 * port, as the WHATWG URL parser (the browser's, which follows the redirect) writes it. Null for
 * anything that is not an http(s) origin alone: a path other than `/`, a query, a fragment, a user
 * name or password, a wildcard.
 */
export function normalizeOrigin(value: string): string | null {
  if (value.length > 300 || !URL.canParse(value)) return null;
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
  if (url.hostname === '' || url.username !== '' || url.password !== '') return null;
  if (url.pathname !== '/' || url.search !== '' || url.hash !== '' || /[?#]/.test(value)) return null;
  if (url.hostname.includes('*')) return null;
  return url.origin;
}

export const isOrigin = (value: string): boolean => normalizeOrigin(value) === value;

/**
 * The origin the buyer lands on, or null when the placeholder stands inside it (the origin would
 * then depend on the session id, so no list can vouch for it). Session ids are letters, digits
 * and `_`, so two different fillers parse alike everywhere but in the origin itself.
 */
export function redirectOrigin(template: string): string | null {
  const fill = (filler: string) => {
    const text = template.split(SESSION_ID_PLACEHOLDER).join(filler);
    return URL.canParse(text) ? new URL(text).origin : null;
  };
  const origin = fill('a');
  return origin !== null && origin !== 'null' && origin === fill('b') ? origin : null;
}

/**
 * The fields of `urls` whose origin is not one of `allowed` (exact: scheme, host and port), with
 * the message for each; empty when all are allowed.
 */
export function disallowedRedirects(urls: RedirectUrls, allowed: ReadonlySet<string>): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const field of ['success_url', 'cancel_url'] as const) {
    const url = urls[field];
    if (url === undefined) continue;
    const origin = redirectOrigin(url);
    if (origin === null || !allowed.has(origin)) {
      errors[field] = [
        `The ${field} field must be on an origin the seller allowed for this offer${origin ? ` (${origin} is not)` : ''}; a seller's server may send any URL with its API key.`,
      ];
    }
  }
  return errors;
}

/** Refuses a list of allowed redirect origins that is not canonical origins, unique, at most MAX_REDIRECT_ORIGINS. */
export function checkRedirectOrigins(origins: readonly string[] | undefined, field = 'allowed_redirect_origins'): void {
  if (!origins) return;
  if (origins.length > MAX_REDIRECT_ORIGINS) {
    throw invalid('invalid_redirect_origin', `The ${field} field must not have more than ${MAX_REDIRECT_ORIGINS} origins.`, field);
  }
  origins.forEach((origin, i) => {
    if (!isOrigin(origin)) {
      throw invalid('invalid_redirect_origin', `The ${field}.${i} field must be an http or https origin such as https://shop.example (no path).`, `${field}.${i}`);
    }
  });
  if (new Set(origins).size !== origins.length) throw invalid('invalid_redirect_origin', `The ${field} field has an origin twice.`, field);
}
