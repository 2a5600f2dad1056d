import type { RecordedEvent } from '../../platform/eventStore/index.ts';
import type { Projection, ProjectionTx } from '../../platform/es/index.ts';
import type { Filter, ReadStore } from '../../platform/readStore/index.ts';
import { formatCreditNoteNumber, type CreditNote, type CreditNoteEvent } from './domain/creditNote.ts';
import type { CreditNoteSplit } from './domain/creditNoteSplit.ts';

export const CREDIT_NOTES = 'credit_notes';

/** A credit note as the API shows it (Stripe's CreditNote, in this service's conventions). */
export type CreditNoteResource = {
  id: string;
  object: 'credit_note';
  number: string;
  invoice: string;
  invoice_number: number;
  refund: string;
  amount: number;
  currency: string;
  reason: CreditNote['reason'];
  customer: CreditNote['customer'];
  mode: CreditNote['mode'];
  created: number;
} & CreditNoteSplit;

export type CreditNoteDoc = CreditNoteResource & { organization_id: string; sequence: number };

export function presentCreditNote(doc: CreditNoteDoc): CreditNoteResource {
  const { organization_id: _o, sequence: _s, ...resource } = doc;
  return resource;
}

/** Every credit note, by organization and invoice. */
export const creditNoteProjection: Projection = {
  name: 'credit_notes',
  // 2: notes carry their net, tax and discount (absent from notes issued before: all net).
  version: 2,
  collections: [CREDIT_NOTES],
  indexes: [
    { collection: CREDIT_NOTES, fields: ['organization_id', 'sequence'] },
    { collection: CREDIT_NOTES, fields: ['organization_id', 'invoice', 'sequence'] },
  ],
  eventTypes: ['CreditNoteIssued'],
  async apply(recorded: RecordedEvent, tx: ProjectionTx) {
    const n = (recorded as unknown as CreditNoteEvent).data;
    const doc: CreditNoteDoc = {
      id: n.id,
      object: 'credit_note',
      number: formatCreditNoteNumber(n.number),
      invoice: n.invoice_id,
      invoice_number: n.invoice_number,
      refund: n.refund_id,
      amount: n.amount,
      currency: n.currency,
      reason: n.reason,
      customer: n.customer,
      mode: n.mode,
      created: n.created,
      // A note issued before its split was recorded: all of it net.
      subtotal: n.subtotal ?? n.amount,
      total_excluding_tax: n.total_excluding_tax ?? n.amount,
      tax_amounts: n.tax_amounts ?? [],
      discount_amounts: n.discount_amounts ?? [],
      lines: n.lines ?? [],
      organization_id: n.organization_id,
      sequence: n.number,
    };
    tx.upsert(CREDIT_NOTES, doc);
  },
};

/** The organization's credit notes (of one invoice when given), oldest first as they were numbered. */
export async function listCreditNotes(readStore: ReadStore, organizationId: string, q: { invoice?: string | undefined; skip: number; limit: number }) {
  const filter: Filter = { organization_id: organizationId };
  if (q.invoice) filter.invoice = q.invoice;
  const [items, total] = await Promise.all([
    readStore.find<CreditNoteDoc>(CREDIT_NOTES, { filter, sort: [['sequence', 1]], skip: q.skip, limit: q.limit }),
    readStore.count(CREDIT_NOTES, filter),
  ]);
  return { items, total };
}

/** A credit note of the organization; another's is not found. */
export async function findCreditNote(readStore: ReadStore, organizationId: string, id: string): Promise<CreditNoteDoc | null> {
  const doc = await readStore.get<CreditNoteDoc>(CREDIT_NOTES, id);
  return doc && doc.organization_id === organizationId ? doc : null;
}
