import type { RecordedEvent } from '../../../platform/eventStore/index.ts';
import { fold } from '../../../platform/domain/index.ts';
import { outboxBox } from '../outboxSeal.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { invoiceDecider, type InvoiceEvent } from '../../checkout/index.ts';
import { formatCreditNoteNumber, issueCreditNotes } from '../../creditNotes/index.ts';
import { reactionContext } from '../../../platform/es/index.ts';
import type { BuyerEmailKind, Notice } from '../domain/notice.ts';
import { formatMoney } from '../domain/receiptMessage.ts';
import { receiptDecider, receiptStream, type ReceiptEvent } from '../domain/receipt.ts';
import { textToHtml } from '../domain/seller.ts';
import { queueNotice } from './noticeOutbox.ts';


export type BuyerEmail = {
  kind: BuyerEmailKind;
  /**
   * What caused it, unique for the kind (`inv_…-re_…`, a sign-in request's id): the email is
   * queued once per cause and its Message-ID derives from it, so a re-run never sends it twice.
   */
  cause: string;
  organization_id: string;
  to: string;
  subject: string;
  text: string;
  /** The HTML body (absent: the text as paragraphs); the seller's logo, name and address frame both. */
  html?: string;
  /** What it is about (a subscription, an invoice, a customer). */
  about: string;
  /** Sealed in the log (it holds a secret link): only the sender opens it. */
  confidential?: boolean;
};

const CAUSE = /^[A-Za-z0-9_.:-]{1,200}$/;

/**
 * Queues an email to a buyer in the one outbox (sent through the organization's SMTP server, or
 * the operator's, with a text and an HTML part in the seller's frame). Returns the outbox key,
 * and whether it was queued now (false: that cause was queued before).
 */
export async function enqueueBuyerEmail(services: Services, email: BuyerEmail): Promise<{ key: string; queued: boolean }> {
  if (!CAUSE.test(email.cause)) throw new Error(`enqueueBuyerEmail: the cause must match ${CAUSE}`);
  const key = `${email.kind}-${email.cause}`;
  const html = email.html ?? textToHtml(email.text);
  const box = email.confidential ? outboxBox(services) : null;
  const notice: Notice = {
    kind: email.kind,
    organization_id: email.organization_id,
    user_id: null,
    to: email.to,
    subject: email.subject,
    text: box ? box.seal(email.text) : email.text,
    html: box ? box.seal(html) : html,
    about: email.about,
    ...(box ? { sealed: true as const } : {}),
  };
  return { key, queued: await queueNotice(services, key, notice) };
}

type Refunded = Extract<InvoiceEvent, { type: 'InvoiceRefunded' }>['data'];

/** The receipt page of an invoice, when its receipt was queued (its token is in the log, as the receipt email's link). */
async function receiptTokenOf(services: Services, invoiceId: string): Promise<string | null> {
  const state = fold(receiptDecider, (await services.store.readStream(receiptStream(invoiceId))) as unknown as ReceiptEvent[]);
  return state.status === 'none' ? null : state.token;
}

/**
 * The refund email of an InvoiceRefunded: the amount returned, whether in full, the refund's credit
 * note number, and the receipt page (which shows the refund). One per refund.
 */
export async function queueRefundEmail(services: Services, refunded: RecordedEvent, receiptUrl: (token: string) => string): Promise<string | null> {
  if (refunded.type !== 'InvoiceRefunded') return null;
  const invoiceId = refunded.stream.slice('invoice-'.length);
  const invoice = fold(invoiceDecider, (await services.store.readStream(refunded.stream)) as unknown as InvoiceEvent[]);
  if (invoice.status === 'none') return null;
  const to = invoice.invoice.customer?.email;
  if (!to) return null;
  const data = refunded.data as Refunded;
  const amount = formatMoney(data.amount, data.currency);
  const token = await receiptTokenOf(services, invoiceId);
  // Issuing is idempotent: the note the refund route or the credit-note subscriber made, or made here first.
  const notes = await issueCreditNotes(reactionContext(services.store, services.clock(), refunded, 'receipt-outbox'), invoiceId);
  const note = notes.find((n) => n.refund_id === data.refund_id);
  const name = invoice.invoice.customer?.name;
  const text = [
    `Hello${name ? ` ${name}` : ''},`,
    '',
    `${amount} of your payment for invoice #${invoice.invoice.number} has been refunded${data.fully_refunded ? ' (the whole amount)' : ''}, to the card you paid with.`,
    ...(data.fully_refunded ? [] : [`Refunded so far: ${formatMoney(data.amount_refunded, data.currency)} of ${formatMoney(invoice.invoice.total, data.currency)}.`]),
    ...(note ? [`Credit note: ${formatCreditNoteNumber(note.number)}`] : []),
    '',
    'Your bank may take 5 to 10 days to show it.',
    ...(token ? ['', `Your receipt: ${receiptUrl(token)}`] : []),
  ].join('\n');
  const { key } = await enqueueBuyerEmail(services, {
    kind: 'refund',
    cause: `${invoiceId}-${data.refund_id}`,
    organization_id: invoice.invoice.organization_id,
    to,
    subject: `Refund of ${amount}: invoice #${invoice.invoice.number}`,
    text,
    about: invoiceId,
  });
  return key;
}
