import { createHash } from 'node:crypto';
import { type InvoiceEvent, invoiceStream } from '../checkout/index.ts';
import { type CommandContext, handleCommand } from '../../platform/es/index.ts';
import { splitRefund, type CreditedInvoice } from './domain/creditNoteSplit.ts';
import { CREDIT_NOTE_REASONS, creditNotesDecider, creditNotesStream, type CreditNote, type CreditNoteReason } from './domain/creditNote.ts';

/** A refund's credit note id: the same refund (its event on the invoice's stream) always names the same note. */
export const creditNoteId = (invoiceId: string, refundRevision: number) =>
  `cn_${createHash('sha256').update(`${invoiceId}:${refundRevision}`).digest('hex').slice(0, 24)}`;

const reasonOf = (reason: string | undefined): CreditNoteReason | null => ((CREDIT_NOTE_REASONS as readonly string[]).includes(reason ?? '') ? (reason as CreditNoteReason) : null);

/**
 * Issues the credit note of every refund recorded on the invoice that has none yet, in the order
 * of the refunds; returns the invoice's notes. Decided on the invoice's stream (what was refunded)
 * and the organization's credit note stream (the numbering), never on a read model: the refund
 * route and the subscriber that finishes what a crash interrupted may both run it, in any order,
 * any number of times.
 */
export async function issueCreditNotes(ctx: CommandContext, invoiceId: string): Promise<CreditNote[]> {
  const recorded = await ctx.store.readStream(invoiceStream(invoiceId));
  const first = recorded[0] as unknown as InvoiceEvent | undefined;
  if (!first || first.type !== 'InvoiceCreated') return [];
  const invoice = first.data;
  let customer = invoice.customer;
  // What was charged: the invoice as last priced before it was paid.
  let charged: CreditedInvoice = { number: invoice.number, lines: invoice.lines, total: invoice.total, pricing: invoice.pricing ?? null };
  let refunded = 0;
  const notes: CreditNote[] = [];
  for (const event of recorded) {
    const e = event as unknown as InvoiceEvent;
    if (e.type === 'InvoiceCustomerChanged') customer = e.data.customer;
    if (e.type === 'InvoiceRepriced') charged = { ...charged, lines: e.data.lines, total: e.data.total, pricing: e.data.pricing };
    if (e.type !== 'InvoiceRefunded') continue;
    const refundedBefore = refunded;
    refunded += e.data.amount;
    const note = {
      id: creditNoteId(invoiceId, event.revision),
      organization_id: invoice.organization_id,
      invoice_id: invoiceId,
      invoice_number: invoice.number,
      refund_id: e.data.refund_id,
      amount: e.data.amount,
      currency: e.data.currency,
      reason: reasonOf(e.data.reason),
      customer: customer ? { email: customer.email, name: customer.name } : null,
      mode: invoice.mode ?? null,
      ...splitRefund(charged, e.data.amount, refundedBefore),
    };
    const now = e.data.refunded_at;
    const result = await handleCommand(ctx, creditNotesStream(invoice.organization_id), creditNotesDecider, { type: 'IssueCreditNote', note, now });
    // Issued before: the same note, with the number it got then.
    notes.push(result.events[0]?.data ?? { ...note, number: result.state.issued[note.id]!, created: now });
  }
  return notes;
}
