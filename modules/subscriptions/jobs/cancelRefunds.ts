import type { RecordedEvent } from '../../../platform/eventStore/index.ts';
import { DomainError } from '../../../platform/domain/index.ts';
import { type Logger, followFromCheckpoint, reactionContext } from '../../../platform/es/index.ts';
import type { BackgroundJob, Services } from '../../../platform/runtime/index.ts';
import { refundInvoice } from '../../payments/index.ts';
import type { SubscriptionEvent } from '../domain/subscription.ts';

export const CANCEL_REFUNDS_CHECKPOINT = 'job:subscription-cancel-refunds';

/**
 * Refunds the unused time a seller asked for with an immediate cancellation: the cancellation
 * records the amount and the invoice, and this subscriber makes the refund, keyed on the
 * subscription, so a second delivery (at least once) refunds nothing more.
 */
async function handleBatch(services: Services, events: RecordedEvent[], logger: Logger): Promise<void> {
  for (const recorded of events) {
    const event = recorded as unknown as SubscriptionEvent;
    if (event.type !== 'SubscriptionCanceled' || !event.data.refund) continue;
    const { invoice_id, amount } = event.data.refund;
    const organizationId = recorded.metadata.organization_id;
    if (!organizationId) continue;
    // Dated at the cancellation, in the subscription's time (a test clock's): it follows it at once.
    const ctx = reactionContext(services.store, event.data.canceled_at * 1000, recorded, 'subscription-cancel-refunds');
    try {
      await refundInvoice(ctx, services, organizationId, invoice_id, amount, `cancel-${recorded.stream}`);
    } catch (error) {
      // Refunded in full already, or not paid: nothing is owed back.
      if (error instanceof DomainError) {
        logger.error({ err: error, subscription: recorded.stream }, 'could not refund the unused time of a canceled subscription');
        continue;
      }
      throw error;
    }
  }
}

export const cancelRefundsJob: BackgroundJob = {
  name: 'subscription-cancel-refunds',
  start(services: Services, logger: Logger) {
    return followFromCheckpoint(services, logger, {
      checkpoint: CANCEL_REFUNDS_CHECKPOINT,
      streamPrefixes: ['subscription-'],
      batchSize: 200,
      handle: (events) => handleBatch(services, events, logger),
      remedy: `delete the checkpoint ${CANCEL_REFUNDS_CHECKPOINT} to look at every cancellation again (a refund is made once)`,
      failure: 'refunding a canceled subscription failed; retrying from its checkpoint',
    });
  },
};
