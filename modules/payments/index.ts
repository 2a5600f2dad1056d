export { liveModeUnavailable, liveProviderOf, prepareLivePayment, settlePaymentIntent } from './livePayments.ts';
export { type CardInput, type PaymentProvider } from './paymentProvider.ts';
export { paymentProviderFor } from './paymentProviders.ts';
export { loadStripeAccount } from './stripeAccountCommands.ts';
