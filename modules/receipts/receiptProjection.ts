import type { Notice, NoticeEvent } from './domain/notice.ts';
import type { ReceiptEvent, ReceiptSnapshot } from './domain/receipt.ts';
import type { Projection } from '../../platform/es/index.ts';

export const RECEIPTS = 'receipts';
export const NOTICES = 'outbox_notices';

/** Where a message of the outbox stands: the sender's part of a receipt or a notice. */
type OutboxState = {
  status: 'queued' | 'sent';
  /** Send attempts so far (failed ones, and the one that succeeded). */
  attempts: number;
  last_error: string | null;
  /** Unix seconds: when the sender may try next (the queue time until a send fails). */
  next_attempt_at: number;
  queued_at: number;
  sent_at: number | null;
  message_id: string | null;
};

/** A notice to a person of the organization (see notice.ts), beside the receipts in the outbox. */
export type NoticeDoc = OutboxState & {
  /** The notice stream's key. */
  id: string;
  organization_id: string;
  notice: Notice;
};

/** The outbox as people and the sender read it: one document per invoice receipt. */
export type ReceiptDoc = OutboxState & {
  id: string;
  token: string;
  organization_id: string;
  receipt: ReceiptSnapshot;
};

const queued = (queued_at: number): OutboxState => ({
  status: 'queued',
  attempts: 0,
  last_error: null,
  next_attempt_at: queued_at,
  queued_at,
  sent_at: null,
  message_id: null,
});

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
    const id = event.stream.slice(event.stream.indexOf('-') + 1); // notice-<key>, receipt-<invoice>
    switch (event.type) {
      case 'NoticeQueued':
        tx.upsert(NOTICES, { id, organization_id: event.data.notice.organization_id, ...queued(event.data.queued_at), notice: event.data.notice } satisfies NoticeDoc);
        return;
      case 'ReceiptQueued': {
        const { receipt, token, queued_at } = event.data;
        tx.upsert(RECEIPTS, { id, token, organization_id: receipt.organization_id, ...queued(queued_at), receipt } satisfies ReceiptDoc);
        return;
      }
    }
    const collection = event.type.startsWith('Notice') ? NOTICES : RECEIPTS;
    const doc = await tx.get<NoticeDoc | ReceiptDoc>(collection, id);
    if (!doc) return;
    if (event.type === 'NoticeSendFailed' || event.type === 'ReceiptSendFailed') {
      tx.upsert(collection, { ...doc, attempts: event.data.attempt, last_error: event.data.error, next_attempt_at: event.data.next_attempt_at });
    } else {
      tx.upsert(collection, { ...doc, status: 'sent', attempts: event.data.attempt, sent_at: event.data.sent_at, message_id: event.data.message_id });
    }
  },
};
