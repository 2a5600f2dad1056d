/**
 * The full-page checkout's way back to the shop: the offer's success_url after payment and its
 * cancel_url on cancel, with `{CHECKOUT_SESSION_ID}` replaced as Stripe does. A framed checkout
 * never redirects (the SDK's flow reports to its page), so the server leaves both out of a
 * framed page's config.
 */
const PLACEHOLDER = '{CHECKOUT_SESSION_ID}';

export type RedirectConfig = { successUrl?: string | null; cancelUrl?: string | null };

const fill = (template: string, sessionId: string | null) => template.split(PLACEHOLDER).join(sessionId ? encodeURIComponent(sessionId) : '');

/** After a purchase: to success_url, when the offer has one. */
export function redirectAfterPayment(cfg: RedirectConfig, sessionId: string): void {
  if (cfg.successUrl) window.location.assign(fill(cfg.successUrl, sessionId));
}

/** The "Cancel and return" link (rendered only when the offer has a cancel_url) carries the session id once there is one. */
export function wireCancelLink(cfg: RedirectConfig, sessionId: () => string | null): void {
  const link = document.getElementById('co-cancel') as HTMLAnchorElement | null;
  if (!link || !cfg.cancelUrl) return;
  const cancelUrl = cfg.cancelUrl;
  link.href = fill(cancelUrl, sessionId());
  link.addEventListener('click', () => {
    link.href = fill(cancelUrl, sessionId());
  });
}
