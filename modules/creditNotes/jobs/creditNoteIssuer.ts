import type { RecordedEvent } from '../../../platform/eventStore/index.ts';
import { type Logger, followFromCheckpoint, reactionContext } from '../../../platform/es/index.ts';
import type { BackgroundJob, Services } from '../../../platform/runtime/index.ts';
import { issueCreditNotes } from '../creditNoteCommands.ts';

export const CREDIT_NOTE_CHECKPOINT = 'job:credit-notes';

async function handleBatch(services: Services, events: RecordedEvent[]): Promise<void> {
  const invoices = new Map<string, RecordedEvent>();
  for (const event of events) if (event.type === 'InvoiceRefunded') invoices.set(event.stream.slice('invoice-'.length), event);
  for (const [invoiceId, cause] of invoices) await issueCreditNotes(reactionContext(services.store, services.clock(), cause, 'credit-notes'), invoiceId);
}

/**
 * Issues the credit note of each refund: the refund route issues it at once, and this finishes
 * what a crash between the refund and its note left undone, and the refunds Stripe reports
 * (`charge.refunded`). At least once; issuing again changes nothing.
 */
export const creditNoteIssuerJob: BackgroundJob = {
  name: 'credit-notes',
  start(services: Services, logger: Logger) {
    return followFromCheckpoint(services, logger, {
      checkpoint: CREDIT_NOTE_CHECKPOINT,
      streamPrefixes: ['invoice-'],
      batchSize: 200,
      handle: (events) => handleBatch(services, events),
      remedy: `delete the checkpoint ${CREDIT_NOTE_CHECKPOINT} to look at every refund again (a credit note is issued once)`,
      failure: 'issuing credit notes failed; retrying from its checkpoint',
    });
  },
};
