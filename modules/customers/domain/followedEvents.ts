// The pure domain file, not the module's index: subscriptions imports checkout, which imports customers.
import { SUBSCRIPTION_EVENT_TYPES } from '../../subscriptions/domain/subscription.ts';

/** Every subscription event: a customer's record shows the status of each of their subscriptions. */
export const FOLLOWED_SUBSCRIPTION_EVENTS: readonly string[] = SUBSCRIPTION_EVENT_TYPES;
