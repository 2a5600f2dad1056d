import { type Decider, type DomainEvent, notFound } from '../../../platform/domain/index.ts';
import { formatDate } from './receiptMessage.ts';

/**
 * An email to a person of the organization (not a buyer), kept in the same outbox as receipts:
 * queued once, sent once, retried, and shown by `commerce outbox` when no SMTP server is set.
 */
export type Notice = {
  /**
   * `payment_failed`: to a subscription's buyer, whose renewal payment failed; the other buyer
   * kinds come through enqueueBuyerEmail. Buyer emails (user_id null) are sent in the seller's frame.
   */
  kind: 'webhook_endpoint_disabled' | BuyerEmailKind;
  organization_id: string;
  /** The user told (null: a buyer, known by address only), and their address when the notice was queued. */
  user_id: string | null;
  to: string;
  subject: string;
  text: string;
  /** What it is about (the endpoint's id, the subscription's). */
  about: string;
  /**
   * A secret link the sender makes when it sends (its token never enters the log) and puts in
   * place of NOTICE_LINK_SLOT in the text: the hosted card page of a subscription.
   */
  link?: { kind: 'billing'; subscription_id: string; invoice_id: string };
  /** The HTML part (absent: made from the text). */
  html?: string;
  /** Text and HTML are sealed (a sign-in link): the log holds them unreadable. */
  sealed?: true;
};

/** Every email the outbox sends a buyer (receipts have a stream of their own). */
export type BuyerEmailKind = 'payment_failed' | 'refund' | 'trial_ending' | 'renewal_upcoming' | 'portal_sign_in';

/** Where a notice's secret link goes in its text; what `commerce outbox show` prints in its place. */
export const NOTICE_LINK_SLOT = '[a private link, made when the email is sent]';

export type NoticeEvent =
  | DomainEvent<'NoticeQueued', { notice: Notice; queued_at: number }>
  | DomainEvent<'NoticeSendFailed', { attempt: number; error: string; failed_at: number; next_attempt_at: number }>
  | DomainEvent<'NoticeSent', { attempt: number; message_id: string; sent_at: number }>;

export type NoticeCommand =
  | { type: 'QueueNotice'; notice: Notice; now: number }
  | { type: 'RecordNoticeFailure'; error: string; retryInSeconds: number; now: number }
  | { type: 'RecordNoticeSent'; messageId: string; now: number };

export type NoticeState = { status: 'none' } | { status: 'queued' | 'sent'; notice: Notice; attempts: number };

/** Named after what caused it and whom it tells, so a cause handled twice queues it once. */
export const noticeStream = (key: string) => `notice-${key}`;

export const noticeDecider: Decider<NoticeState, NoticeCommand, NoticeEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'NoticeQueued':
        return { status: 'queued', notice: event.data.notice, attempts: 0 };
      case 'NoticeSendFailed':
        return state.status === 'none' ? state : { ...state, attempts: event.data.attempt };
      case 'NoticeSent':
        return state.status === 'none' ? state : { ...state, status: 'sent', attempts: event.data.attempt };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'QueueNotice':
        if (state.status !== 'none') return [];
        return { type: 'NoticeQueued', data: { notice: command.notice, queued_at: command.now } };
      case 'RecordNoticeFailure':
        if (state.status === 'none') throw notFound('Notice');
        if (state.status === 'sent') return [];
        return {
          type: 'NoticeSendFailed',
          data: { attempt: state.attempts + 1, error: command.error, failed_at: command.now, next_attempt_at: command.now + command.retryInSeconds },
        };
      case 'RecordNoticeSent':
        if (state.status === 'none') throw notFound('Notice');
        if (state.status === 'sent') return [];
        return { type: 'NoticeSent', data: { attempt: state.attempts + 1, message_id: command.messageId, sent_at: command.now } };
    }
  },
};

/** The email that tells an owner their event-webhook endpoint was disabled after five days of failures. */
export function endpointDisabledText(input: { organizationName: string; endpointId: string; url: string; failingSince: number | null; disabledAt: number }): {
  subject: string;
  text: string;
} {
  const since = input.failingSince === null ? '' : ` since ${formatDate(input.failingSince)}`;
  return {
    subject: `Webhook endpoint disabled: ${input.url.slice(0, 120)}`,
    text: [
      `Every delivery to the event-webhook endpoint ${input.endpointId} of ${input.organizationName || 'your organization'} has failed${since}, so it was disabled on ${formatDate(input.disabledAt)}.`,
      '',
      `URL: ${input.url}`,
      '',
      'No further events are sent to it. Fix the receiver, then enable the endpoint again',
      `(commerce webhook-endpoint update ${input.endpointId} --enable, or PATCH /manage/api/webhook-endpoints/${input.endpointId});`,
      'deliveries abandoned meanwhile can be resent one by one.',
    ].join('\n'),
  };
}
