import { fold } from '../../platform/domain/index.ts';
import type { EventStore, RecordedEvent } from '../../platform/eventStore/index.ts';
import type { InvoiceEvent } from '../checkout/index.ts';
import { invoiceAsOf, nextBoundary, presentInvoice, presentSubscription, priceInvoice, pricedTotal, subscriptionDecider, type SubscriptionEvent, subscriptionStream } from '../subscriptions/index.ts';
import type { EventObject } from './eventObject.ts';

type Reader = Pick<EventStore, 'readStream'>;

/**
 * `data.object` of a subscription's events, folded up to the event. Each carries `sequence` (the
 * subscription's revision + 1) so a receiver can drop an older change that arrives late.
 */
export async function subscriptionEventObject(store: Reader, event: RecordedEvent): Promise<EventObject | null> {
  const recorded = (await store.readStream(event.stream)).filter((e) => e.position <= event.position);
  const state = fold(subscriptionDecider, recorded as unknown as SubscriptionEvent[]);
  if (state.status === 'none') return null;
  const sequence = event.revision + 1;
  if (event.type !== 'SubscriptionRenewalUpcoming') return { object: presentSubscription(state, sequence), organizationId: state.sub.organization_id };
  // Stripe's invoice.upcoming: the invoice the renewal will make, before it exists.
  const start = state.current_period_end;
  const period = { start, end: nextBoundary(state.anchor, state.plan, start) };
  // Priced as the renewal will be: the discount in force at its start, the tax the notice recorded.
  const tax = (event.data as { tax?: Parameters<typeof priceInvoice>[3] }).tax ?? null;
  const { lines, pricing } = priceInvoice(state, [...state.pending_proration, ...state.lines.map((l) => ({ ...l, period }))], start, tax);
  const total = pricedTotal(lines, pricing);
  const credit = Math.min(state.credit_balance, Math.max(0, total));
  return {
    object: {
      id: null,
      object: 'invoice',
      status: 'draft',
      billing_reason: 'upcoming',
      subscription: state.sub.id,
      customer: { email: state.sub.customer.email, name: state.sub.customer.name },
      mode: state.sub.mode,
      currency: state.sub.currency,
      period,
      lines,
      total,
      amount_due: Math.max(0, total - credit),
      next_payment_attempt: start,
      sequence,
    },
    organizationId: state.sub.organization_id,
  };
}

const CORRESPONDING: Record<string, string> = {
  InvoiceCreated: 'SubscriptionInvoiceCreated',
  InvoicePaid: 'SubscriptionInvoicePaid',
  InvoicePaymentFailed: 'SubscriptionPaymentFailed',
};

/**
 * A subscription's invoice after `event` (null for a checkout's), with the sequence of the
 * subscription's event recording the same step, or else of its last event before this one.
 */
export async function subscriptionInvoiceObject(store: Reader, event: RecordedEvent): Promise<EventObject | null> {
  const events = (await store.readStream(event.stream)).filter((e) => e.position <= event.position);
  const created = events[0] as unknown as InvoiceEvent | undefined;
  if (created?.type !== 'InvoiceCreated' || created.data.session_id !== null || !created.data.subscription_id) return null;
  const view = invoiceAsOf(events as unknown as InvoiceEvent[]);
  if (!view) return null;
  const subscriptionEvents = await store.readStream(subscriptionStream(created.data.subscription_id));
  const wanted = CORRESPONDING[event.type];
  const attempt = (event.data as { attempt?: number }).attempt;
  const match = subscriptionEvents.find((e) => {
    const d = e.data as { invoice_id?: string; attempt?: number };
    return e.type === wanted && d.invoice_id === view.id && (event.type !== 'InvoicePaymentFailed' || d.attempt === attempt);
  });
  const before = subscriptionEvents.filter((e) => e.position < event.position).at(-1);
  const sequence = match ? match.revision + 1 : before ? before.revision + 1 : 0;
  return { object: { ...presentInvoice(view), sequence }, organizationId: view.organization_id };
}
