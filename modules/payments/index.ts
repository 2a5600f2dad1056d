export { liveModeUnavailable, liveProviderOf, prepareCardSetup, prepareLivePayment, prepareRenewalPayment, readCardSetup, refundInvoice, settlePaymentIntent } from './livePayments.ts';
export { type CardInput, type ChargeResult, PaymentProviderError, type PaymentProvider } from './paymentProvider.ts';
export { paymentProviderFor } from './paymentProviders.ts';
export { loadStripeAccount } from './stripeAccountCommands.ts';
// Answers of the management routes, whose inferred types the dashboard imports (type-only).
export { StripeAccount as StripeAccountSchema } from './http/paymentSchemas.ts';
export { sendHostedPage } from './http/hostedPage.ts';
