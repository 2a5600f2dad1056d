import { confirmSessionRedemption, releaseSessionRedemption } from '../sessionCommands.ts';
import { checkoutSessionDecider, checkoutSessionStream } from '../domain/checkoutSession.ts';
import type { RecordedEvent } from '../../../platform/eventStore/index.ts';
import { DomainError, fold } from '../../../platform/domain/index.ts';
import { type Logger, followFromCheckpoint, reactionContext } from '../../../platform/es/index.ts';
import type { BackgroundJob, Services } from '../../../platform/runtime/index.ts';

export const DISCOUNT_REDEMPTIONS_CHECKPOINT = 'job:checkout-discount-redemptions';

/** Confirms the redemption of each session completed in this batch, and releases each expired one's. */
async function handleBatch(services: Services, events: RecordedEvent[], logger: Logger): Promise<void> {
  for (const event of events) {
    if (event.type !== 'CheckoutSessionCompleted' && event.type !== 'CheckoutSessionExpired') continue;
    const id = event.stream.slice('checkout_session-'.length);
    const state = fold(checkoutSessionDecider, (await services.store.readStream(checkoutSessionStream(id))) as never);
    if (state.status === 'none' || !state.session.pricing?.discount) continue;
    const ctx = reactionContext(services.store, services.clock(), event, 'checkout-discount-redemptions');
    try {
      if (event.type === 'CheckoutSessionCompleted') {
        const data = event.data as { invoice_id: string; customer_id?: string };
        await confirmSessionRedemption(ctx, state.session, data.invoice_id, data.customer_id ?? null);
      } else {
        await releaseSessionRedemption(ctx, state.session);
      }
    } catch (error) {
      // A refusal (the coupon was deleted since) is final: the purchase stands, move on.
      if (error instanceof DomainError) {
        logger.error({ err: error, session: id }, 'could not settle the discount redemption of a checkout session');
        continue;
      }
      throw error;
    }
  }
}

/**
 * Finishes what a crash between a session's completion (or expiry) and its coupon's record left
 * undone: a completed session's redemption is confirmed (it counts in `times_redeemed` and
 * announces `coupon.redeemed`), an expired one's reservation released so the limit frees up.
 * Delivery is at least once; both are idempotent per session.
 */
export const discountRedemptionsJob: BackgroundJob = {
  name: 'checkout-discount-redemptions',
  start(services: Services, logger: Logger) {
    return followFromCheckpoint(services, logger, {
      checkpoint: DISCOUNT_REDEMPTIONS_CHECKPOINT,
      streamPrefixes: ['checkout_session-'],
      batchSize: 200,
      handle: (events) => handleBatch(services, events, logger),
      remedy: `restore the read store that goes with this log, or delete the checkpoint ${DISCOUNT_REDEMPTIONS_CHECKPOINT} to look at every session again (confirming or releasing twice decides nothing)`,
      failure: 'discount redemptions failed; retrying from its checkpoint',
    });
  },
};
