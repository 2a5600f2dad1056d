import type { RecordedEvent } from '../../../platform/eventStore/index.ts';
import { type Logger, followFromCheckpoint } from '../../../platform/es/index.ts';
import { fold } from '../../../platform/domain/index.ts';
import type { BackgroundJob, Services } from '../../../platform/runtime/index.ts';
import { addressLines, loadOrganization } from '../../identity/index.ts';
import { enqueueBuyerEmail, NOTICE_LINK_SLOT, queueNotice } from '../../receipts/index.ts';
import { paymentFailedEmail, upcomingChargeEmail, type FailureOutcome } from '../domain/dunningEmail.ts';
import { subscriptionDecider, type SubscriptionEvent } from '../domain/subscription.ts';

export const DUNNING_EMAILS_CHECKPOINT = 'job:dunning-emails';

type Failed = Extract<SubscriptionEvent, { type: 'SubscriptionPaymentFailed' }>['data'];

/**
 * Queues the email to the buyer of a subscription whose payment failed, once per failure (the
 * notice is keyed by subscription, invoice and attempt). Read from the subscription's stream, as
 * it stood just before the failure, and the event right after it: the final action (canceled or
 * unpaid) is appended with the failure. Returns the notice's key, or null when nobody is emailed.
 */
export async function queuePaymentFailedEmail(services: Services, failedEvent: RecordedEvent, logger?: Logger): Promise<string | null> {
  if (failedEvent.type !== 'SubscriptionPaymentFailed') return null;
  const events = (await services.store.readStream(failedEvent.stream)) as unknown as (SubscriptionEvent & { id: string })[];
  const index = events.findIndex((e) => e.id === failedEvent.id);
  if (index < 0) return null;
  const before = fold(subscriptionDecider, events.slice(0, index));
  const failure = failedEvent.data as Failed;
  // An incomplete subscription's first payment is the buyer's at checkout, who sees the decline there.
  if (before.status === 'none' || before.status === 'incomplete' || failure.status === 'incomplete') return null;
  const email = before.sub.customer.email;
  if (!email) {
    logger?.info({ subscription: before.sub.id }, 'subscription payment failed; the buyer has no email');
    return null;
  }
  const after = events[index + 1];
  const outcome: FailureOutcome =
    after?.type === 'SubscriptionCanceled' && after.data.reason === 'payment_failed' ? 'canceled' : after?.type === 'SubscriptionMarkedUnpaid' ? 'unpaid' : 'retry';
  const invoice = before.open_invoice;
  const organization = await loadOrganization(services.store, before.sub.organization_id);
  const message = paymentFailedEmail({
    organizationName: organization?.name ?? '',
    organizationAddress: organization ? addressLines(organization.address) : [],
    customerName: before.sub.customer.name,
    offerName: before.sub.offer.name,
    planName: before.plan.plan_name,
    amount: invoice?.amount_due ?? before.amount,
    currency: before.sub.currency,
    period: invoice ? { start: invoice.period_start, end: invoice.period_end } : null,
    card: before.payment_method?.card ?? null,
    failure,
    outcome: outcome === 'retry' && failure.next_payment_attempt === null ? 'canceled' : outcome,
    linkSlot: NOTICE_LINK_SLOT,
  });
  const key = `payment_failed-${before.sub.id}-${failure.invoice_id}-${failure.attempt}`;
  await queueNotice(services, key, {
    kind: 'payment_failed',
    organization_id: before.sub.organization_id,
    user_id: before.sub.customer.user_id,
    to: email,
    subject: message.subject,
    text: message.text,
    about: before.sub.id,
    ...(message.withLink ? { link: { kind: 'billing' as const, subscription_id: before.sub.id, invoice_id: failure.invoice_id } } : {}),
  });
  return key;
}

/**
 * Tells the buyer before a trial ends (SubscriptionTrialWillEnd) or a renewal charges them
 * (SubscriptionRenewalUpcoming), once per subscription and date: the cause names the email.
 */
export async function queueUpcomingChargeEmail(services: Services, event: RecordedEvent): Promise<string | null> {
  if (event.type !== 'SubscriptionTrialWillEnd' && event.type !== 'SubscriptionRenewalUpcoming') return null;
  const events = (await services.store.readStream(event.stream)) as unknown as (SubscriptionEvent & { id: string })[];
  const index = events.findIndex((e) => e.id === event.id);
  if (index < 0) return null;
  const state = fold(subscriptionDecider, events.slice(0, index + 1));
  if (state.status === 'none' || !state.sub.customer.email) return null;
  const trial = event.type === 'SubscriptionTrialWillEnd';
  const at = trial ? (event.data as { trial_end: number }).trial_end : (event.data as { renews_at: number }).renews_at;
  // Events from before pricing carry no amount on a trial's notice: the plan's then.
  const amount = (event.data as { amount?: number }).amount ?? state.amount;
  const organization = await loadOrganization(services.store, state.sub.organization_id);
  const kind = trial ? ('trial_ending' as const) : ('renewal_upcoming' as const);
  const message = upcomingChargeEmail({
    kind,
    organizationName: organization?.name ?? '',
    customerName: state.sub.customer.name,
    offerName: state.sub.offer.name,
    planName: state.plan.plan_name,
    amount,
    currency: state.sub.currency,
    at,
    card: state.payment_method?.card ?? null,
  });
  const { key } = await enqueueBuyerEmail(services, {
    kind,
    cause: `${state.sub.id}-${at}`,
    organization_id: state.sub.organization_id,
    to: state.sub.customer.email,
    subject: message.subject,
    text: message.text,
    about: state.sub.id,
  });
  return key;
}

/**
 * Emails the buyer on each failed payment of a subscription, through the receipts module's
 * outbox (queued here, sent by its sender with the link to the hosted card page made then).
 */
export const dunningEmailsJob: BackgroundJob = {
  name: 'dunning-emails',
  start(services: Services, logger: Logger) {
    return followFromCheckpoint(services, logger, {
      checkpoint: DUNNING_EMAILS_CHECKPOINT,
      streamPrefixes: ['subscription-'],
      batchSize: 200,
      handle: async (events: RecordedEvent[]) => {
        for (const event of events) {
          if (event.type === 'SubscriptionPaymentFailed') await queuePaymentFailedEmail(services, event, logger);
          else await queueUpcomingChargeEmail(services, event);
        }
      },
      remedy: `delete the checkpoint ${DUNNING_EMAILS_CHECKPOINT} to look at every failed payment, trial end and upcoming renewal again (each is emailed once)`,
      failure: 'dunning emails failed; retrying from its checkpoint',
    });
  },
};
