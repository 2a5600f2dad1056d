export { intervalProblem, parseInterval, boundary } from './domain/interval.ts';
export { type PaymentMethod, type SubscriptionEvent, subscriptionDecider, subscriptionStream } from './domain/subscription.ts';
export { testClockStream, testClockDecider, type TestClockEvent } from './domain/testClock.ts';
export { billingLinkPath, issueBillingLink } from './billingLinks.ts';
export { cancelSubscription, loadSubscription, reactivateSubscription } from './subscriptionCommands.ts';
