import { createHash } from 'node:crypto';
import { fold, type AppliedTax, type PricingRecord, type TaxBehavior } from '../../platform/domain/index.ts';
import type { EventMetadata, RecordedEvent } from '../../platform/eventStore/index.ts';
import { allocateId, handleCommand, type CommandContext, type Logger } from '../../platform/es/index.ts';
import { readModelsAtHead } from '../../platform/http/index.ts';
import type { Services } from '../../platform/runtime/index.ts';
import { SUBSCRIPTION_SCHEDULE, type ScheduleDoc } from './subscriptionProjection.ts';
import { INVOICE_MIRROR_CHECKPOINT } from './jobs/invoiceMirror.ts';
import { checkoutSessionStream, invoiceDecider, invoiceStream, offerStream } from '../checkout/index.ts';
import { liveProviderOf, paymentProviderFor, type ChargeResult, type PaymentProvider } from '../payments/index.ts';
import { calculateTax } from '../tax/index.ts';
import { loadDunningSettings } from './dunningSettings.ts';
import { parseInterval, boundary } from './domain/interval.ts';
import {
  currentAttempt,
  DEFAULT_DUNNING,
  nextInvoice,
  subscriptionDecider,
  subscriptionStream,
  type Active,
  type Line,
  type PaymentMethod,
  type SubscriptionCommand,
  type SubscriptionState,
} from './domain/subscription.ts';
import { nextAction, type DueAction } from './domain/dueActions.ts';
import { loadTestClock } from './testClockCommands.ts';

/** The provider that charges a subscription's saved card: the test provider, or the organization's Stripe account. */
async function chargerFor(services: Services, state: Active): Promise<Pick<PaymentProvider, 'chargeSaved'> | null> {
  if (state.sub.mode === 'test') return paymentProviderFor('test');
  return (await liveProviderOf(services, state.sub.organization_id))?.provider ?? null;
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
  pricing?: PricingRecord;
  tax_behavior?: TaxBehavior | 'unspecified';
};
type SessionCompleted = { invoice_id: string; completed_at: number; subscription_id?: string; payment_method?: PaymentMethod; customer_id?: string };

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
  const clock = await loadTestClock(services, clockId);
  return !clock || clock.status === 'deleted' ? null : clock.frozen_time;
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
  // The price as the buyer paid it: the creation's, or the last repricing's (a code or a country given on the page).
  const pricing = events.reduce<PricingRecord | undefined>((p, e) => (e.type === 'CheckoutSessionRepriced' ? (e.data as { pricing: PricingRecord }).pricing : p), created?.pricing);
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
      customer_id: completed.customer_id ?? null,
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
      ...(pricing?.discount ? { discount: pricing.discount } : {}),
      ...(pricing?.customer_details ? { customer_details: pricing.customer_details } : {}),
      ...(created.tax_behavior ? { tax_behavior: created.tax_behavior } : {}),
    },
    now,
  });
  return { created: result.events.length > 0 };
}

/** Appends to the subscription stream; a decision of nothing (another process got there first) is fine. */
function decide(ctx: CommandContext, id: string, command: SubscriptionCommand, known?: readonly RecordedEvent[]) {
  return handleCommand(ctx, subscriptionStream(id), subscriptionDecider, command, known ? { known } : {});
}

type Step = { state: SubscriptionState } | void;

/**
 * The id of the subscription's next invoice: the same on every run until it is recorded, so the
 * charge made before the record carries the same key after a crash. Unguessable as the
 * subscription's own id is.
 */
export function renewalInvoiceId(subscriptionId: string, invoiceCount: number): string {
  return `in_${createHash('sha256').update(`${subscriptionId}:${invoiceCount}`).digest('base64url').slice(0, 24)}`;
}

async function chargeCard(services: Services, state: Active, invoiceId: string, amount: number, attempt: number, at: number): Promise<ChargeResult> {
  if (amount === 0) return { status: 'succeeded', card: state.payment_method?.card ?? { brand: 'none', last4: '' }, reference: '' };
  const pm = state.payment_method;
  if (!pm) return { status: 'declined', code: 'payment_method_missing', declineCode: null, message: 'No card is saved for this subscription.', card: null };
  const charger = await chargerFor(services, state);
  if (!charger) return { status: 'declined', code: 'payment_method_unsupported', declineCode: null, message: 'No payment provider can charge this card: connect Stripe again.', card: pm.card };
  return charger.chargeSaved({
    paymentMethod: pm,
    customer: pm.customer ?? null,
    amount,
    currency: state.sub.currency,
    // One key per invoice and attempt: a run that crashed after charging charges the same attempt again, which the provider answers with the first charge.
    idempotencyKey: `${invoiceId}_a${attempt}`,
    description: `${state.sub.offer.name} (${state.sub.id})`,
    now: at * 1000,
  });
}

const outcomeOf = (o: ChargeResult) =>
  o.status === 'succeeded'
    ? ({ status: 'succeeded', chargeId: o.reference || null, card: o.card } as const)
    : ({ status: 'declined', code: o.code, declineCode: o.declineCode, message: o.message } as const);

/**
 * The tax of an invoice the subscription makes at `at`: the seller's rates and settings as they
 * are now, for the buyer's details the checkout took (none kept: no tax, as before taxes).
 */
export function invoiceTax(services: Pick<Services, 'store'>, state: Active, at: number): Promise<AppliedTax | null> {
  return calculateTax({ store: services.store }, { organizationId: state.sub.organization_id, taxBehavior: state.sub.tax_behavior ?? 'unspecified', customer: state.sub.customer_details ?? null, now: at });
}

/** A period's (or a change's) invoice and its first charge: charged first, then both recorded in one append. */
async function renew(services: Services, ctx: CommandContext, state: Active, at: number, known?: readonly RecordedEvent[]): Promise<Step> {
  if (!nextInvoice(state, at)) return;
  // Calculated once, then passed in: what was charged and what the invoice records agree.
  const tax = await invoiceTax(services, state, at);
  const invoice = nextInvoice(state, at, tax);
  if (!invoice) return;
  const invoiceId = renewalInvoiceId(state.sub.id, state.invoice_count);
  const charged = await chargeCard(services, state, invoiceId, invoice.amount_due, 1, at);
  const settings = charged.status === 'declined' ? await loadDunningSettings(services.store, state.sub.organization_id) : DEFAULT_DUNNING;
  const number = await allocateId(services.store, `invoice-${state.sub.organization_id}`, ctx.metadata);
  return decide(ctx, state.sub.id, { type: 'Renew', invoiceId, number, amountCharged: invoice.amount_due, outcome: outcomeOf(charged), settings, tax, now: at }, known);
}

/**
 * A charge of a retry that found its invoice paid meanwhile by another payment (the buyer's own
 * confirmation on the card page) is owed back: refunded in full, keyed on the attempt. The same
 * charge repeated after a crash is the recorded payment itself, and stays.
 */
async function returnUnowed(services: Services, state: Active, invoiceId: string, attempt: number, chargeId: string, after: SubscriptionState): Promise<void> {
  if (state.sub.mode !== 'live' || !chargeId.startsWith('ch_')) return;
  if (after.status !== 'none' && after.last_paid?.invoice_id === invoiceId && after.last_paid.charge_id === chargeId) return;
  const live = await liveProviderOf(services, state.sub.organization_id);
  await live?.provider.refundCharge({ chargeId, amount: null, idempotencyKey: `commerce-unowed-${invoiceId}_a${attempt}` });
}

/** A retry of an open invoice (on the ladder, or at once after a new card). */
async function retry(services: Services, ctx: CommandContext, state: Active, at: number, known?: readonly RecordedEvent[]): Promise<Step> {
  const open = state.open_invoice!;
  const attempt = currentAttempt(open);
  const charged = await chargeCard(services, state, open.id, open.amount_due, attempt, at);
  if (charged.status === 'succeeded') {
    const recorded = await decide(ctx, state.sub.id, { type: 'RecordPaymentSucceeded', invoiceId: open.id, attempt, chargeId: charged.reference || null, card: charged.card, now: at }, known);
    if (recorded.events.length === 0) await returnUnowed(services, state, open.id, attempt, charged.reference, recorded.state);
    return recorded;
  }
  const settings = await loadDunningSettings(services.store, state.sub.organization_id);
  return decide(
    ctx,
    state.sub.id,
    { type: 'RecordPaymentFailed', invoiceId: open.id, attempt, code: charged.code, declineCode: charged.declineCode, message: charged.message, settings, now: at },
    known,
  );
}

/** Runs one due action; answers the subscription after it when the action decided on its stream. */
/** The due actions that are one command on the subscription's stream, at their due time. */
const AT_DUE_TIME: Record<Exclude<DueAction['type'], 'invoice' | 'charge'>, SubscriptionCommand['type']> = {
  cancel_at_period_end: 'CancelAtPeriodEnd',
  grace_ended: 'EndGrace',
  trial_will_end: 'NoticeTrialWillEnd',
  upcoming: 'NoticeUpcoming',
  expire_incomplete: 'ExpireIncomplete',
};

/** Runs one due action; answers the subscription after it when the action decided on its stream. */
async function run(services: Services, ctx: CommandContext, state: Active, action: DueAction, known?: readonly RecordedEvent[]): Promise<Step> {
  const at = action.at;
  if (action.type === 'invoice') return renew(services, ctx, state, at, known);
  if (action.type === 'charge') return retry(services, ctx, state, at, known);
  // A notice states what the buyer will be charged: the tax as the seller's rates stand now.
  const tax = action.type === 'upcoming' || action.type === 'trial_will_end' ? { tax: await invoiceTax(services, state, at) } : {};
  return decide(ctx, state.sub.id, { type: AT_DUE_TIME[action.type], ...tax, now: at } as SubscriptionCommand, known);
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
  let known: readonly RecordedEvent[] | undefined = await services.store.readStream(subscriptionStream(id));
  let state: SubscriptionState = fold(subscriptionDecider, known as never);
  for (; steps < MAX_STEPS; steps++) {
    if (state.status === 'none') return steps;
    const action = nextAction(state, until);
    if (!action) return steps;
    // The same action twice in a row made no progress (a refusal): leave it to the next pass.
    const key = `${action.type}:${action.at}:${state.open_invoice?.attempt_count ?? ''}:${state.invoice_count}:${state.status}`;
    if (key === lastKey) return steps;
    lastKey = key;
    // The first step decides on the events just read; each next one on the state the last left.
    const after = await run(services, context(services, state.sub.organization_id, correlation, action.at), state, action, known);
    known = undefined;
    state = after ? after.state : fold(subscriptionDecider, (await services.store.readStream(subscriptionStream(id))) as never);
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

/**
 * Makes everything due on a test clock's subscriptions happen, up to its new time, and waits
 * until their invoices are written too (the invoice subscriber has passed the last of it).
 */
export async function advanceClock(services: Services, clock: { id: string; organization_id: string }, frozenTime: number): Promise<void> {
  await runDue(services, clock.id, frozenTime);
  const head = (await services.store.headPosition()) ?? 0;
  for (let waited = 0; waited < MIRROR_WAIT_MS; waited += 20) {
    const checkpoint = await services.readStore.readCheckpoint(INVOICE_MIRROR_CHECKPOINT);
    // Caught up when no subscription event up to the head lies past its checkpoint.
    const behind = await services.store.readAll({ after: checkpoint, limit: 1, streamPrefixes: ['subscription-'] });
    if (behind.length === 0 || behind[0]!.position > head) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Past this, a clock reads ready even if invoices are still being written (a stalled subscriber is logged on its own). */
const MIRROR_WAIT_MS = 120_000;

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
