import { asArray, DomainError, fold } from '../../../platform/domain/index.ts';
import { WrongExpectedRevisionError, type RecordedEvent } from '../../../platform/eventStore/index.ts';
import { type Logger, followFromCheckpoint, toNewEvent } from '../../../platform/es/index.ts';
import type { BackgroundJob, Services } from '../../../platform/runtime/index.ts';
import { invoiceDecider, invoiceStream, type InvoiceCommand, type InvoiceEvent, type InvoiceState } from '../../checkout/index.ts';
import { subscriptionDecider, type SubscriptionEvent, type SubscriptionState } from '../domain/subscription.ts';

export const INVOICE_MIRROR_CHECKPOINT = 'job:subscription-invoices';

type Active = Exclude<SubscriptionState, { status: 'none' }>;

/** The invoice-stream commands one subscription event calls for, given the subscription just before it. */
function commandsFor(before: SubscriptionState, event: SubscriptionEvent): Array<{ invoiceId: string; command: InvoiceCommand }> {
  if (before.status === 'none' && event.type !== 'SubscriptionCreated') return [];
  const sub = before.status === 'none' ? null : (before as Active).sub;
  switch (event.type) {
    case 'SubscriptionInvoiceCreated': {
      const d = event.data;
      if (!sub) return [];
      return [
        {
          invoiceId: d.invoice_id,
          command: {
            type: 'CreateInvoice',
            invoice: {
              id: d.invoice_id,
              number: d.number,
              organization_id: sub.organization_id,
              session_id: null,
              lines: d.lines,
              currency: sub.currency,
              customer: sub.customer,
              subscription_id: sub.id,
              billing_reason: d.billing_reason,
              period: { start: d.period_start, end: d.period_end },
              amount_due: d.amount_due,
              mode: sub.mode,
              ...(sub.customer_id ? { customer_id: sub.customer_id } : {}),
              // The invoice's total follows from its pricing (lines − discount + exclusive tax), as the subscription billed it.
              ...(d.pricing ? { pricing: d.pricing } : {}),
            },
            now: d.created_at,
          },
        },
      ];
    }
    case 'SubscriptionInvoicePaid': {
      const d = event.data;
      return [
        {
          invoiceId: d.invoice_id,
          command: {
            type: 'PayInvoice',
            attemptId: `${d.invoice_id}_a${d.attempt}`,
            card: d.card ?? { brand: 'none', last4: '' },
            customer: null,
            chargeId: d.charge_id,
            provider: d.charge_id ? (sub?.mode === 'live' ? 'stripe' : 'test') : 'none',
            now: d.paid_at,
          },
        },
      ];
    }
    case 'SubscriptionPaymentFailed': {
      const d = event.data;
      return [
        {
          invoiceId: d.invoice_id,
          command: {
            type: 'RecordPaymentFailure',
            attemptId: `${d.invoice_id}_a${d.attempt}`,
            attempt: d.attempt,
            code: d.code,
            declineCode: d.decline_code,
            message: d.message,
            nextPaymentAttempt: d.next_payment_attempt,
            now: d.failed_at,
          },
        },
      ];
    }
    case 'SubscriptionMarkedUnpaid':
      return [{ invoiceId: event.data.invoice_id, command: { type: 'MarkUncollectible', reason: 'dunning_exhausted', now: event.data.at } }];
    case 'SubscriptionCanceled': {
      // An invoice still open when the subscription ends will not be collected.
      const open = before.status === 'none' ? null : before.open_invoice;
      if (!open || open.billing_reason === 'subscription_create') return [];
      return [{ invoiceId: open.id, command: { type: 'MarkUncollectible', reason: event.data.reason === 'payment_failed' ? 'dunning_exhausted' : 'subscription_canceled', now: event.data.canceled_at } }];
    }
    default:
      return [];
  }
}

/**
 * Writes a batch's invoice commands, one append per invoice stream: folded from the stream, each
 * command decided in turn (a command already applied decides nothing), all appended together.
 */
async function writeInvoices(services: Services, work: Map<string, { commands: InvoiceCommand[]; cause: RecordedEvent }>): Promise<void> {
  for (const [invoiceId, { commands, cause }] of work) {
    const stream = invoiceStream(invoiceId);
    for (let tries = 0; ; tries++) {
      const recorded = await services.store.readStream(stream);
      let state: InvoiceState = fold(invoiceDecider, recorded as never);
      const events: InvoiceEvent[] = [];
      for (const command of commands) {
        let decided: InvoiceEvent[];
        try {
          decided = asArray(invoiceDecider.decide(command, state));
        } catch (error) {
          // The invoice already holds another outcome (paid by another attempt, or void): it stands.
          if (error instanceof DomainError) continue;
          throw error;
        }
        for (const e of decided) {
          events.push(e);
          state = invoiceDecider.evolve(state, e);
        }
      }
      if (events.length === 0) break;
      try {
        await services.store.append(stream, events.map((e) => toNewEvent(e, { ...cause.metadata, actor: { type: 'system', name: 'subscription-invoices' } })), recorded.length === 0 ? 'no_stream' : recorded.length - 1);
        break;
      } catch (error) {
        if (!(error instanceof WrongExpectedRevisionError) || tries >= 3) throw error;
      }
    }
  }
}

async function handleBatch(services: Services, events: RecordedEvent[]): Promise<void> {
  const work = new Map<string, { commands: InvoiceCommand[]; cause: RecordedEvent }>();
  const byStream = new Map<string, RecordedEvent[]>();
  for (const e of events) {
    if (!e.type.startsWith('Subscription')) continue;
    const list = byStream.get(e.stream) ?? [];
    list.push(e);
    byStream.set(e.stream, list);
  }
  for (const [stream, batch] of byStream) {
    // The subscription just before the batch's first event, folded from its stream.
    const all = await services.store.readStream(stream);
    let state: SubscriptionState = subscriptionDecider.initialState();
    for (const e of all) {
      if (e.revision >= batch[0]!.revision) break;
      state = subscriptionDecider.evolve(state, e as unknown as SubscriptionEvent);
    }
    for (const e of batch) {
      const event = e as unknown as SubscriptionEvent;
      for (const { invoiceId, command } of commandsFor(state, event)) {
        const entry = work.get(invoiceId) ?? { commands: [], cause: e };
        entry.commands.push(command);
        work.set(invoiceId, entry);
      }
      state = subscriptionDecider.evolve(state, event);
    }
  }
  await writeInvoices(services, work);
}

/**
 * Keeps each subscription's invoices as invoice streams: the subscription's stream is the record
 * of what was billed and paid (one append per renewal), and this subscriber writes what it says
 * to the invoice streams that receipts, webhooks and the invoice routes read. Delivery is at
 * least once; a command already applied decides nothing.
 */
export const invoiceMirrorJob: BackgroundJob = {
  name: 'subscription-invoices',
  start(services: Services, logger: Logger) {
    return followFromCheckpoint(services, logger, {
      checkpoint: INVOICE_MIRROR_CHECKPOINT,
      streamPrefixes: ['subscription-'],
      batchSize: 500,
      handle: (events) => handleBatch(services, events),
      remedy: `delete the checkpoint ${INVOICE_MIRROR_CHECKPOINT} to write every subscription's invoices again (what is written decides nothing)`,
      failure: 'writing subscription invoices failed; retrying from its checkpoint',
    });
  },
};
