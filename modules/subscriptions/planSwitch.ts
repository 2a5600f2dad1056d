import { loadProductByRef, type Plan } from '../catalog/index.ts';
import { invalid, notFound } from '../../platform/domain/index.ts';
import type { CommandContext } from '../../platform/es/index.ts';
import type { ProrationBehavior } from './domain/proration.ts';
import type { Active, Line, PlanTerms } from './domain/subscription.ts';
import { changeSubscriptionPlan } from './subscriptionCommands.ts';

/** Moves the subscription to `plan` of the product `productRef` names: its lines are the plan's charges under its display name. */
export function changeToPlan(ctx: CommandContext, id: string, productRef: string, plan: Plan, behavior: ProrationBehavior) {
  const terms: PlanTerms = { product_id: productRef, plan_id: plan.id, plan_name: plan.name, renew_interval: plan.renew_interval, invoice_interval: plan.invoice_interval };
  const name = plan.display_name || plan.name;
  const lines: Line[] = plan.charges.map((c) => ({ name, amount: c.amount }));
  return changeSubscriptionPlan(ctx, id, { plan: terms, lines, behavior, taxBehavior: plan.tax_behavior ?? 'unspecified' });
}

/** A plan a subscription may move to, with its product: its own (as its plan names it) or another's route key. */
export type SwitchablePlan = { product: string; productName: string; own: boolean; plan: Plan; choice: string };

/**
 * The subscription's plan as its product has it now (its display name), and the plans it may
 * move to: the other recurring plans of its product, then those of `others` (products by route
 * key or UUID), in its currency and billed on its interval (the period stays as it is). What a
 * buyer is offered in the portal; each one's `choice` names it in a form.
 */
export async function subscriptionPlans(ctx: Pick<CommandContext, 'store'>, state: Active, others: readonly string[] = []): Promise<{ current: Plan | null; switchable: SwitchablePlan[] }> {
  const product = await loadProductByRef(ctx, state.sub.organization_id, state.plan.product_id);
  if (!product) return { current: null, switchable: [] };
  const current = product.plans.find((p) => p.id === state.plan.plan_id) ?? null;
  const fits = (p: Plan) => p.id !== state.plan.plan_id && p.type === 'recurring' && p.currency_code.toUpperCase() === state.sub.currency.toUpperCase() && p.invoice_interval === state.plan.invoice_interval;
  const switchable: SwitchablePlan[] = product.plans.filter(fits).map((plan) => ({ product: state.plan.product_id, productName: product.display_name || product.name || product.key, own: true, plan, choice: plan.id }));
  for (const ref of others) {
    const other = await loadProductByRef(ctx, state.sub.organization_id, ref);
    if (!other || other.routeKey === product.routeKey || other.status !== 'active') continue;
    for (const plan of other.plans.filter(fits)) switchable.push({ product: other.routeKey, productName: other.display_name || other.name || other.key, own: false, plan, choice: `${other.routeKey}/${plan.id}` });
  }
  return { current, switchable };
}

/** Moves the subscription to the plan `choice` names among subscriptionPlans, prorated as Stripe does by default. */
export async function switchPlan(ctx: CommandContext, state: Active, choice: string, others: readonly string[] = []) {
  const found = (await subscriptionPlans(ctx, state, others)).switchable.find((s) => s.choice === choice);
  if (!found) throw invalid('plan_not_found', 'This plan is not one the subscription can move to.', 'plan');
  if (state.sub.organization_id !== ctx.metadata.organization_id) throw notFound('Subscription');
  return changeToPlan(ctx, state.sub.id, found.product, found.plan, 'create_prorations');
}
