import { formatDay, formatMoney, formatPeriod } from '../../receipts/domain/receiptMessage.ts';
import type { Card } from './subscription.ts';

/** What became of the subscription with this failure. */
export type FailureOutcome = 'retry' | 'canceled' | 'unpaid';

export type PaymentFailedEmailInput = {
  organizationName: string;
  organizationAddress: string[];
  customerName: string | null;
  offerName: string;
  planName: string;
  amount: number;
  currency: string;
  period: { start: number; end: number } | null;
  card: Card | null;
  failure: { code: string; decline_code: string | null; message: string; hard: boolean; next_payment_attempt: number | null };
  outcome: FailureOutcome;
  /** Stands where the link to the hosted card page goes (the sender makes the link). */
  linkSlot: string;
};

/** Declines that say to the card holder what the bank suspects: they read as a plain refusal (Stripe's advice). */
const CONFIDENTIAL = new Set(['stolen_card', 'lost_card', 'pickup_card', 'fraudulent', 'merchant_blacklist', 'restricted_card', 'security_violation']);

const PLAIN: Record<string, string> = {
  insufficient_funds: 'The card has insufficient funds.',
  expired_card: 'The card has expired.',
  incorrect_number: 'The card number is incorrect.',
  invalid_number: 'The card number is incorrect.',
  incorrect_cvc: "The card's security code is incorrect.",
  invalid_account: 'The card, or the account it belongs to, is no longer valid.',
  card_not_supported: 'The card does not support this kind of payment.',
  currency_not_supported: 'The card cannot be charged in this currency.',
  card_velocity_exceeded: 'The card has reached its spending limit.',
  do_not_honor: 'Your bank declined the payment.',
  generic_decline: 'Your bank declined the payment.',
  authentication_required: 'Your bank asks you to confirm the payment.',
  payment_method_missing: 'No card is saved for this subscription.',
  payment_method_unsupported: 'The saved card cannot be charged automatically.',
  test_mode_live_card: 'Test mode accepts only test cards.',
};

/** A decline as the card holder should read it: from its decline code, else its code, else the provider's message. */
export function declineInPlainWords(failure: { code: string; decline_code: string | null; message: string }): string {
  for (const code of [failure.decline_code, failure.code]) {
    if (code === null) continue;
    if (CONFIDENTIAL.has(code)) return 'Your bank declined the payment.';
    const plain = PLAIN[code];
    if (plain) return plain;
  }
  return failure.message || 'The payment was declined.';
}

/**
 * The email to a buyer whose subscription payment failed: what failed and why, what happens next
 * (the next retry, or none, and the subscription's end or unpaid state), and, while the
 * subscription goes on, the link to enter a new card.
 */
export function paymentFailedEmail(input: PaymentFailedEmailInput): { subject: string; text: string; withLink: boolean } {
  const product = input.planName && input.planName !== input.offerName ? `${input.offerName} (${input.planName})` : input.offerName;
  const seller = input.organizationName || 'the seller';
  const subject =
    input.outcome === 'canceled'
      ? `Your ${input.offerName} subscription has ended: the payment failed`
      : input.outcome === 'unpaid'
        ? `Your ${input.offerName} subscription is unpaid`
        : `Payment failed for your ${input.offerName} subscription`;
  const facts = [
    `  Amount: ${formatMoney(input.amount, input.currency)}`,
    ...(input.period ? [`  For: ${formatPeriod(input.period)}`] : []),
    ...(input.card ? [`  Card: ${input.card.brand} ending in ${input.card.last4}`] : []),
    `  Reason: ${declineInPlainWords(input.failure)}`,
  ];
  // The bank holds the payment for the card holder (Stripe's authentication_required): the page lets them confirm it.
  const confirm = input.failure.code === 'authentication_required' || input.failure.decline_code === 'authentication_required';
  const noMore = input.failure.hard ? 'This card cannot be charged again, so no further attempt will be made.' : 'That was the last attempt.';
  const next: string[] =
    input.outcome === 'retry'
      ? [
          `We will try the card again on ${formatDay(input.failure.next_payment_attempt!)}.`,
          '',
          confirm ? 'To confirm the payment with your bank now, open:' : 'To pay with another card now, enter it here:',
          input.linkSlot,
          '(The link works until the payment succeeds or the subscription ends. Keep it private.)',
        ]
      : input.outcome === 'unpaid'
        ? [
            noMore,
            'Your subscription is now unpaid: it is kept, but without access until a payment succeeds.',
            '',
            'To pay with another card, enter it here:',
            input.linkSlot,
            '(Keep the link private.)',
          ]
        : [noMore, 'Your subscription has therefore ended; nothing more will be charged.', `To subscribe again, contact ${seller} or buy it anew.`];
  const text = [
    `Hello${input.customerName ? ` ${input.customerName}` : ''},`,
    '',
    `We could not collect the payment for your subscription to ${product} from ${seller}.`,
    '',
    ...facts,
    '',
    ...next,
    '',
    seller,
    ...input.organizationAddress,
  ].join('\n');
  return { subject, text, withLink: input.outcome !== 'canceled' };
}

/** What the buyer is told before a trial ends or a renewal charges their card. */
export type UpcomingInput = {
  kind: 'trial_ending' | 'renewal_upcoming';
  organizationName: string;
  customerName: string | null;
  offerName: string;
  planName: string;
  /** What the next charge takes, and when. */
  amount: number;
  currency: string;
  at: number;
  card: Card | null;
};

/** The trial-ending or renewal-upcoming email: when, how much, on which card, and how to stop it. */
export function upcomingChargeEmail(input: UpcomingInput): { subject: string; text: string } {
  const seller = input.organizationName || 'the seller';
  const product = input.planName && input.planName !== input.offerName ? `${input.offerName} (${input.planName})` : input.offerName;
  const amount = formatMoney(input.amount, input.currency);
  const day = formatDay(input.at);
  const card = input.card ? ` to your ${input.card.brand} card ending in ${input.card.last4}` : '';
  const trial = input.kind === 'trial_ending';
  return {
    subject: trial ? `Your trial of ${input.offerName} ends on ${day}` : `Your subscription to ${input.offerName} renews on ${day}`,
    text: [
      `Hello${input.customerName ? ` ${input.customerName}` : ''},`,
      '',
      trial
        ? `Your free trial of ${product} from ${seller} ends on ${day}. From then on, ${amount} will be charged${card} each period.`
        : `Your subscription to ${product} from ${seller} renews on ${day}: ${amount} will be charged${card}.`,
      '',
      'Nothing to do if you want to keep it. To cancel before then, use the link in your receipt email.',
    ].join('\n'),
  };
}
