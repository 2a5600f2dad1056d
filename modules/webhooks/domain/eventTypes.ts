/**
 * The public event types an endpoint subscribes to, and the domain event each one announces.
 * One domain event maps to one public type, so the event's id is the message's `webhook-id`.
 */
export const WEBHOOK_EVENT_TYPES = [
  'checkout.session.completed',
  'checkout.session.expired',
  'invoice.paid',
  'invoice.voided',
  'invoice.refunded',
  'invoice.disputed',
  'promo.participant.enrolled',
  'product.published',
  'product.archived',
  'offer.published',
  'workflow.failed',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const PUBLIC_TYPE_OF: Readonly<Record<string, WebhookEventType>> = {
  CheckoutSessionCompleted: 'checkout.session.completed',
  CheckoutSessionExpired: 'checkout.session.expired',
  InvoicePaid: 'invoice.paid',
  InvoiceVoided: 'invoice.voided',
  InvoiceRefunded: 'invoice.refunded',
  InvoiceDisputed: 'invoice.disputed',
  PromoParticipantEnrolled: 'promo.participant.enrolled',
  ProductPublished: 'product.published',
  ProductArchived: 'product.archived',
  OfferPublished: 'offer.published',
  WorkflowFailed: 'workflow.failed',
};

/** The streams whose events can become a webhook (the fan-out subscribes to these only). */
export const SOURCE_STREAM_PREFIXES = ['checkout_session-', 'invoice-', 'promo-', 'product-', 'offer-', 'automation_workflow-'] as const;

export const isWebhookEventType = (value: string): value is WebhookEventType => (WEBHOOK_EVENT_TYPES as readonly string[]).includes(value);
