import type { CardSummary, SessionLine } from '../../checkout/domain/checkoutSession.ts';
import { type Decider, type DomainEvent, type PricingRecord, notFound } from '../../../platform/domain/index.ts';

/** What a receipt shows, copied from the paid invoice when it is queued: the receipt never changes after. */
export type ReceiptSnapshot = {
  invoice_id: string;
  invoice_number: number;
  organization_id: string;
  organization_name: string;
  /** The seller's postal address as printed lines (absent on receipts queued before addresses were). */
  organization_address?: string[];
  /** The seller's VAT number and logo when the receipt was queued (absent on older receipts). */
  organization_vat_number?: string | null;
  organization_logo?: { sha256: string; content_type: 'image/png' | 'image/jpeg' } | null;
  /** The seller's brand colour when the receipt was queued: its email's accent line. */
  organization_brand_color?: string | null;
  lines: SessionLine[];
  total: number;
  currency: string;
  /** The invoice's discount, tax and the buyer's tax details as charged (absent: neither applied). */
  pricing?: PricingRecord;
  buyer_email: string;
  buyer_name: string | null;
  card: CardSummary;
  paid_at: number;
  /** A subscription's invoice: the period it pays (absent on one-time purchases and older receipts). */
  period?: { start: number; end: number };
  /** The subscription the invoice belongs to: the receipt page offers to cancel it. */
  subscription_id?: string;
};

export type ReceiptEvent =
  | DomainEvent<'ReceiptQueued', { receipt: ReceiptSnapshot; token: string; queued_at: number }>
  | DomainEvent<'ReceiptSendFailed', { attempt: number; error: string; failed_at: number; next_attempt_at: number }>
  | DomainEvent<'ReceiptSent', { attempt: number; message_id: string; sent_at: number }>;

export type ReceiptCommand =
  | { type: 'QueueReceipt'; receipt: ReceiptSnapshot; token: string; now: number }
  | { type: 'RecordSendFailure'; error: string; retryInSeconds: number; now: number }
  | { type: 'RecordSent'; messageId: string; now: number };

export type ReceiptState =
  | { status: 'none' }
  | { status: 'queued' | 'sent'; receipt: ReceiptSnapshot; token: string; attempts: number };

/** One stream per invoice: the receipt of an invoice is queued once and sent once. */
export const receiptStream = (invoiceId: string) => `receipt-${invoiceId}`;

/** Retry delays double from `baseSeconds`, up to an hour. */
export function retryDelaySeconds(failedAttempts: number, baseSeconds: number): number {
  return Math.min(3600, baseSeconds * 2 ** Math.max(0, failedAttempts - 1));
}

export const receiptDecider: Decider<ReceiptState, ReceiptCommand, ReceiptEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'ReceiptQueued':
        return { status: 'queued', receipt: event.data.receipt, token: event.data.token, attempts: 0 };
      case 'ReceiptSendFailed':
        return state.status === 'none' ? state : { ...state, attempts: event.data.attempt };
      case 'ReceiptSent':
        return state.status === 'none' ? state : { ...state, status: 'sent', attempts: event.data.attempt };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'QueueReceipt':
        // A redelivered InvoicePaid queues nothing more: the first token stays the receipt's.
        if (state.status !== 'none') return [];
        return { type: 'ReceiptQueued', data: { receipt: command.receipt, token: command.token, queued_at: command.now } };
      case 'RecordSendFailure':
        if (state.status === 'none') throw notFound('Receipt');
        if (state.status === 'sent') return [];
        return {
          type: 'ReceiptSendFailed',
          data: { attempt: state.attempts + 1, error: command.error, failed_at: command.now, next_attempt_at: command.now + command.retryInSeconds },
        };
      case 'RecordSent':
        if (state.status === 'none') throw notFound('Receipt');
        if (state.status === 'sent') return [];
        return { type: 'ReceiptSent', data: { attempt: state.attempts + 1, message_id: command.messageId, sent_at: command.now } };
    }
  },
};
