import { randomBytes } from 'node:crypto';
import { handleCommand, type CommandContext } from '../../platform/es/handleCommand.ts';
import { invoiceDecider, invoiceStream } from '../../modules/checkout/domain/invoice.ts';
import { DEFAULT_DUNNING, subscriptionDecider, subscriptionStream, type DunningSettings, type PaymentMethod, type SubscriptionState } from '../../modules/subscriptions/domain/subscription.ts';
import { fold } from '../../platform/domain/decider.ts';
import type { TestServer } from '../helpers/testServer.ts';

export const DAY = 86_400;

/** Stripe's test PaymentMethod that pays at checkout and is declined on every later charge. */
export const FAILING_CARD: PaymentMethod = { id: 'pm_card_chargeCustomerFail', provider: 'test', card: { brand: 'visa', last4: '0341' }, exp_month: 12, exp_year: 2040 };

type Decline = { code: string; declineCode: string | null; message: string };
export const GENERIC_DECLINE: Decline = { code: 'card_declined', declineCode: 'generic_decline', message: 'Your card was declined.' };

/**
 * A subscription whose renewal just failed (or, with `pays`, was paid), as the billing process
 * leaves it: the decider's commands on the subscription's stream and the invoice's, on the
 * server's real store. The period ended an hour ago, so nothing is due until the first retry (a
 * day after the failure).
 */
export async function renewal(
  server: TestServer,
  organizationId: string,
  options: { email?: string | null; decline?: Decline; settings?: DunningSettings; mode?: 'test' | 'live'; pays?: boolean } = {},
): Promise<{ id: string; invoiceId: string; periodStart: number; periodEnd: number; failedAt: number; state: SubscriptionState }> {
  const id = `sub_${randomBytes(9).toString('base64url')}`;
  const invoiceId = `in_${randomBytes(12).toString('base64url')}`;
  const now = Math.floor(server.services.clock() / 1000);
  const failedAt = now - 3600;
  // A month before, so the failed renewal is for the month that starts now.
  const monthBefore = new Date(failedAt * 1000);
  monthBefore.setUTCMonth(monthBefore.getUTCMonth() - 1);
  const start = monthBefore.getTime() / 1000;
  const ctx: CommandContext = {
    store: server.services.store,
    metadata: { correlation_id: 'test', actor: { type: 'system', name: 'subscription-billing' }, organization_id: organizationId, occurred_at: failedAt },
  };
  const email = options.email === undefined ? 'ada@example.com' : options.email;
  const customer = { email, name: 'Ada Buyer', user_id: null };
  const mode = options.mode ?? 'test';
  const lines = [{ name: 'Pro monthly', amount: 1000 }];
  const run = (command: Parameters<typeof subscriptionDecider.decide>[0]) => handleCommand(ctx, subscriptionStream(id), subscriptionDecider, command);
  await run({
    type: 'CreateSubscription',
    subscription: {
      id,
      organization_id: organizationId,
      mode,
      customer,
      offer: { uuid: 'offer-uuid', id: 'offer_1', slug: 'pro', name: 'Pro' },
      plan: { product_id: 'prod_1', plan_id: 'plan_1', plan_name: 'Monthly', renew_interval: 'P1M', invoice_interval: 'P1M' },
      currency: 'EUR',
      lines,
      amount: 1000,
      session_id: 'cs_1',
      payment_method: FAILING_CARD,
      billing_cycle_anchor: start,
      current_period_start: start,
      current_period_end: failedAt,
      trial_start: null,
      trial_end: null,
      first_invoice: { id: `in_first_${id}`, number: 1, amount: 1000, paid: true },
      test_clock: null,
    },
    now: start,
  });
  const created = await run({ type: 'CreateRenewalInvoice', invoiceId, number: 2, now: failedAt });
  const open = created.state.status === 'none' ? null : created.state.open_invoice!;
  await handleCommand(ctx, invoiceStream(invoiceId), invoiceDecider, {
    type: 'CreateInvoice',
    invoice: {
      id: invoiceId,
      number: 2,
      organization_id: organizationId,
      session_id: null,
      lines: lines.map((l) => ({ ...l, period: { start: open!.period_start, end: open!.period_end } })),
      currency: 'EUR',
      customer,
      subscription_id: id,
      billing_reason: 'subscription_cycle',
      period: { start: open!.period_start, end: open!.period_end },
      amount_due: 1000,
      mode,
    },
    now: failedAt,
  });
  await run({ type: 'AttemptPayment', invoiceId, now: failedAt });
  if (options.pays) {
    await handleCommand(ctx, invoiceStream(invoiceId), invoiceDecider, {
      type: 'PayInvoice',
      attemptId: `${invoiceId}_a1`,
      card: { brand: 'visa', last4: '4242' },
      customer: null,
      chargeId: `ch_test_${invoiceId}`,
      provider: 'test',
      now: failedAt,
    });
    const paid = await run({ type: 'RecordPaymentSucceeded', invoiceId, attempt: 1, chargeId: `ch_test_${invoiceId}`, card: { brand: 'visa', last4: '4242' }, now: failedAt });
    return { id, invoiceId, periodStart: open!.period_start, periodEnd: open!.period_end, failedAt, state: paid.state };
  }
  const decline = options.decline ?? GENERIC_DECLINE;
  const failed = await run({
    type: 'RecordPaymentFailed',
    invoiceId,
    attempt: 1,
    code: decline.code,
    declineCode: decline.declineCode,
    message: decline.message,
    settings: options.settings ?? DEFAULT_DUNNING,
    now: failedAt,
  });
  const next = failed.events.find((e) => e.type === 'SubscriptionPaymentFailed')?.data as { next_payment_attempt: number | null } | undefined;
  await handleCommand(ctx, invoiceStream(invoiceId), invoiceDecider, {
    type: 'RecordPaymentFailure',
    attemptId: `${invoiceId}_a1`,
    attempt: 1,
    code: decline.code,
    declineCode: decline.declineCode,
    message: decline.message,
    nextPaymentAttempt: next?.next_payment_attempt ?? null,
    now: failedAt,
  });
  if (failed.state.status === 'canceled' || failed.state.status === 'unpaid') {
    await handleCommand(ctx, invoiceStream(invoiceId), invoiceDecider, { type: 'MarkUncollectible', reason: 'dunning_exhausted', now: failedAt });
  }
  const state = fold(subscriptionDecider, (await server.services.store.readStream(subscriptionStream(id))) as never);
  return { id, invoiceId, periodStart: open!.period_start, periodEnd: open!.period_end, failedAt, state };
}
