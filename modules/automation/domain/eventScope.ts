import { DEFAULT_EMAIL_TEMPLATE, DEFAULT_REFERENCE_TEMPLATE, type EnrolInPromoAction } from './actions.ts';

/**
 * Where the buyer's email sits in each event type's `data.object` (as event webhooks carry it):
 * an event trigger's Enrol-in-promo takes it when its email is left at the default.
 */
const BUYER_EMAIL: Readonly<Record<string, string>> = {
  'checkout.session.completed': 'event.data.object.customer_email',
  'checkout.session.expired': 'event.data.object.customer_email',
  'invoice.paid': 'event.data.object.customer.email',
  'invoice.voided': 'event.data.object.customer.email',
  'promo.participant.enrolled': 'event.data.object.email',
  'invoice.created': 'event.data.object.customer.email',
  'invoice.upcoming': 'event.data.object.customer.email',
  'invoice.payment_failed': 'event.data.object.customer.email',
  'customer.subscription.created': 'event.data.object.customer.email',
  'customer.subscription.updated': 'event.data.object.customer.email',
  'customer.subscription.deleted': 'event.data.object.customer.email',
  'customer.subscription.trial_will_end': 'event.data.object.customer.email',
};

/**
 * An Enrol-in-promo action as an event trigger's workflow runs it: the defaults, written for a
 * catch URL (`{{webhook_payload.email}}`, `{{webhook_payload.ref}}`), become the buyer's email
 * and the id of the resource the event is about (the session, the invoice...).
 */
export function enrolActionForEvent(action: EnrolInPromoAction, eventType: string): EnrolInPromoAction {
  const email = action.email === DEFAULT_EMAIL_TEMPLATE ? `{{${BUYER_EMAIL[eventType] ?? 'event.data.object.email'}}}` : action.email;
  const reference = action.reference === DEFAULT_REFERENCE_TEMPLATE ? '{{event.data.object.id}}' : action.reference;
  return { ...action, email, reference };
}
