/**
 * The public event types an endpoint subscribes to. One domain event maps to one public type, so
 * the event's id is the `webhook-id`; a public type may announce several domain events.
 */
export const WEBHOOK_EVENT_TYPES = [
  'checkout.session.completed',
  'checkout.session.expired',
  'invoice.paid',
  'invoice.voided',
  'invoice.refunded',
  'invoice.disputed',
  'invoice.created',
  'invoice.upcoming',
  'invoice.payment_failed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'customer.subscription.trial_will_end',
  'promo.participant.enrolled',
  'product.published',
  'product.archived',
  'offer.published',
  'workflow.failed',
  'coupon.redeemed',
  'benefit.granted',
  'benefit.revoked',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const PUBLIC_TYPE_OF: Readonly<Record<string, WebhookEventType>> = {
  CheckoutSessionCompleted: 'checkout.session.completed',
  CheckoutSessionExpired: 'checkout.session.expired',
  InvoicePaid: 'invoice.paid',
  InvoiceVoided: 'invoice.voided',
  InvoiceRefunded: 'invoice.refunded',
  InvoiceDisputed: 'invoice.disputed',
  // A subscription's invoice only: a checkout's is announced by checkout.session.completed and invoice.paid.
  InvoiceCreated: 'invoice.created',
  InvoicePaymentFailed: 'invoice.payment_failed',
  SubscriptionRenewalUpcoming: 'invoice.upcoming',
  SubscriptionCreated: 'customer.subscription.created',
  // Every event that changes what the subscription shows; a payment attempt alone is not announced.
  SubscriptionInvoiceCreated: 'customer.subscription.updated',
  SubscriptionInvoicePaid: 'customer.subscription.updated',
  SubscriptionPaymentFailed: 'customer.subscription.updated',
  SubscriptionGraceEnded: 'customer.subscription.updated',
  SubscriptionMarkedUnpaid: 'customer.subscription.updated',
  SubscriptionCancelScheduled: 'customer.subscription.updated',
  SubscriptionCancelUnscheduled: 'customer.subscription.updated',
  SubscriptionPaused: 'customer.subscription.updated',
  SubscriptionResumed: 'customer.subscription.updated',
  SubscriptionPlanChanged: 'customer.subscription.updated',
  SubscriptionPaymentMethodUpdated: 'customer.subscription.updated',
  SubscriptionDiscountRemoved: 'customer.subscription.updated',
  SubscriptionCanceled: 'customer.subscription.deleted',
  SubscriptionIncompleteExpired: 'customer.subscription.deleted',
  SubscriptionTrialWillEnd: 'customer.subscription.trial_will_end',
  PromoParticipantEnrolled: 'promo.participant.enrolled',
  ProductPublished: 'product.published',
  ProductArchived: 'product.archived',
  OfferPublished: 'offer.published',
  WorkflowFailed: 'workflow.failed',
  CouponRedeemed: 'coupon.redeemed',
  BenefitGranted: 'benefit.granted',
  BenefitRevoked: 'benefit.revoked',
};

/** The streams whose events can become a webhook (the fan-out subscribes to these only). */
export const SOURCE_STREAM_PREFIXES = ['checkout_session-', 'invoice-', 'subscription-', 'promo-', 'product-', 'offer-', 'automation_workflow-', 'coupon-', 'benefit_grant-'] as const;

export const isWebhookEventType = (value: string): value is WebhookEventType => (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
