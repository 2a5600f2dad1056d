import { cancelVoidInvoicePayments } from '../livePayments.ts';
import type { RecordedEvent } from '../../../platform/eventStore/index.ts';
import { followFromCheckpoint, type Logger } from '../../../platform/es/index.ts';
import type { BackgroundJob, Services } from '../../../platform/runtime/index.ts';

export const VOID_INVOICE_PAYMENTS_CHECKPOINT = 'job:void-invoice-payments';

async function handleBatch(services: Services, events: RecordedEvent[], logger: Logger): Promise<void> {
  for (const event of events) {
    if (event.type !== 'InvoiceVoided') continue;
    const invoiceId = event.stream.slice('invoice-'.length);
    // Stripe out of reach throws: the batch is handled again from the checkpoint (each cancel is keyed).
    const outcomes = await cancelVoidInvoicePayments(services, invoiceId);
    for (const o of outcomes) {
      if (o.outcome === 'canceled') logger.info({ invoice: invoiceId, payment_intent: o.payment_intent_id }, 'payment of a void invoice cancelled in Stripe');
      else logger.info({ invoice: invoiceId, payment_intent: o.payment_intent_id, reason: o.message }, 'payment of a void invoice left as it is: Stripe refused to cancel it');
    }
  }
}

/**
 * Cancels in Stripe the open PaymentIntent of every invoice voided (its session expired), from
 * its checkpoint: a crash between the void and the cancel leaves it to the next run. A payment
 * that still succeeds first is refunded when Stripe reports it (handleStripeWebhook).
 */
export const voidInvoicePaymentsJob: BackgroundJob = {
  name: 'void-invoice-payments',
  start(services: Services, logger: Logger) {
    return followFromCheckpoint(services, logger, {
      checkpoint: VOID_INVOICE_PAYMENTS_CHECKPOINT,
      streamPrefixes: ['invoice-'],
      batchSize: 200,
      handle: (events) => handleBatch(services, events, logger),
      remedy: `restore the read store that goes with this log, or delete the checkpoint ${VOID_INVOICE_PAYMENTS_CHECKPOINT} to look at every void invoice again (a cancel made before is not made twice)`,
      failure: 'cancelling the payments of void invoices failed (is Stripe reachable?); retrying from its checkpoint',
    });
  },
};
