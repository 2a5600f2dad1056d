import type { Decider, DomainEvent } from '../../../platform/domain/index.ts';
import type { CreditNoteSplit } from './creditNoteSplit.ts';

/** Stripe's CreditNote reasons. */
export const CREDIT_NOTE_REASONS = ['duplicate', 'fraudulent', 'order_change', 'product_unsatisfactory'] as const;
export type CreditNoteReason = (typeof CREDIT_NOTE_REASONS)[number];

/**
 * A credit note as it is issued: what one refund of an invoice gave back, and its net, tax and
 * discount (creditNoteSplit.ts; absent on notes issued before they were recorded: all net).
 */
export type CreditNote = {
  /** `cn_…`, derived from the invoice and the refund, so issuing it again finds it. */
  id: string;
  /** The organization's sequence: 1, 2, 3… shown as CN-0001. */
  number: number;
  organization_id: string;
  invoice_id: string;
  invoice_number: number;
  refund_id: string;
  amount: number;
  currency: string;
  reason: CreditNoteReason | null;
  customer: { email: string | null; name: string | null } | null;
  mode: 'test' | 'live' | null;
  created: number;
} & Partial<CreditNoteSplit>;

export type CreditNoteEvent = DomainEvent<'CreditNoteIssued', CreditNote>;

export type CreditNoteCommand = { type: 'IssueCreditNote'; note: Omit<CreditNote, 'number' | 'created'>; now: number };

/** The organization's numbering: the last number given and the note each id got. */
export type CreditNotesState = { last: number; issued: Readonly<Record<string, number>> };

/**
 * One stream per organization holds every credit note it issued: the number is decided on it
 * with the expected revision, so two refunds at once never share a number and a retry of one
 * (same id) is given nothing new, leaving no gap.
 */
export const creditNotesStream = (organizationId: string) => `credit_notes-${organizationId}`;

export const formatCreditNoteNumber = (n: number) => `CN-${String(n).padStart(4, '0')}`;

export const creditNotesDecider: Decider<CreditNotesState, CreditNoteCommand, CreditNoteEvent> = {
  initialState: () => ({ last: 0, issued: {} }),
  evolve(state, event) {
    return { last: Math.max(state.last, event.data.number), issued: { ...state.issued, [event.data.id]: event.data.number } };
  },
  decide(command, state) {
    if (state.issued[command.note.id] !== undefined) return [];
    return { type: 'CreditNoteIssued', data: { ...command.note, number: state.last + 1, created: command.now } };
  },
};
