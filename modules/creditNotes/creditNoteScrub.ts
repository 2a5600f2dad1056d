import type { ReadStore } from '../../platform/readStore/index.ts';
import { CREDIT_NOTES, type CreditNoteDoc } from './creditNoteProjection.ts';

/**
 * A GDPR erasure's part in the credit notes (called by modules/customers): the notes of the
 * buyer's invoices name the placeholder. Their `CreditNoteIssued` events are sealed with the
 * buyer's key, which the erasure destroys next, so a rebuild comes to the same.
 */
export async function scrubCreditNoteBuyer(readStore: ReadStore, erased: { organizationId: string; invoiceIds: Iterable<string>; placeholder: string }): Promise<void> {
  for (const invoice of erased.invoiceIds) {
    for (const doc of await readStore.find<CreditNoteDoc>(CREDIT_NOTES, { filter: { organization_id: erased.organizationId, invoice } })) {
      if (doc.customer) await readStore.upsert(CREDIT_NOTES, { ...doc, customer: { email: erased.placeholder, name: null } } satisfies CreditNoteDoc);
    }
  }
}
