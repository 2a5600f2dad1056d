import { type Services, intervalJob } from '../../../platform/runtime/index.ts';
import { runDue } from '../billing.ts';

/**
 * Bills the subscriptions that live in real time (not on a test clock): renewals, retries,
 * cancellations at period end and notices, each when it is due.
 */
export const renewalsJob = intervalJob({
  name: 'subscription-renewals',
  intervalMs: (services: Services) => services.config.SUBSCRIPTION_BILLING_INTERVAL_MS,
  async pass(services, logger) {
    const steps = await runDue(services, '', Math.floor(services.clock() / 1000), logger);
    if (steps > 0) logger.info({ steps }, 'subscriptions billed');
  },
  failure: 'subscription billing failed; retrying at the next tick',
});
