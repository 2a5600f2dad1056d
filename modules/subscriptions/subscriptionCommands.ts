import { fold, type TaxBehavior } from '../../platform/domain/index.ts';
import { handleCommand, type CommandContext } from '../../platform/es/index.ts';
import type { ProrationBehavior } from './domain/proration.ts';
import { subscriptionDecider, subscriptionStream, type Line, type PaymentMethod, type PlanTerms, type SubscriptionCommand, type SubscriptionState } from './domain/subscription.ts';
import { timeOnClock } from './testClockCommands.ts';

export async function loadSubscription(ctx: Pick<CommandContext, 'store'>, id: string): Promise<SubscriptionState> {
  return fold(subscriptionDecider, (await ctx.store.readStream(subscriptionStream(id))) as never);
}

/**
 * The time a subscription lives in: its test clock's frozen time, else the request's. Read from
 * the clock's stream, so every command of a clock-bound subscription happens at the clock's time.
 */
export async function subscriptionNow(ctx: CommandContext, state: SubscriptionState): Promise<number> {
  return timeOnClock(ctx.store, state.status === 'none' ? null : state.sub.test_clock, ctx.metadata.occurred_at);
}

type Act = (now: number) => SubscriptionCommand;

/** One seller or customer action on a subscription, at the subscription's own time. */
async function act(ctx: CommandContext, id: string, command: Act) {
  const events = await ctx.store.readStream(subscriptionStream(id));
  const state = fold(subscriptionDecider, events as never);
  const now = await subscriptionNow(ctx, state);
  const result = await handleCommand(ctx, subscriptionStream(id), subscriptionDecider, command(now), { known: events });
  return { state: result.state, events: result.events, position: result.position, revision: result.revision };
}

export type CancelInput = { atPeriodEnd: boolean; refund: 'none' | 'prorated'; requestedBy: 'seller' | 'customer' };

export const cancelSubscription = (ctx: CommandContext, id: string, input: CancelInput) =>
  act(ctx, id, (now) => ({ type: 'Cancel', atPeriodEnd: input.atPeriodEnd, refund: input.refund, requestedBy: input.requestedBy, now }));

export const reactivateSubscription = (ctx: CommandContext, id: string) => act(ctx, id, (now) => ({ type: 'Reactivate', now }));
export const pauseSubscription = (ctx: CommandContext, id: string) => act(ctx, id, (now) => ({ type: 'Pause', now }));
export const resumeSubscription = (ctx: CommandContext, id: string) => act(ctx, id, (now) => ({ type: 'Resume', now }));

export const changeSubscriptionPlan = (ctx: CommandContext, id: string, input: { plan: PlanTerms; lines: Line[]; behavior: ProrationBehavior; taxBehavior?: TaxBehavior | 'unspecified' }) =>
  act(ctx, id, (now) => ({ type: 'ChangePlan', plan: input.plan, lines: input.lines, behavior: input.behavior, ...(input.taxBehavior ? { taxBehavior: input.taxBehavior } : {}), now }));

/** Takes the subscription's coupon off (Stripe's DELETE /v1/subscriptions/{id}/discount): the next invoice is at full price. */
export const removeSubscriptionDiscount = (ctx: CommandContext, id: string) => act(ctx, id, (now) => ({ type: 'RemoveDiscount', now }));

export const updatePaymentMethod = (ctx: CommandContext, id: string, paymentMethod: PaymentMethod) =>
  act(ctx, id, (now) => ({ type: 'UpdatePaymentMethod', paymentMethod, now }));
