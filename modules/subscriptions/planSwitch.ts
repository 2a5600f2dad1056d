import { loadProductByRef, type Plan } from '../catalog/index.ts';
import { invalid, notFound } from '../../platform/domain/index.ts';
import type { CommandContext } from '../../platform/es/index.ts';
import type { Active, Line, PlanTerms } from './domain/subscription.ts';
import { changeSubscriptionPlan } from './subscriptionCommands.ts';

/**
 * Plans a subscription may move to: the other recurring plans of its product, in its currency,
 * billed on its interval (the period stays as it is). What a buyer is offered in the portal.
 */
export async function switchablePlans(ctx: Pick<CommandContext, 'store'>, state: Active): Promise<Plan[]> {
  return (await subscriptionPlans(ctx, state)).switchable;
}

/** The subscription's plan as its product has it now (its display name), and the plans it may move to. */
export async function subscriptionPlans(ctx: Pick<CommandContext, 'store'>, state: Active): Promise<{ current: Plan | null; switchable: Plan[] }> {
  const product = await loadProductByRef(ctx, state.sub.organization_id, state.plan.product_id);
  if (!product) return { current: null, switchable: [] };
  const current = product.plans.find((p) => p.id === state.plan.plan_id) ?? null;
  const switchable = product.plans.filter(
    (p) => p.id !== state.plan.plan_id && p.type === 'recurring' && p.currency_code.toUpperCase() === state.sub.currency.toUpperCase() && p.invoice_interval === state.plan.invoice_interval,
  );
  return { current, switchable };
}

/** Moves the subscription to one of switchablePlans, prorated as Stripe does by default. */
export async function switchPlan(ctx: CommandContext, state: Active, planId: string) {
  const plan = (await switchablePlans(ctx, state)).find((p) => p.id === planId);
  if (!plan) throw invalid('plan_not_found', 'This plan is not one the subscription can move to.', 'plan');
  if (state.sub.organization_id !== ctx.metadata.organization_id) throw notFound('Subscription');
  const terms: PlanTerms = { product_id: state.plan.product_id, plan_id: plan.id, plan_name: plan.name, renew_interval: plan.renew_interval, invoice_interval: plan.invoice_interval };
  const name = plan.display_name || plan.name;
  const lines: Line[] = plan.charges.map((c) => ({ name, amount: c.amount }));
  return changeSubscriptionPlan(ctx, state.sub.id, { plan: terms, lines, behavior: 'create_prorations', taxBehavior: plan.tax_behavior ?? 'unspecified' });
}
