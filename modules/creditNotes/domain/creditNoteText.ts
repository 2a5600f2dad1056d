import { formatDay, formatMoney } from '../../receipts/domain/receiptMessage.ts';
import type { CreditNote } from './creditNote.ts';

const REASONS: Record<NonNullable<CreditNote['reason']>, string> = {
  duplicate: 'Duplicate charge',
  fraudulent: 'Fraudulent charge',
  order_change: 'Order changed',
  product_unsatisfactory: 'Product unsatisfactory',
};

/** What a credit note says, line by line, wherever it is shown (PDF, receipt page). */
export function creditNoteLines(note: { number: string; invoice_number: number; amount: number; currency: string; created: number; reason: CreditNote['reason'] }) {
  return {
    title: `Credit note ${note.number}`,
    invoice: `For invoice #${note.invoice_number}`,
    date: `Issued on ${formatDay(note.created)}`,
    amount: formatMoney(note.amount, note.currency),
    reason: note.reason ? REASONS[note.reason] : null,
  };
}

export { formatMoney };
