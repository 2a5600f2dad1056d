import { trialProblem, type OfferContent, type OfferState } from './domain/offer.ts';
import { DomainError, notFound } from '../../platform/domain/index.ts';
import { loadProductByKey } from '../catalog/index.ts';
import { couponStream } from '../discounts/index.ts';
import type { CommandContext } from '../../platform/es/index.ts';
import { archiveOffer, loadOffer, publishOffer, upsertOffer } from './offerCommands.ts';

export type KnownOffer = Exclude<OfferState, { status: 'none' }>;

const invalidField = (field: string, message: string) => new DomainError('invalid', 'validation_failed', message, { [field]: [message] });

/**
 * What an offer sells, as `commerce import` resolves it: a product by key, one of its plans by
 * name, both read from the product's streams (in an import: staged, or imported before).
 */
export async function offerPlanContent(
  ctx: Pick<CommandContext, 'store'>,
  organizationId: string,
  input: {
    name: string;
    product: string;
    plan: string;
    theme: OfferContent['theme'];
    pages: OfferContent['pages'];
    success_url?: string | undefined;
    cancel_url?: string | undefined;
    shop_url?: string | undefined;
    allowed_redirect_origins?: string[] | undefined;
    trial_period_days?: number | null | undefined;
    coupon?: string | undefined;
  },
  /** Coupons known to exist (an import's own, imported after its offers). */
  knownCoupons: ReadonlySet<string> = new Set(),
): Promise<OfferContent> {
  const product = await loadProductByKey(ctx, organizationId, input.product);
  if (!product) throw invalidField('product', `No product with key ${input.product} in this organization.`);
  const plan = product.plans.find((p) => p.name === input.plan);
  if (!plan) throw invalidField('plan', `Product ${input.product} has no plan named ${input.plan}.`);
  if (plan.charges.length === 0) throw invalidField('plan', `Plan ${input.plan} has no charges to sell.`);
  const trial = input.trial_period_days ? trialProblem(plan.name, plan.type) : null;
  if (trial) throw invalidField('trial_period_days', trial);
  if (input.coupon && !knownCoupons.has(input.coupon) && !(await couponExists(ctx, organizationId, input.coupon))) throw invalidField('coupon', `No coupon ${input.coupon} in this organization.`);
  return {
    name: input.name,
    theme: input.theme,
    pages: input.pages,
    plan: {
      product_id: product.routeKey,
      plan_id: plan.id,
      plan_name: plan.name,
      charges: plan.charges.map((c, n) => ({ id: c.id, name: plan.charges.length === 1 ? plan.display_name : `${plan.display_name} (${n + 1})`, amount: c.amount })),
    },
    currency: plan.currency_code,
    // Only those given: an offer saved without them has none (as a re-import without them).
    ...(input.success_url ? { success_url: input.success_url } : {}),
    ...(input.cancel_url ? { cancel_url: input.cancel_url } : {}),
    ...(input.shop_url ? { shop_url: input.shop_url } : {}),
    ...(input.allowed_redirect_origins?.length ? { allowed_redirect_origins: input.allowed_redirect_origins } : {}),
    ...(input.trial_period_days ? { trial_period_days: input.trial_period_days } : {}),
    ...(input.coupon ? { coupon: input.coupon } : {}),
  };
}

/** A coupon of this organization that is not deleted (its stream is the organization's own). */
export async function couponExists(ctx: Pick<CommandContext, 'store'>, organizationId: string, couponId: string): Promise<boolean> {
  const events = await ctx.store.readStream(couponStream(organizationId, couponId));
  return events.some((e) => e.type === 'CouponCreated') && !events.some((e) => e.type === 'CouponDeleted');
}

export async function loadOrganizationOffer(ctx: CommandContext, organizationId: string, uuid: string): Promise<KnownOffer> {
  const state = await loadOffer(ctx, uuid);
  if (state.status === 'none' || state.organizationId !== organizationId) throw notFound('Offer');
  return state;
}

export async function saveOffer(ctx: CommandContext, organizationId: string, slug: string, content: OfferContent, publish: boolean) {
  const summary = await upsertOffer(ctx, { organizationId, slug, ...content });
  if (publish) await publishOffer(ctx, summary.uuid);
  return { created: summary.created, offer: await loadOrganizationOffer(ctx, organizationId, summary.uuid) };
}

export async function changeOfferStatus(ctx: CommandContext, organizationId: string, uuid: string, action: 'publish' | 'archive'): Promise<KnownOffer> {
  await loadOrganizationOffer(ctx, organizationId, uuid);
  if (action === 'publish') await publishOffer(ctx, uuid);
  else await archiveOffer(ctx, uuid);
  return loadOrganizationOffer(ctx, organizationId, uuid);
}
