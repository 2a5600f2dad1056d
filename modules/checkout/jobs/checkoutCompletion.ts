import { completePaidInvoiceSession } from '../sessionCommands.ts';
import type { RecordedEvent } from '../../../platform/eventStore/index.ts';
import { DomainError } from '../../../platform/domain/index.ts';
import { type Logger, followFromCheckpoint, reactionContext } from '../../../platform/es/index.ts';
import type { BackgroundJob, Services } from '../../../platform/runtime/index.ts';

export const CHECKOUT_COMPLETION_CHECKPOINT = 'job:checkout-completion';

/** Completes the session of every invoice paid in this batch that is still open. */
async function handleBatch(services: Services, events: RecordedEvent[], logger: Logger): Promise<void> {
  for (const event of events) {
    if (event.type !== 'InvoicePaid') continue;
    const ctx = reactionContext(services.store, services.clock(), event, 'checkout-completion');
    try {
      await completePaidInvoiceSession(ctx, event.stream.slice('invoice-'.length));
    } catch (error) {
      // A refusal (the session was expired or completed by another attempt) is final: move on.
      if (error instanceof DomainError) {
        logger.error({ err: error, invoice: event.stream }, 'could not complete the session of a paid invoice');
        continue;
      }
      throw error;
    }
  }
}

/**
 * The subscriber that finishes a purchase a crash interrupted: a process killed between
 * `InvoicePaid` and `CheckoutSessionCompleted` left the session open with a paid invoice. It
 * follows invoice streams from its checkpoint and completes each paid invoice's session (a no-op
 * for the usual case, where the pay request completed it). Delivery is at least once; completing
 * twice decides nothing.
 */
export const checkoutCompletionJob: BackgroundJob = {
  name: 'checkout-completion',
  start(services: Services, logger: Logger) {
    return followFromCheckpoint(services, logger, {
      checkpoint: CHECKOUT_COMPLETION_CHECKPOINT,
      streamPrefixes: ['invoice-'],
      batchSize: 200,
      handle: (events) => handleBatch(services, events, logger),
      remedy: `restore the read store that goes with this log, or delete the checkpoint ${CHECKOUT_COMPLETION_CHECKPOINT} to look at every paid invoice again (completing a session twice decides nothing)`,
      failure: 'checkout completion failed; retrying from its checkpoint',
    });
  },
};
