export { currentAttempt, nextBoundary, priceInvoice, pricedTotal, type PaymentMethod, type SubscriptionEvent, subscriptionDecider, subscriptionStream } from './domain/subscription.ts';
export { invoiceAsOf } from './domain/invoiceView.ts';
export { InvoiceResourceSchema, presentInvoice, presentSubscription, SubscriptionSchema, type InvoiceResource, type SubscriptionResource } from './resources.ts';
// Answers of the management routes, whose types the dashboard imports (type-only).
export {
  type SubscriptionHistory,
  type SubscriptionMetricsAnswer,
  type SubscriptionStatement,
  type SubscriptionStatementEntry,
  type SubscriptionStatementLine,
  type TestClock,
} from './http/subscriptionSchemas.ts';
export { billingLinkPath, issueBillingLink } from './billingLinks.ts';
export { cancelSubscription, loadSubscription, reactivateSubscription } from './subscriptionCommands.ts';
export { parseCard, replaceCard, useSavedCard, type CardReplacement } from './cardReplacement.ts';
export { listInvoices } from './subscriptionReads.ts';
export { type Active, isEnded, type PlanTerms, type Line } from './domain/subscription.ts';
export { subscriptionPlans, switchPlan } from './planSwitch.ts';
export { declineInPlainWords } from './domain/dunningEmail.ts';
// The invoices read model (the reporting module's CSV export streams it) and the subscriptions one
// (the benefits job finds a product's subscriptions in it).
export { INVOICES, type InvoiceDoc, SUBSCRIPTIONS, type SubscriptionDoc } from './subscriptionProjection.ts';
