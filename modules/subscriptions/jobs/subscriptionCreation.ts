import type { RecordedEvent } from '../../../platform/eventStore/index.ts';
import { type Logger, followFromCheckpoint } from '../../../platform/es/index.ts';
import type { BackgroundJob, Services } from '../../../platform/runtime/index.ts';
import { createSubscriptionFromSession } from '../billing.ts';

export const SUBSCRIPTION_CREATION_CHECKPOINT = 'job:subscription-creation';

/**
 * Makes the subscription of every completed checkout of a recurring plan. The completion names
 * the subscription's id, so a second delivery (at least once) finds it made and does nothing.
 */
export const subscriptionCreationJob: BackgroundJob = {
  name: 'subscription-creation',
  start(services: Services, logger: Logger) {
    return followFromCheckpoint(services, logger, {
      checkpoint: SUBSCRIPTION_CREATION_CHECKPOINT,
      streamPrefixes: ['checkout_session-'],
      batchSize: 200,
      handle: async (events: RecordedEvent[]) => {
        for (const event of events) {
          if (event.type !== 'CheckoutSessionCompleted' || !(event.data as { subscription_id?: string }).subscription_id) continue;
          await createSubscriptionFromSession(services, event.stream.slice('checkout_session-'.length), event);
        }
      },
      remedy: `delete the checkpoint ${SUBSCRIPTION_CREATION_CHECKPOINT} to look at every completed checkout again (a subscription is made once)`,
      failure: 'subscription creation failed; retrying from its checkpoint',
    });
  },
};
