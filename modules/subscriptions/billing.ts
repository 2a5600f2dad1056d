import { customAlphabet } from 'nanoid';
import { fold } from '../../platform/domain/index.ts';
import type { EventMetadata, RecordedEvent } from '../../platform/eventStore/index.ts';
import { allocateId, handleCommand, type CommandContext } from '../../platform/es/index.ts';
import { readModelsAtHead } from '../../platform/http/index.ts';
import type { Logger } from '../../platform/es/index.ts';
import type { Services } from '../../platform/runtime/index.ts';
import { SUBSCRIPTION_SCHEDULE, type ScheduleDoc } from './billingSchedule.ts';
import { checkoutSessionStream, invoiceDecider, invoiceStream, offerStream } from '../checkout/index.ts';
import { paymentProviderFor, type PaymentProvider } from '../payments/index.ts';
import { loadDunningSettings } from './dunningSettings.ts';
import { parseInterval, boundary } from './domain/interval.ts';
import {
  nextAction,
  subscriptionDecider,
  subscriptionStream,
  type Active,
  type DueAction,
  type Line,
  type PaymentMethod,
  type SubscriptionCommand,
  type SubscriptionState,
} from './domain/subscription.ts';
import { testClockDecider, testClockStream } from './domain/testClock.ts';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const secretId = customAlphabet(alphabet, 24);
const newInvoiceId = () => `in_${secretId()}`;

type ChargeOutcome =
  | { status: 'succeeded'; card: { brand: string; last4: string }; reference: string }
  | { status: 'declined'; code: string; declineCode: string | null; message: string };

/** A provider that can charge a saved card without the buyer (the test provider; Stripe's off-session PaymentIntents). */
type SavedCardCharger = {
  chargeSaved(request: { paymentMethod: PaymentMethod; amount: number; currency: string; idempotencyKey: string; description: string; now: number }): Promise<ChargeOutcome>;
};

function chargerFor(mode: 'test' | 'live'): SavedCardCharger | null {
  const provider = paymentProviderFor(mode) as (PaymentProvider & Partial<SavedCardCharger>) | null;
  return provider?.chargeSaved ? (provider as unknown as SavedCardCharger) : null;
}

function context(services: Services, organizationId: string, correlation: string, now: number): CommandContext {
  const metadata: EventMetadata = {
    correlation_id: correlation,
    actor: { type: 'system', name: 'subscription-billing' },
    organization_id: organizationId,
    occurred_at: now,
  };
  return { store: services.store, metadata };
}

type SessionCreated = {
  id: string;
  organization_id: string;
  offer: { uuid: string; id: string; slug: string; name: string };
  plan: { product_id: string; plan_id: string; plan_name: string };
  currency: string;
  mode: 'test' | 'live';
  customer: { email: string | null; name: string | null; user_id: string | null } | null;
  total: number;
  created_at: number;
  recurring?: { renew_interval: string | null; invoice_interval: string; trial_period_days: number | null };
  test_clock?: string;
};
type SessionCompleted = { invoice_id: string; completed_at: number; subscription_id?: string; payment_method?: PaymentMethod };

/** The plan's price lines as the offer stood when the session was made: what each period costs. */
async function priceLines(services: Services, offerUuid: string, at: number): Promise<Line[]> {
  let lines: Line[] = [];
  for (const e of await services.store.readStream(offerStream(offerUuid))) {
    if (e.type !== 'OfferCreated' && e.type !== 'OfferUpdated') continue;
    const d = e.data as { plan: { charges: { name: string; amount: number }[] }; created_at?: number; updated_at?: number };
    if ((d.updated_at ?? d.created_at ?? 0) > at && lines.length > 0) break;
    lines = d.plan.charges.map((c) => ({ name: c.name, amount: c.amount }));
  }
  return lines;
}

async function clockTime(services: Services, clockId: string): Promise<number | null> {
  const clock = fold(testClockDecider, (await services.store.readStream(testClockStream(clockId))) as never);
  return clock.status === 'none' || clock.status === 'deleted' ? null : clock.frozen_time;
}

/**
 * Makes the subscription a completed checkout of a recurring plan bought: at the completion (or,
 * on a test clock, at the clock's time), anchored there or at the trial's end. A no-op for a
 * one-time plan's session, or when the subscription exists.
 */
export async function createSubscriptionFromSession(services: Services, sessionId: string, cause: RecordedEvent): Promise<{ created: boolean }> {
  const events = await services.store.readStream(checkoutSessionStream(sessionId));
  const created = events.find((e) => e.type === 'CheckoutSessionCreated')?.data as SessionCreated | undefined;
  const completed = events.find((e) => e.type === 'CheckoutSessionCompleted')?.data as SessionCompleted | undefined;
  if (!created?.recurring || !completed?.subscription_id) return { created: false };
  const existing = await services.store.readStream(subscriptionStream(completed.subscription_id));
  if (existing.length > 0) return { created: false };
  const invoice = fold(invoiceDecider, (await services.store.readStream(invoiceStream(completed.invoice_id))) as never);
  if (invoice.status === 'none') return { created: false };
  const clockNow = created.test_clock ? await clockTime(services, created.test_clock) : null;
  const now = clockNow ?? completed.completed_at;
  const plan = {
    product_id: created.plan.product_id,
    plan_id: created.plan.plan_id,
    plan_name: created.plan.plan_name,
    renew_interval: created.recurring.renew_interval,
    invoice_interval: created.recurring.invoice_interval,
  };
  const interval = parseInterval(plan.invoice_interval);
  if (!interval) return { created: false };
  const lines = await priceLines(services, created.offer.uuid, created.created_at);
  const trialDays = created.recurring.trial_period_days;
  const trialEnd = trialDays ? now + trialDays * 86_400 : null;
  const anchor = trialEnd ?? now;
  const ctx = context(services, created.organization_id, cause.metadata.correlation_id, now);
  const result = await handleCommand(ctx, subscriptionStream(completed.subscription_id), subscriptionDecider, {
    type: 'CreateSubscription',
    subscription: {
      id: completed.subscription_id,
      organization_id: created.organization_id,
      mode: created.mode,
      customer: invoice.invoice.customer ?? created.customer ?? { email: null, name: null, user_id: null },
      offer: created.offer,
      plan,
      currency: created.currency,
      lines,
      amount: lines.reduce((s, l) => s + l.amount, 0),
      session_id: created.id,
      payment_method: completed.payment_method ?? null,
      billing_cycle_anchor: anchor,
      current_period_start: now,
      current_period_end: trialEnd ?? boundary(anchor, interval, 1),
      trial_start: trialEnd ? now : null,
      trial_end: trialEnd,
      first_invoice: { id: completed.invoice_id, number: invoice.invoice.number, amount: invoice.invoice.total, paid: invoice.status === 'paid' },
      test_clock: created.test_clock ?? null,
    },
    now,
  });
  return { created: result.events.length > 0 };
}

/** Appends to the subscription stream; a decision of nothing (another process got there first) is fine. */
function decide(ctx: CommandContext, id: string, command: SubscriptionCommand) {
  return handleCommand(ctx, subscriptionStream(id), subscriptionDecider, command);
}

/** Makes the invoice stream of the subscription's open invoice if a crash left only its record on the subscription. */
async function ensureInvoice(ctx: CommandContext, state: Active): Promise<void> {
  const open = state.open_invoice;
  if (!open) return;
  const stream = invoiceStream(open.id);
  if ((await ctx.store.readStream(stream)).length > 0) return;
  const events = await ctx.store.readStream(subscriptionStream(state.sub.id));
  const made = events.find((e) => e.type === 'SubscriptionInvoiceCreated' && (e.data as { invoice_id: string }).invoice_id === open.id);
  if (!made) return;
  const d = made.data as { lines: Line[]; period_start: number; period_end: number; amount_due: number; billing_reason: 'subscription_cycle' | 'subscription_update'; created_at: number };
  await handleCommand(ctx, stream, invoiceDecider, {
    type: 'CreateInvoice',
    invoice: {
      id: open.id,
      number: open.number,
      organization_id: state.sub.organization_id,
      session_id: null,
      lines: d.lines,
      currency: state.sub.currency,
      customer: state.sub.customer,
      subscription_id: state.sub.id,
      billing_reason: d.billing_reason,
      period: { start: d.period_start, end: d.period_end },
      amount_due: d.amount_due,
      mode: state.sub.mode,
    },
    now: d.created_at,
  });
}

async function createInvoice(services: Services, ctx: CommandContext, state: Active, at: number): Promise<void> {
  const number = await allocateId(services.store, `invoice-${state.sub.organization_id}`, ctx.metadata);
  const result = await decide(ctx, state.sub.id, { type: 'CreateRenewalInvoice', invoiceId: newInvoiceId(), number, now: at });
  if (result.state.status !== 'none') await ensureInvoice(ctx, result.state);
}

async function charge(services: Services, ctx: CommandContext, state: Active, at: number): Promise<void> {
  await ensureInvoice(ctx, state);
  const open = state.open_invoice!;
  let attempt = open.pending_attempt;
  if (attempt === null) {
    const claimed = await decide(ctx, state.sub.id, { type: 'AttemptPayment', invoiceId: open.id, now: at });
    if (claimed.state.status === 'none' || claimed.state.open_invoice?.pending_attempt == null) return;
    attempt = claimed.state.open_invoice.pending_attempt;
  }
  const attemptId = `${open.id}_a${attempt}`;
  const pm = state.payment_method;
  const charger = chargerFor(state.sub.mode);
  const outcome: ChargeOutcome =
    open.amount_due === 0
      ? { status: 'succeeded', card: pm?.card ?? { brand: 'none', last4: '' }, reference: '' }
      : !pm
        ? { status: 'declined', code: 'payment_method_missing', declineCode: null, message: 'No card is saved for this subscription.' }
        : !charger
          ? { status: 'declined', code: 'payment_method_unsupported', declineCode: null, message: 'This mode cannot charge a saved card yet.' }
          : await charger.chargeSaved({
              paymentMethod: pm,
              amount: open.amount_due,
              currency: state.sub.currency,
              // One key per invoice and attempt: a run that crashed after charging charges the same attempt again, which the provider answers with the first charge.
              idempotencyKey: attemptId,
              description: `${state.sub.offer.name} (${state.sub.id})`,
              now: at * 1000,
            });
  if (outcome.status === 'succeeded') {
    await handleCommand(ctx, invoiceStream(open.id), invoiceDecider, {
      type: 'PayInvoice',
      attemptId,
      card: outcome.card,
      customer: null,
      chargeId: outcome.reference || null,
      provider: open.amount_due === 0 ? 'none' : state.sub.mode === 'test' ? 'test' : 'stripe',
      now: at,
    });
    await decide(ctx, state.sub.id, { type: 'RecordPaymentSucceeded', invoiceId: open.id, attempt, chargeId: outcome.reference || null, card: outcome.card, now: at });
    return;
  }
  const settings = await loadDunningSettings(services.store, state.sub.organization_id);
  const failed = await decide(ctx, state.sub.id, {
    type: 'RecordPaymentFailed',
    invoiceId: open.id,
    attempt,
    code: outcome.code,
    declineCode: outcome.declineCode,
    message: outcome.message,
    settings,
    now: at,
  });
  const recorded = failed.events.find((e) => e.type === 'SubscriptionPaymentFailed');
  await handleCommand(ctx, invoiceStream(open.id), invoiceDecider, {
    type: 'RecordPaymentFailure',
    attemptId,
    attempt,
    code: outcome.code,
    declineCode: outcome.declineCode,
    message: outcome.message,
    nextPaymentAttempt: recorded ? (recorded.data as { next_payment_attempt: number | null }).next_payment_attempt : null,
    now: at,
  });
  if (failed.state.status === 'canceled' || failed.state.status === 'unpaid') {
    await handleCommand(ctx, invoiceStream(open.id), invoiceDecider, { type: 'MarkUncollectible', reason: 'dunning_exhausted', now: at });
  }
}

async function run(services: Services, ctx: CommandContext, state: Active, action: DueAction): Promise<void> {
  const at = action.at;
  switch (action.type) {
    case 'invoice':
      return createInvoice(services, ctx, state, at);
    case 'charge':
      return charge(services, ctx, state, at);
    case 'cancel_at_period_end':
      await decide(ctx, state.sub.id, { type: 'CancelAtPeriodEnd', now: at });
      return;
    case 'grace_ended':
      await decide(ctx, state.sub.id, { type: 'EndGrace', now: at });
      return;
    case 'trial_will_end':
      await decide(ctx, state.sub.id, { type: 'NoticeTrialWillEnd', now: at });
      return;
    case 'upcoming':
      await decide(ctx, state.sub.id, { type: 'NoticeUpcoming', now: at });
      return;
    case 'expire_incomplete':
      await decide(ctx, state.sub.id, { type: 'ExpireIncomplete', now: at });
      return;
  }
}

/** A subscription's own steps stop after this many in one call: the next pass goes on. */
const MAX_STEPS = 400;

/**
 * Runs everything due on a subscription up to `until`, each step at its own due time, oldest
 * first: so advancing a clock by a year bills twelve months in order, and every event says when
 * it happened in the subscription's time. Safe to run twice, or in two processes: each step is
 * a decision on the stream with an expected revision, and a charge repeats with its attempt's key.
 */
export async function advanceSubscription(services: Services, id: string, until: number, correlation = `billing_${id}`): Promise<number> {
  let steps = 0;
  let lastKey = '';
  for (; steps < MAX_STEPS; steps++) {
    const state: SubscriptionState = fold(subscriptionDecider, (await services.store.readStream(subscriptionStream(id))) as never);
    if (state.status === 'none') return steps;
    const action = nextAction(state, until);
    if (!action) return steps;
    // The same action twice in a row made no progress (a refusal): leave it to the next pass.
    const key = `${action.type}:${action.at}:${state.open_invoice?.attempt_count ?? ''}:${state.invoice_count}`;
    if (key === lastKey) return steps;
    lastKey = key;
    await run(services, context(services, state.sub.organization_id, correlation, action.at), state, action);
  }
  return steps;
}

/**
 * Runs what is due on one clock's subscriptions (`''`: those in real time) up to `until`, in
 * passes over the schedule until a pass finds nothing to do. Each pass reads the schedule once
 * the projections are at the log's head, so it sees what the last pass did. One subscription's
 * failure never holds up the others: it stays due for the next run.
 */
export async function runDue(services: Services, clock: string, until: number, logger?: Logger): Promise<number> {
  let total = 0;
  for (;;) {
    await readModelsAtHead(services);
    const due = await services.readStore.find<ScheduleDoc>(SUBSCRIPTION_SCHEDULE, {
      filter: { clock, due_at: { $lte: until } },
      sort: [['due_at', 1]],
      limit: BATCH,
    });
    let progressed = 0;
    await inParallel(due, CONCURRENCY, async (doc) => {
      try {
        progressed += await advanceSubscription(services, doc.id, until, clock ? `test_clock_${clock}` : undefined);
      } catch (error) {
        logger?.error({ err: error, subscription: doc.id }, 'could not bill a subscription; it stays due');
      }
    });
    total += progressed;
    if (progressed === 0) return total;
  }
}

/** Makes everything due on a test clock's subscriptions happen, up to its new time. */
export async function advanceClock(services: Services, clock: { id: string; organization_id: string }, frozenTime: number): Promise<void> {
  await runDue(services, clock.id, frozenTime);
}

const BATCH = 500;
const CONCURRENCY = 16;

async function inParallel<T>(items: readonly T[], width: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) await work(items[next++]!);
  });
  await Promise.all(lanes);
}

/** Ends every subscription of a deleted clock (Stripe's deletion of a test clock deletes its objects). */
export async function endClockSubscriptions(services: Services, clockId: string, now: number): Promise<void> {
  await readModelsAtHead(services);
  const docs = await services.readStore.find<ScheduleDoc>(SUBSCRIPTION_SCHEDULE, { filter: { clock: clockId } });
  for (const doc of docs) {
    const state: SubscriptionState = fold(subscriptionDecider, (await services.store.readStream(subscriptionStream(doc.id))) as never);
    if (state.status === 'none' || state.sub.test_clock !== clockId) continue;
    if (state.status === 'canceled' || state.status === 'incomplete_expired') continue;
    await decide(context(services, state.sub.organization_id, `test_clock_${clockId}`, now), doc.id, { type: 'EndForClockDeletion', now });
  }
}
