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

export function redirectTo(template: string, sessionId: string): string {
  return template.split(SESSION_ID_PLACEHOLDER).join(encodeURIComponent(sessionId));
}
