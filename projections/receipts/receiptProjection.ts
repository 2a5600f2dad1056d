import type { Notice, NoticeEvent } from '../../domain/receipts/notice.ts';
import type { ReceiptEvent, ReceiptSnapshot } from '../../domain/receipts/receipt.ts';
import type { Projection } from '../projection.ts';

export const RECEIPTS = 'receipts';
export const NOTICES = 'outbox_notices';

/** A notice to a person of the organization (see notice.ts), beside the receipts in the outbox. */
export type NoticeDoc = {
  /** The notice stream's key. */
  id: string;
  organization_id: string;
  status: 'queued' | 'sent';
  attempts: number;
  last_error: string | null;
  next_attempt_at: number;
  queued_at: number;
  sent_at: number | null;
  message_id: string | null;
  notice: Notice;
};

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

type Event = (ReceiptEvent | NoticeEvent) & { stream: string };

/** Receipts queued for the buyers of paid invoices, and whether each went out. */
export const receiptProjection: Projection = {
  name: 'receipts',
  collections: [RECEIPTS, NOTICES],
  indexes: [
    { collection: NOTICES, fields: ['status', 'next_attempt_at'] },
    { collection: NOTICES, fields: ['queued_at'] },
    { collection: RECEIPTS, fields: ['token'] },
    { collection: RECEIPTS, fields: ['status', 'next_attempt_at'] },
    { collection: RECEIPTS, fields: ['queued_at'] },
  ],
  eventTypes: ['ReceiptQueued', 'ReceiptSendFailed', 'ReceiptSent', 'NoticeQueued', 'NoticeSendFailed', 'NoticeSent'],
  async apply(recorded, tx) {
    const event = recorded as unknown as Event;
    if (event.type === 'NoticeQueued' || event.type === 'NoticeSendFailed' || event.type === 'NoticeSent') {
      const key = event.stream.slice('notice-'.length);
      if (event.type === 'NoticeQueued') {
        const { notice, queued_at } = event.data;
        tx.upsert(NOTICES, {
          id: key,
          organization_id: notice.organization_id,
          status: 'queued',
          attempts: 0,
          last_error: null,
          next_attempt_at: queued_at,
          queued_at,
          sent_at: null,
          message_id: null,
          notice,
        } satisfies NoticeDoc);
        return;
      }
      const doc = await tx.get<NoticeDoc>(NOTICES, key);
      if (!doc) return;
      if (event.type === 'NoticeSendFailed') {
        tx.upsert(NOTICES, { ...doc, attempts: event.data.attempt, last_error: event.data.error, next_attempt_at: event.data.next_attempt_at });
      } else {
        tx.upsert(NOTICES, { ...doc, status: 'sent', attempts: event.data.attempt, sent_at: event.data.sent_at, message_id: event.data.message_id });
      }
      return;
    }
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
