/**
 * The event types an endpoint subscribes to, with a few words each. The dashboard may not import
 * server code (eslint boundaries), so the list is repeated here; a unit test keeps it equal to
 * modules/webhooks/domain/eventTypes.ts.
 */
export const WEBHOOK_EVENTS: { type: string; description: string }[] = [
  { type: 'checkout.session.completed', description: 'a session is paid' },
  { type: 'checkout.session.expired', description: 'a session expires unpaid' },
  { type: 'invoice.paid', description: 'an invoice is paid' },
  { type: 'invoice.voided', description: 'an open invoice is voided' },
  { type: 'invoice.refunded', description: 'a paid invoice is refunded, in part or in full' },
  { type: 'invoice.disputed', description: 'the buyer disputes a payment (chargeback)' },
  { type: 'invoice.created', description: "a subscription's renewal or plan change is invoiced" },
  { type: 'invoice.upcoming', description: 'a subscription renews in 7 days' },
  { type: 'invoice.payment_failed', description: "a charge of a subscription's card fails" },
  { type: 'customer.subscription.created', description: 'a subscription starts' },
  { type: 'customer.subscription.updated', description: 'a subscription changes (status, access, period, plan, cancellation)' },
  { type: 'customer.subscription.deleted', description: 'a subscription ends' },
  { type: 'customer.subscription.trial_will_end', description: "a subscription's trial ends in 3 days" },
  { type: 'promo.participant.enrolled', description: 'someone is enrolled in a promo' },
  { type: 'product.published', description: 'a product is published' },
  { type: 'product.archived', description: 'a product is archived' },
  { type: 'offer.published', description: 'an offer is published' },
  { type: 'workflow.failed', description: 'an automation workflow fails' },
  { type: 'coupon.redeemed', description: 'a purchase with a coupon or promotion code completes' },
  { type: 'benefit.granted', description: 'a customer is granted a benefit (a file, a license key)' },
  { type: 'benefit.revoked', description: "a customer's benefit is revoked (refund, subscription ended)" },
];
