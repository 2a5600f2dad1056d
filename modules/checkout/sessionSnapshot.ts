import { checkoutSessionStream } from './domain/checkoutSession.ts';
import { invoiceStream } from './domain/invoice.ts';
import { evolveSessionView, type CheckoutEvent, type SessionView } from './domain/sessionView.ts';
import type { EventStore, RecordedEvent } from '../../platform/eventStore/index.ts';

/** A session as its streams hold it: the view the GET serves, and the revisions it was folded at. */
export type SessionSnapshot = {
  view: SessionView;
  sessionRevision: number;
  /** null before the session was started (no invoice stream yet). */
  invoiceRevision: number | null;
};

/** Weak: the body also depends on the clock (an open session past its expiry reads as expired). */
export const snapshotEtag = (s: Pick<SessionSnapshot, 'sessionRevision' | 'invoiceRevision'>) =>
  s.invoiceRevision === null ? `W/"${s.sessionRevision}"` : `W/"${s.sessionRevision}.${s.invoiceRevision}"`;

/** Folds a session's events and its invoice's, in log order, into the view the read model holds. */
export function snapshotOf(sessionEvents: readonly RecordedEvent[], invoiceEvents: readonly RecordedEvent[]): SessionSnapshot | null {
  if (sessionEvents.length === 0) return null;
  const all = [...sessionEvents, ...invoiceEvents].sort((a, b) => a.position - b.position);
  let view: SessionView | null = null;
  for (const event of all) view = evolveSessionView(view, event as unknown as CheckoutEvent);
  if (!view) return null;
  return {
    view,
    sessionRevision: sessionEvents[sessionEvents.length - 1]!.revision,
    invoiceRevision: invoiceEvents.length === 0 ? null : invoiceEvents[invoiceEvents.length - 1]!.revision,
  };
}

/**
 * What a write route answers: the session read back from its own streams right after the
 * command appended, never from a read model (which may lag, or not run at all).
 */
export async function readSessionSnapshot(store: EventStore, id: string): Promise<SessionSnapshot | null> {
  const sessionEvents = await store.readStream(checkoutSessionStream(id));
  const started = sessionEvents.find((e) => e.type === 'CheckoutSessionStarted');
  const invoiceEvents = started ? await store.readStream(invoiceStream((started.data as { invoice_id: string }).invoice_id)) : [];
  return snapshotOf(sessionEvents, invoiceEvents);
}
