import { z } from 'zod';
import type { SubscriptionMetrics } from '../domain/metrics.ts';
import type { ProrationDerivation } from '../domain/proration.ts';
import type { Statement } from '../domain/statement.ts';
import { MAX_FROZEN_TIME } from '../domain/testClock.ts';
import { SubscriptionSchema } from '../resources.ts';
import type { SubscriptionHistoryEntry } from '../subscriptionReads.ts';

/**
 * The answers of the test clock, history, statement and metrics routes. They mirror the domain's
 * types: the `satisfies` checks at the end fail to compile when a domain type gains a field the
 * schema lacks (the serializer would drop it) or changes one. The dashboard imports these types.
 */

const STATUSES = ['incomplete', 'incomplete_expired', 'trialing', 'active', 'past_due', 'unpaid', 'canceled', 'paused'] as const;
const Unix = z.number().int();
const Period = z.object({ start: Unix, end: Unix });

export const FrozenTime = z.number().int().min(0).max(MAX_FROZEN_TIME).describe('Unix seconds.');

export const TestClockSchema = z.object({
  id: z.string(),
  object: z.literal('test_helpers.test_clock'),
  frozen_time: FrozenTime.describe("The clock's time: its subscriptions live at it (Unix seconds)."),
  status: z.enum(['ready', 'advancing']).describe('advancing while what the last advance made due is still happening; ready once it all happened.'),
  name: z.string().nullable(),
  livemode: z.literal(false),
  created_at: Unix,
});
export type TestClock = z.infer<typeof TestClockSchema>;

/** Who caused an event (platform/eventStore's Actor). */
export const ActorSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('api_key'), id: z.string(), user_id: z.string() }),
  z.object({ type: z.literal('oauth_app'), id: z.string(), user_id: z.string(), grant_id: z.string() }),
  z.object({ type: z.literal('oauth_client'), id: z.string() }),
  z.object({ type: z.literal('user'), id: z.string() }),
  z.object({ type: z.literal('public'), ip: z.string().optional() }),
  z.object({ type: z.literal('cli') }),
  z.object({ type: z.literal('system'), name: z.string() }),
  z.object({ type: z.literal('customer'), id: z.string() }),
]);

export const SubscriptionHistoryEntrySchema = z.object({
  sequence: z.number().int(),
  type: z.string().describe('The event type (SubscriptionCreated, SubscriptionRenewed…).'),
  at: Unix.describe("When it happened in the subscription's time (its test clock's, if any)."),
  occurred_at: Unix.describe('When it was recorded.'),
  actor: ActorSchema,
  data: z.record(z.string(), z.unknown()).describe("The event's data."),
  state: SubscriptionSchema.describe('The subscription as it stood after the event.'),
});

export const SubscriptionHistorySchema = z.object({
  subscription_id: z.string(),
  at: Unix.describe("The instant shown, in the subscription's time."),
  state: SubscriptionSchema.nullable(),
  data: z.array(SubscriptionHistoryEntrySchema),
});

export const ProrationSchema = z.object({
  side: z.enum(['credit', 'charge']),
  price: z.number().int().describe('The price per period the line is computed from (the old one for the credit).'),
  old_price: z.number().int(),
  new_price: z.number().int(),
  old_plan: z.string(),
  new_plan: z.string(),
  period_start: Unix,
  period_end: Unix,
  changed_at: Unix,
  seconds_used: z.number().int(),
  seconds_left: z.number().int(),
  billing_cycle_anchor: Unix,
  proration_behavior: z.enum(['create_prorations', 'always_invoice', 'none']),
  rounding: z.literal('per_line_half_away_from_zero'),
});

export const StatementLineSchema = z.object({
  name: z.string(),
  amount: z.number().int(),
  reason: z.enum(['period', 'proration', 'checkout', 'discount', 'tax']).describe('`discount` and `tax`: what the pricing took off and added on top, so the lines add up to the total.'),
  period: Period.nullable(),
  proration: ProrationSchema.nullable(),
});

const InvoiceRef = z.object({ id: z.string(), number: z.number().int() });
const PlanRef = z.object({ plan_id: z.string(), plan_name: z.string(), amount: z.number().int() });

export const StatementEntrySchema = z.discriminatedUnion('type', [
  z.object({ at: Unix, type: z.literal('invoice'), invoice: InvoiceRef, billing_reason: z.string(), period: Period.nullable(), lines: z.array(StatementLineSchema), total: z.number().int(), credit_applied: z.number().int(), amount_due: z.number().int() }),
  z.object({ at: Unix, type: z.literal('payment'), invoice: InvoiceRef, attempt: z.number().int(), amount: z.number().int(), card: z.object({ brand: z.string(), last4: z.string() }).nullable() }),
  z.object({ at: Unix, type: z.literal('payment_failed'), invoice: InvoiceRef, attempt: z.number().int(), code: z.string(), decline_code: z.string().nullable(), next_payment_attempt: Unix.nullable() }),
  z.object({ at: Unix, type: z.literal('refund'), invoice: InvoiceRef, amount: z.number().int(), reason: z.enum(['prorated_cancellation', 'requested']), proration: ProrationSchema.nullable() }),
  z.object({ at: Unix, type: z.literal('refund_due'), invoice: InvoiceRef, amount: z.number().int(), proration: ProrationSchema.nullable() }),
  z.object({ at: Unix, type: z.literal('uncollectible'), invoice: InvoiceRef, amount: z.number().int() }),
  z.object({ at: Unix, type: z.literal('void'), invoice: InvoiceRef, amount: z.number().int() }),
  z.object({
    at: Unix,
    type: z.literal('plan_change'),
    from: PlanRef,
    to: PlanRef,
    proration_behavior: z.string(),
    lines: z.array(StatementLineSchema).describe('The proration lines the change made: on the next invoice (create_prorations) or on one made now (always_invoice).'),
  }),
]);

export const StatementSchema = z.object({
  object: z.literal('subscription_statement'),
  subscription: z.string(),
  as_of: Unix,
  currency: z.string(),
  status: z.enum(STATUSES).nullable().describe('The subscription as it stood at as_of; null before it existed.'),
  entitled: z.boolean(),
  current_period: Period.nullable(),
  totals: z.object({
    invoiced: z.number().int().describe('Charges on the invoices made by then: period fees and proration charges.'),
    credited: z.number().int().describe('Proration credits on those invoices (unused time of a former plan).'),
    credit_applied: z.number().int().describe("Credit from the customer's balance taken off those invoices."),
    amount_due: z.number().int().describe('What those invoices asked for: invoiced − credited − credit_applied, never below zero per invoice.'),
    paid: z.number().int(),
    refunded: z.number().int(),
    owed: z.number().int().describe("Open invoices' amount due, not yet paid."),
    written_off: z.number().int().describe('Invoices given up on (uncollectible).'),
    credit_balance: z.number().int().describe('Credit carried to the next invoice.'),
    refund_due: z.number().int().describe("A prorated cancellation's refund not yet recorded as refunded."),
    pending_prorations: z.number().int().describe('Proration lines waiting for the next invoice (create_prorations), summed.'),
  }),
  pending_prorations: z.array(StatementLineSchema),
  entries: z.array(StatementEntrySchema),
});

export const SubscriptionMetricsSchema = z.object({
  object: z.literal('subscription_metrics'),
  mode: z.enum(['live', 'test']),
  as_of: Unix,
  window: z.object({ from: Unix, to: Unix }).describe('The 30 days before as_of that new, churned and reactivated count.'),
  mrr: z.record(z.string(), z.number().int()).describe('Monthly recurring revenue per currency, minor units.'),
  active_subscriptions: z.number().int(),
  by_status: z.partialRecord(z.enum(STATUSES), z.number().int()),
  new: z.number().int(),
  churned: z.number().int(),
  reactivated: z.number().int(),
});

export type SubscriptionHistory = z.infer<typeof SubscriptionHistorySchema>;
export type SubscriptionStatement = z.infer<typeof StatementSchema>;
export type SubscriptionStatementEntry = z.infer<typeof StatementEntrySchema>;
export type SubscriptionStatementLine = z.infer<typeof StatementLineSchema>;
export type SubscriptionMetricsAnswer = z.infer<typeof SubscriptionMetricsSchema>;

// Both ways: the domain's values fit the schemas, and the schemas hold nothing the domain lacks.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const agree = <T extends true>(_: T) => undefined;
agree<Same<z.infer<typeof SubscriptionHistoryEntrySchema>, SubscriptionHistoryEntry>>(true);
agree<Same<Omit<SubscriptionStatement, 'object'>, Statement>>(true);
agree<Same<z.infer<typeof ProrationSchema>, ProrationDerivation>>(true);
agree<Same<Omit<SubscriptionMetricsAnswer, 'object' | 'mode'>, SubscriptionMetrics>>(true);
