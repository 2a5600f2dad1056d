/**
 * What a page confirming a payment with Stripe.js lets through besides itself: Stripe.js's origin
 * (scripts, its frames, its calls) and, for Stripe's own, the hosts Stripe's CSP guide lists
 * (3-D Secure frames on hooks.stripe.com, API calls to api.stripe.com).
 */
export function stripeJsSources(stripeJsUrl: string): { script: string[]; frame: string[]; connect: string[] } {
  const origin = new URL(stripeJsUrl).origin;
  if (origin !== 'https://js.stripe.com') return { script: [origin], frame: [origin], connect: [origin] };
  return { script: [origin], frame: [origin, 'https://hooks.stripe.com'], connect: ['https://api.stripe.com'] };
}
