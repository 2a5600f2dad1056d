import { formatDay, formatMoney } from '../../receipts/domain/receiptMessage.ts';
import type { CreditNote } from './creditNote.ts';
import type { CreditNoteSplit } from './creditNoteSplit.ts';
import { discountLabel, REVERSE_CHARGE_STATEMENT, taxLabel } from '../../receipts/domain/receiptFigures.ts';

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

/**
 * The net, tax and discount of a credit note as printed: its lines, then `Net`, the discount
 * given back and the VAT per rate; null for a note with neither tax nor discount (its amount says all).
 */
export function creditNoteSplitLines(note: CreditNoteSplit & { amount: number; currency: string }): {
  lines: { label: string; amount: string }[];
  totals: { label: string; amount: string }[];
  statement: string | null;
} | null {
  if (note.tax_amounts.length === 0 && note.discount_amounts.length === 0) return null;
  const money = (minor: number) => formatMoney(minor, note.currency);
  const lines = note.lines.map((l) => ({ label: l.description, amount: money(l.amount) }));
  const totals = [
    ...note.discount_amounts.map((d) => ({ label: `${discountLabel(d.discount)} given back`, amount: money(d.amount) })),
    { label: 'Net credited', amount: money(note.total_excluding_tax) },
    ...note.tax_amounts.map((t) => ({
      label: taxLabel({ tax_rate: t.tax_rate, percentage: t.percentage, behavior: t.inclusive ? 'inclusive' : 'exclusive', taxability_reason: t.taxability_reason, calculated_by: '' }),
      amount: money(t.amount),
    })),
  ];
  const reverse = note.tax_amounts.some((t) => t.taxability_reason === 'reverse_charge');
  return { lines, totals, statement: reverse ? REVERSE_CHARGE_STATEMENT : null };
}

export { formatMoney };
