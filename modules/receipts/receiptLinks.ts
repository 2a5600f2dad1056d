import type { ReadStore } from '../../platform/readStore/index.ts';
import { RECEIPTS, type ReceiptDoc } from './receiptProjection.ts';

/** The buyer's receipt page and invoice PDF of a paid invoice, once its receipt is queued; null before. */
export async function receiptLinksOf(readStore: Pick<ReadStore, 'get'>, organizationId: string, invoiceId: string): Promise<{ page: string; pdf: string } | null> {
  const doc = await readStore.get<ReceiptDoc>(RECEIPTS, invoiceId);
  if (!doc || doc.organization_id !== organizationId) return null;
  return { page: `/receipts/${doc.token}`, pdf: `/receipts/${doc.token}/invoice.pdf` };
}
