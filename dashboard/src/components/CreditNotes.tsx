import type { z } from 'zod';
import type { CreditNoteSchema } from '../../../modules/creditNotes/index.ts';
import { formatDateTime, formatMoney } from '../format.ts';
import { useApi } from '../useApi.ts';
import { ErrorNotice } from './Notice.tsx';

type CreditNote = z.infer<typeof CreditNoteSchema>;

/** The invoice's credit notes, one per refund, each with its PDF. */
export function CreditNotes({ invoiceId }: { invoiceId: string }) {
  const notes = useApi<{ data: CreditNote[] }>('/credit_notes', { invoice: invoiceId });
  if (notes.error) return <ErrorNotice error={notes.error} />;
  if (!notes.data?.data.length) return null;
  return (
    <ul class="credit-notes" aria-label="Credit notes">
      {notes.data.data.map((n) => (
        <li key={n.id}>
          <a href={`/manage/api/credit_notes/${encodeURIComponent(n.id)}/pdf`} target="_blank" rel="noopener">
            {n.number}
          </a>{' '}
          {formatMoney(n.amount, n.currency)} · {formatDateTime(n.created)}
        </li>
      ))}
    </ul>
  );
}
