import type { ReceiptEvent, ReceiptSnapshot } from '../../domain/receipts/receipt.ts';
import type { Projection } from '../projection.ts';

export const RECEIPTS = 'receipts';

/** The outbox as people and the sender read it: one document per invoice receipt. */
export type ReceiptDoc = {
  id: string;
  token: string;
  organization_id: string;
  status: 'queued' | 'sent';
  /** Send attempts so far (failed ones, and the one that succeeded). */
  attempts: number;
  last_error: string | null;
  /** Unix seconds: when the sender may try next (the queue time until a send fails). */
  next_attempt_at: number;
  queued_at: number;
  sent_at: number | null;
  message_id: string | null;
  receipt: ReceiptSnapshot;
};

type Event = ReceiptEvent & { stream: string };

/** Receipts queued for the buyers of paid invoices, and whether each went out. */
export const receiptProjection: Projection = {
  name: 'receipts',
  collections: [RECEIPTS],
  indexes: [
    { collection: RECEIPTS, fields: ['token'] },
    { collection: RECEIPTS, fields: ['status', 'next_attempt_at'] },
    { collection: RECEIPTS, fields: ['queued_at'] },
  ],
  eventTypes: ['ReceiptQueued', 'ReceiptSendFailed', 'ReceiptSent'],
  async apply(recorded, tx) {
    const event = recorded as unknown as Event;
    const id = event.stream.slice('receipt-'.length);
    if (event.type === 'ReceiptQueued') {
      const { receipt, token, queued_at } = event.data;
      const doc: ReceiptDoc = {
        id,
        token,
        organization_id: receipt.organization_id,
        status: 'queued',
        attempts: 0,
        last_error: null,
        next_attempt_at: queued_at,
        queued_at,
        sent_at: null,
        message_id: null,
        receipt,
      };
      tx.upsert(RECEIPTS, doc);
      return;
    }
    const doc = await tx.get<ReceiptDoc>(RECEIPTS, id);
    if (!doc) return;
    if (event.type === 'ReceiptSendFailed') {
      tx.upsert(RECEIPTS, { ...doc, attempts: event.data.attempt, last_error: event.data.error, next_attempt_at: event.data.next_attempt_at });
    } else {
      tx.upsert(RECEIPTS, { ...doc, status: 'sent', attempts: event.data.attempt, sent_at: event.data.sent_at, message_id: event.data.message_id });
    }
  },
};
