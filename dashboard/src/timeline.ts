import { formatMoney } from './format.ts';
import type { HistoryEntry, SessionState } from './types.ts';

/**
 * The entry a moment selects: the last event at or before `at` (Unix seconds). Several events
 * can share a second; `rev` (a revision at that very second) picks one of them.
 */
export function entryIndexAt(history: HistoryEntry[], at: number | null, rev: number | null): number {
  if (at === null) return history.length - 1;
  if (rev !== null) {
    const exact = history.findIndex((e) => e.revision === rev && e.occurred_at === at);
    if (exact >= 0) return exact;
  }
  let index = -1;
  history.forEach((e, i) => {
    if (e.occurred_at <= at) index = i;
  });
  return index;
}

/** The URL's ?at= (and ?rev= when the second holds later events too) for an entry. */
export function momentOf(history: HistoryEntry[], index: number): { at: number; rev: number | null } {
  const entry = history[index]!;
  const later = history.slice(index + 1).some((e) => e.occurred_at === entry.occurred_at);
  return { at: entry.occurred_at, rev: later ? entry.revision : null };
}

/** As readers see it at `at`: an open session past its expiry reads as expired. */
export function statusAt(state: SessionState, at: number): SessionState['status'] {
  return state.status === 'open' && at >= state.expires_at ? 'expired' : state.status;
}

/** What an event changed, in a few words per field ("status: open → completed"). */
export function changes(before: SessionState | null, after: SessionState): string[] {
  if (!before) return [`status: ${after.status}`, `total: ${formatMoney(after.total, after.currency)}`];
  const out: string[] = [];
  const show = (v: unknown): string => {
    if (v === null || v === undefined) return '—';
    if (typeof v === 'object') {
      const o = v as Record<string, unknown>;
      if ('last4' in o) return `${String(o.brand)} •••• ${String(o.last4)}`;
      if ('number' in o && 'status' in o) return `#${String(o.number)} ${String(o.status)}`;
      if ('email' in o || 'name' in o) return [o.name, o.email].filter(Boolean).join(' ') || '—';
      if ('code' in o) return String(o.decline_code ?? o.code);
      return JSON.stringify(o);
    }
    return String(v);
  };
  const fields: (keyof SessionState)[] = ['status', 'customer', 'payment', 'last_decline', 'invoice', 'total', 'promo', 'promo_tier'];
  for (const field of fields) {
    const a = show(before[field]);
    const b = show(after[field]);
    if (a !== b) out.push(`${field.replace('_', ' ')}: ${field === 'total' ? formatMoney(before.total, before.currency) : a} → ${field === 'total' ? formatMoney(after.total, after.currency) : b}`);
  }
  // A refund or a dispute leaves the invoice paid: say what moved.
  const [was, is] = [before.invoice, after.invoice];
  if (is && (was?.amount_refunded ?? 0) !== (is.amount_refunded ?? 0)) {
    out.push(`refunded: ${formatMoney(was?.amount_refunded ?? 0, is.currency)} → ${formatMoney(is.amount_refunded ?? 0, is.currency)} of ${formatMoney(is.total, is.currency)}`);
  }
  if (is && (was?.disputes ?? 0) !== (is.disputes ?? 0)) out.push(`disputes: ${was?.disputes ?? 0} → ${is.disputes ?? 0}`);
  return out;
}
