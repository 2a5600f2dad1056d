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

/**
 * The "Cancel and return" link (rendered only when the offer has a cancel_url) carries the session
 * id in its href once there is one, so a new tab or a copied link has it as a click does. The
 * page marks the body with the session's id (data-session-id) whenever it makes or finds one.
 */
export function wireCancelLink(cfg: RedirectConfig, sessionId: () => string | null): void {
  const link = document.getElementById('co-cancel') as HTMLAnchorElement | null;
  if (!link || !cfg.cancelUrl) return;
  const cancelUrl = cfg.cancelUrl;
  const update = () => {
    link.href = fill(cancelUrl, sessionId());
  };
  update();
  new MutationObserver(update).observe(document.body, { attributes: true, attributeFilter: ['data-session-id'] });
}
