import type { SubscriptionEvent } from './subscription.ts';

/**
 * When a subscription event happened, from its own data: a subscription on a test clock lives in
 * the clock's time, which the event's metadata (the wall clock of the write) does not know.
 */
export function subscriptionEventTime(event: SubscriptionEvent): number {
  switch (event.type) {
    case 'SubscriptionCreated':
    case 'SubscriptionInvoiceCreated':
      return event.data.created_at;
    case 'SubscriptionPaymentAttempted':
      return event.data.attempted_at;
    case 'SubscriptionInvoicePaid':
      return event.data.paid_at;
    case 'SubscriptionPaymentFailed':
      return event.data.failed_at;
    case 'SubscriptionGraceEnded':
      return event.data.ended_at;
    case 'SubscriptionCanceled':
      return event.data.canceled_at;
    case 'SubscriptionPaused':
      return event.data.paused_at;
    case 'SubscriptionResumed':
      return event.data.resumed_at;
    case 'SubscriptionPlanChanged':
      return event.data.changed_at;
    case 'SubscriptionMarkedUnpaid':
    case 'SubscriptionCancelScheduled':
    case 'SubscriptionCancelUnscheduled':
    case 'SubscriptionIncompleteExpired':
    case 'SubscriptionPaymentMethodUpdated':
    case 'SubscriptionTrialWillEnd':
    case 'SubscriptionRenewalUpcoming':
    case 'SubscriptionCustomerRedacted':
    case 'SubscriptionDiscountRemoved':
      return event.data.at;
  }
}
