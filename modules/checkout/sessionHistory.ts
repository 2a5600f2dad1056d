import { checkoutSessionStream } from './domain/checkoutSession.ts';
import { invoiceStream } from './domain/invoice.ts';
import { evolveSessionView, viewAt, type CheckoutEvent, type SessionView } from './domain/sessionView.ts';
import type { Actor, EventStore, RecordedEvent } from '../../platform/eventStore/index.ts';

export type HistoryEntry = {
  /** 1-based: the state after the n-th event of the session and its invoice. */
  revision: number;
  type: string;
  stream: 'session' | 'invoice';
  stream_revision: number;
  occurred_at: number;
  actor: Actor;
  state: SessionView;
};

export type SessionHistory = { entries: HistoryEntry[]; organizationId: string | null };

/**
 * The audit trail of a session, read from its stream and its invoice's stream (the events are
 * the record; no read model stands in between), merged in log order.
 */
export async function sessionHistory(store: EventStore, id: string): Promise<SessionHistory> {
  const sessionEvents = await store.readStream(checkoutSessionStream(id));
  if (sessionEvents.length === 0) return { entries: [], organizationId: null };
  const started = sessionEvents.find((e) => e.type === 'CheckoutSessionStarted');
  const invoiceEvents = started ? await store.readStream(invoiceStream((started.data as { invoice_id: string }).invoice_id)) : [];
  const all: RecordedEvent[] = [...sessionEvents, ...invoiceEvents].sort((a, b) => a.position - b.position);
  const entries: HistoryEntry[] = [];
  let view: SessionView | null = null;
  for (const event of all) {
    view = evolveSessionView(view, event as unknown as CheckoutEvent);
    if (!view) continue;
    entries.push({
      revision: entries.length + 1,
      type: event.type,
      stream: event.stream.startsWith('invoice-') ? 'invoice' : 'session',
      stream_revision: event.revision,
      occurred_at: event.metadata.occurred_at,
      actor: event.metadata.actor,
      state: viewAt(view, event.metadata.occurred_at),
    });
  }
  const organizationId = (sessionEvents[0]!.data as { organization_id: string }).organization_id;
  return { entries, organizationId };
}

/** The state as it was at `at` (Unix seconds): the last event by then, read at that time; null before creation. */
export function stateAt(history: SessionHistory, at: number): SessionView | null {
  let last: HistoryEntry | null = null;
  for (const entry of history.entries) if (entry.occurred_at <= at) last = entry;
  return last ? viewAt(last.state, at) : null;
}
