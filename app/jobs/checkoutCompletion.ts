import { completePaidInvoiceSession } from '../../commands/checkout/sessionCommands.ts';
import type { RecordedEvent } from '../../eventStore/eventStore.ts';
import { DomainError } from '../../domain/shared/domainError.ts';
import type { Logger } from '../../projections/projectionRunner.ts';
import { assertCheckpointInLog } from '../../projections/assertCheckpointInLog.ts';
import { CheckpointConflictError } from '../../readStore/readStore.ts';
import type { BackgroundJob, Services } from '../services.ts';

export const CHECKOUT_COMPLETION_CHECKPOINT = 'job:checkout-completion';

/** Completes the session of every invoice paid in this batch that is still open. */
async function handleBatch(services: Services, events: RecordedEvent[], logger: Logger): Promise<void> {
  for (const event of events) {
    if (event.type !== 'InvoicePaid') continue;
    const ctx = {
      store: services.store,
      metadata: {
        correlation_id: event.metadata.correlation_id,
        actor: { type: 'system' as const, name: 'checkout-completion' },
        organization_id: event.metadata.organization_id,
        occurred_at: Math.floor(services.clock() / 1000),
      },
    };
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
  async start(services: Services, logger: Logger) {
    let stopped = false;
    let current: { stop(): Promise<void> } | null = null;
    await assertCheckpointInLog(
      services.store,
      CHECKOUT_COMPLETION_CHECKPOINT,
      await services.readStore.readCheckpoint(CHECKOUT_COMPLETION_CHECKPOINT),
      `restore the read store that goes with this log, or delete the checkpoint ${CHECKOUT_COMPLETION_CHECKPOINT} to look at every paid invoice again (completing a session twice decides nothing)`,
    );
    const loop = (async () => {
      while (!stopped) {
        let checkpoint = await services.readStore.readCheckpoint(CHECKOUT_COMPLETION_CHECKPOINT);
        const moveTo = async (next: number) => {
          await services.readStore.commit(CHECKOUT_COMPLETION_CHECKPOINT, [], { expected: checkpoint, next });
          checkpoint = next;
        };
        const subscription = services.store.subscribe(
          async (events) => {
            await handleBatch(services, events, logger);
            await moveTo(events[events.length - 1]!.position);
          },
          // Past long runs of other streams' events the store reports how far it looked: stored, a
          // restart skips them.
          { after: checkpoint, batchSize: 200, streamPrefixes: ['invoice-'], onCheckpoint: moveTo },
        );
        current = subscription;
        try {
          await subscription.done;
        } catch (error) {
          if (stopped || error instanceof CheckpointConflictError) continue;
          logger.error({ err: error }, 'checkout completion failed; retrying from its checkpoint');
          await new Promise((r) => setTimeout(r, 1000));
        }
      }
    })();
    return {
      async stop() {
        stopped = true;
        await current?.stop();
        await loop;
      },
    };
  },
};
