import type { Actor, EventStore, RecordedEvent } from '../../platform/eventStore/index.ts';
import type { ReadStore } from '../../platform/readStore/index.ts';
import { checkoutSessionStream, invoiceStream } from '../checkout/index.ts';
import { subscriptionStream } from '../subscriptions/index.ts';
import { customerStream } from './domain/customer.ts';
import { CUSTOMER_LINKS, type LinkDoc } from './customerProjection.ts';

export type CustomerHistoryEntry = {
  /** 1-based, in log order. */
  sequence: number;
  position: number;
  type: string;
  object: 'customer' | 'checkout_session' | 'invoice' | 'subscription';
  object_id: string;
  occurred_at: number;
  actor: Actor;
};

const OBJECTS: Array<[prefix: string, object: CustomerHistoryEntry['object']]> = [
  ['customer-', 'customer'],
  ['checkout_session-', 'checkout_session'],
  ['invoice-', 'invoice'],
  ['subscription-', 'subscription'],
];

/**
 * Every event of the customer's sessions, invoices and subscriptions and of the customer itself,
 * in log order, read from the streams the read model links to them (the events are the record).
 * A session's events from before its purchase (created, started, declined) are theirs too.
 */
export async function customerHistory(store: Pick<EventStore, 'readStream'>, readStore: ReadStore, customerId: string): Promise<CustomerHistoryEntry[]> {
  const links = await readStore.find<LinkDoc>(CUSTOMER_LINKS, { filter: { customer_id: customerId } });
  const streams = new Set<string>([customerStream(customerId)]);
  const sessionIds: string[] = [];
  for (const link of links) {
    if (link.kind === 'session') {
      streams.add(checkoutSessionStream(link.object_id));
      sessionIds.push(link.object_id);
    } else if (link.kind === 'invoice') streams.add(invoiceStream(link.object_id));
    else streams.add(subscriptionStream(link.object_id));
  }
  const events: RecordedEvent[] = (await Promise.all([...streams].map((s) => store.readStream(s)))).flat();
  // A session's invoice is linked once paid; one made out to nobody yet is still the session's.
  for (const e of events) {
    if (e.type === 'CheckoutSessionStarted') {
      const stream = invoiceStream((e.data as { invoice_id: string }).invoice_id);
      if (!streams.has(stream)) {
        streams.add(stream);
        events.push(...(await store.readStream(stream)));
      }
    }
  }
  events.sort((a, b) => a.position - b.position);
  return events.map((e, i) => {
    const [prefix, object] = OBJECTS.find(([p]) => e.stream.startsWith(p)) ?? ['', 'customer'];
    return {
      sequence: i + 1,
      position: e.position,
      type: e.type,
      object,
      object_id: e.stream.slice(prefix.length),
      occurred_at: e.metadata.occurred_at,
      actor: e.metadata.actor,
    };
  });
}
