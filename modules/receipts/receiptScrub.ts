import { escapeHtml } from '../../platform/http/index.ts';
import type { ReadStore } from '../../platform/readStore/index.ts';
import { NOTICES, RECEIPTS, type NoticeDoc, type ReceiptDoc } from './receiptProjection.ts';

/**
 * A GDPR erasure's part in the outbox (called by modules/customers): the buyer's receipts read as
 * the placeholder, and the notices sent to them lose their address and any mention of their email
 * or name. The log's copies are sealed with the buyer's key, which the erasure destroys next, so a
 * rebuild of these read models comes to the same.
 */
export async function scrubBuyerFromOutbox(
  readStore: ReadStore,
  erased: { organizationId: string; invoiceIds: Iterable<string>; email: string; name: string | null; placeholder: string },
): Promise<void> {
  for (const id of erased.invoiceIds) {
    const doc = await readStore.get<ReceiptDoc>(RECEIPTS, id);
    if (!doc || doc.organization_id !== erased.organizationId) continue;
    await readStore.upsert(RECEIPTS, { ...doc, receipt: { ...doc.receipt, buyer_email: erased.placeholder, buyer_name: null } } satisfies ReceiptDoc);
  }
  const email = erased.email.trim().toLowerCase();
  const scrub = (text: string) => {
    let out = text.split(new RegExp(escape(email), 'gi')).join(erased.placeholder);
    // The HTML part writes the name escaped (an apostrophe as &#39;): both spellings go.
    if (erased.name) for (const spelling of new Set([erased.name, escapeHtml(erased.name)])) out = out.split(spelling).join('[redacted]');
    return out;
  };
  for (const doc of await readStore.find<NoticeDoc>(NOTICES, { filter: { organization_id: erased.organizationId } })) {
    if (doc.notice.to.trim().toLowerCase() !== email) continue;
    const notice = { ...doc.notice, to: erased.placeholder, subject: scrub(doc.notice.subject), text: scrub(doc.notice.text) };
    if (notice.html !== undefined) notice.html = scrub(notice.html);
    await readStore.upsert(NOTICES, { ...doc, notice } satisfies NoticeDoc);
  }
}

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
