import { fold } from '../../../platform/domain/index.ts';
import type { RecordedEvent } from '../../../platform/eventStore/index.ts';
import { followFromCheckpoint, reactionContext, type CommandContext, type Logger } from '../../../platform/es/index.ts';
import type { BackgroundJob, Services } from '../../../platform/runtime/index.ts';
import { CHECKOUT_SESSIONS, checkoutSessionDecider, checkoutSessionStream, invoiceDecider, invoiceStream, type InvoiceEvent, type SessionView } from '../../checkout/index.ts';
import { loadProductByRef } from '../../catalog/index.ts';
import { SUBSCRIPTIONS, subscriptionDecider, subscriptionStream, type SubscriptionDoc, type SubscriptionEvent } from '../../subscriptions/index.ts';
import type { ProductBenefitsEvent } from '../domain/benefitTypes.ts';
import { endsWithEntitlement, type BenefitState } from '../domain/productBenefits.ts';
import { grantIdFor } from '../grantIds.ts';
import { loadProductBenefits } from '../benefitCommands.ts';
import { benefitsOfPlanProduct, grantBenefit, grantIdsOfBenefit, loadGrant, revokeGrant } from '../grantCommands.ts';

export const BENEFIT_GRANTS_CHECKPOINT = 'job:benefit-grants';
const ACTOR = 'benefit-grants';

type Completed = { invoice_id: string; completed_at: number; subscription_id?: string; customer_id?: string };

const live = (benefits: BenefitState[]) => benefits.filter((b) => !b.deleted);

/**
 * A one-payment purchase: `only` that benefit, else each of the plan's product, to the buyer's
 * customer, unless its invoice was refunded in full.
 */
async function grantPurchase(ctx: CommandContext, sessionId: string, only: BenefitState | null, cause: 'checkout.completed' | 'benefit.created', now?: number): Promise<void> {
  const events = await ctx.store.readStream(checkoutSessionStream(sessionId));
  const completed = events.find((e) => e.type === 'CheckoutSessionCompleted')?.data as Completed | undefined;
  if (!completed || completed.subscription_id || !completed.customer_id) return;
  const state = fold(checkoutSessionDecider, events as never);
  if (state.status === 'none') return;
  const invoice = await ctx.store.readStream(invoiceStream(completed.invoice_id));
  if (invoice.some((e) => e.type === 'InvoiceRefunded' && (e.data as { fully_refunded?: boolean }).fully_refunded)) return;
  const s = state.session;
  const benefits = only ? [only] : live(await benefitsOfPlanProduct(ctx, s.organization_id, s.plan.product_id));
  for (const benefit of benefits) {
    await grantBenefit(ctx, benefit, {
      organizationId: s.organization_id,
      mode: s.mode,
      customerId: completed.customer_id,
      source: { type: 'checkout_session', id: sessionId },
      cause,
      invoiceId: completed.invoice_id,
      now: now ?? completed.completed_at,
      regrant: false,
    });
  }
}

/** A subscription entitled now, still on one of `products` (route key, UUID): the benefit, to its customer. */
async function grantSubscription(ctx: CommandContext, subscriptionId: string, benefit: BenefitState, products: readonly string[], now: number): Promise<void> {
  const events = await ctx.store.readStream(subscriptionStream(subscriptionId));
  if (!(events.at(-1)?.data as { entitled?: boolean } | undefined)?.entitled) return;
  const state = fold(subscriptionDecider, events as unknown as SubscriptionEvent[]);
  if (state.status === 'none' || !state.sub.customer_id || !products.includes(state.plan.product_id)) return;
  const source = { type: 'subscription', id: subscriptionId } as const;
  await grantBenefit(ctx, benefit, { organizationId: state.sub.organization_id, mode: state.sub.mode, customerId: state.sub.customer_id, source, cause: 'benefit.created', invoiceId: null, now, regrant: true });
}

/**
 * A benefit added to a product already sold goes to the buyers whose purchase entitles them now:
 * each one-payment checkout not refunded in full, each subscription entitled. The read models
 * name the purchases (once they show the log up to the benefit); each one's own streams decide.
 * Purchases after it get it as they complete.
 */
async function onBenefitCreated(services: Services, ctx: CommandContext, event: RecordedEvent): Promise<void> {
  const created = (event as unknown as Extract<ProductBenefitsEvent, { type: 'BenefitCreated' }>).data;
  const benefit = (await loadProductBenefits(ctx, created.product_id)).benefits[created.id];
  // Deleted since: there is nothing to give.
  if (!benefit || benefit.deleted) return;
  const product = await loadProductByRef(ctx, created.organization_id, created.product_id);
  if (!product) return;
  if (services.projections && !(await services.projections.waitFor(event.position, 60_000))) throw new Error('benefit grants: the read models did not catch up');
  // A plan names its product by route key or UUID.
  const products = [product.routeKey, product.productId];
  const now = event.metadata.occurred_at;
  const organization_id = created.organization_id;
  for await (const page of services.readStore.stream<SessionView>(CHECKOUT_SESSIONS, { filter: { organization_id, product_id: { $in: products }, status: 'completed' } })) {
    for (const session of page) if (!session.subscription) await grantPurchase(ctx, session.id, benefit, 'benefit.created', now);
  }
  for await (const page of services.readStore.stream<SubscriptionDoc>(SUBSCRIPTIONS, { filter: { organization_id, 'plan.product_id': { $in: products } } })) {
    for (const subscription of page) await grantSubscription(ctx, subscription.id, benefit, products, now);
  }
}

/** The paid invoice an event of a subscription entitled it by, if any. */
function invoiceOf(event: SubscriptionEvent): string | null {
  if (event.type === 'SubscriptionInvoicePaid') return event.data.invoice_id;
  if (event.type === 'SubscriptionCreated') return event.data.first_invoice?.paid ? event.data.first_invoice.id : null;
  return null;
}

/**
 * Access follows `entitled`, which every subscription event carries: becoming entitled grants the
 * product's benefits, ceasing revokes those that end with it (files, keys bound to the
 * subscription), a change of plan to another product moves them.
 */
async function onSubscriptionEvent(ctx: CommandContext, event: RecordedEvent): Promise<void> {
  const current = event as unknown as SubscriptionEvent & RecordedEvent;
  const previous = event.revision > 0 ? await ctx.store.readEvent(event.stream, event.revision - 1) : null;
  const before = (previous?.data as { entitled?: boolean } | undefined)?.entitled ?? false;
  const after = current.data.entitled;
  const planChanged = current.type === 'SubscriptionPlanChanged' && current.data.from.plan.product_id !== current.data.to.plan.product_id;
  if (before === after && !planChanged) return;

  const subscriptionId = event.stream.slice('subscription-'.length);
  const events = (await ctx.store.readStream(subscriptionStream(subscriptionId))).filter((e) => e.revision <= event.revision);
  const state = fold(subscriptionDecider, events as unknown as SubscriptionEvent[]);
  if (state.status === 'none') return;
  const organizationId = state.sub.organization_id;
  const customerId = state.sub.customer_id;
  if (!customerId) return;
  const source = { type: 'subscription', id: subscriptionId } as const;
  const now = event.metadata.occurred_at;
  const grant = async (benefits: BenefitState[], cause: 'subscription.entitled' | 'subscription.plan_changed') => {
    for (const benefit of live(benefits)) {
      await grantBenefit(ctx, benefit, { organizationId, mode: state.sub.mode, customerId, source, cause, invoiceId: invoiceOf(current), now, regrant: true });
    }
  };
  const revoke = async (benefits: BenefitState[], cause: 'subscription.not_entitled' | 'subscription.plan_changed') => {
    for (const benefit of benefits) if (endsWithEntitlement(benefit)) await revokeGrant(ctx, grantIdFor(benefit.id, source), cause, now);
  };

  if (planChanged && current.type === 'SubscriptionPlanChanged') {
    if (before) await revoke(await benefitsOfPlanProduct(ctx, organizationId, current.data.from.plan.product_id), 'subscription.plan_changed');
    if (after) await grant(await benefitsOfPlanProduct(ctx, organizationId, current.data.to.plan.product_id), before ? 'subscription.plan_changed' : 'subscription.entitled');
    return;
  }
  const benefits = await benefitsOfPlanProduct(ctx, organizationId, state.plan.product_id);
  if (after) await grant(benefits, 'subscription.entitled');
  else await revoke(benefits, 'subscription.not_entitled');
}

/**
 * A full refund takes back what the invoice granted: a one-payment checkout's grants, or a
 * subscription's grants made by that invoice.
 */
async function onInvoiceRefunded(ctx: CommandContext, event: RecordedEvent): Promise<void> {
  const refunded = event as unknown as Extract<InvoiceEvent, { type: 'InvoiceRefunded' }> & RecordedEvent;
  if (!refunded.data.fully_refunded) return;
  const invoiceId = event.stream.slice('invoice-'.length);
  const invoice = fold(invoiceDecider, (await ctx.store.readStream(invoiceStream(invoiceId))) as never);
  if (invoice.status === 'none') return;
  const organizationId = invoice.invoice.organization_id;
  let subscriptionId = invoice.invoice.subscription_id ?? null;
  let productRef: string | null = null;
  const sessionId = invoice.invoice.session_id;
  if (!subscriptionId && sessionId) {
    const session = await ctx.store.readStream(checkoutSessionStream(sessionId));
    const state = fold(checkoutSessionDecider, session as never);
    if (state.status === 'none') return;
    subscriptionId = (session.find((e) => e.type === 'CheckoutSessionCompleted')?.data as Completed | undefined)?.subscription_id ?? null;
    productRef = state.session.plan.product_id;
  }
  const now = refunded.data.refunded_at;
  if (subscriptionId) {
    const sub = fold(subscriptionDecider, (await ctx.store.readStream(subscriptionStream(subscriptionId))) as never);
    if (sub.status === 'none') return;
    const source = { type: 'subscription', id: subscriptionId } as const;
    for (const benefit of await benefitsOfPlanProduct(ctx, organizationId, sub.plan.product_id)) {
      const grantId = grantIdFor(benefit.id, source);
      const grant = await loadGrant(ctx, grantId);
      if (grant.status === 'granted' && grant.grant.invoice_id === invoiceId) await revokeGrant(ctx, grantId, 'refund', now);
    }
    return;
  }
  if (!sessionId || productRef === null) return;
  for (const benefit of await benefitsOfPlanProduct(ctx, organizationId, productRef)) {
    await revokeGrant(ctx, grantIdFor(benefit.id, { type: 'checkout_session', id: sessionId }), 'refund', now);
  }
}

async function onBenefitDeleted(ctx: CommandContext, event: RecordedEvent): Promise<void> {
  const deleted = event as unknown as Extract<ProductBenefitsEvent, { type: 'BenefitDeleted' }>;
  for (const grantId of await grantIdsOfBenefit(ctx, deleted.data.id)) await revokeGrant(ctx, grantId, 'benefit.deleted', deleted.data.deleted_at);
}

async function handleBatch(services: Services, events: RecordedEvent[]): Promise<void> {
  for (const event of events) {
    const ctx = () => reactionContext(services.store, services.clock(), event, ACTOR);
    if (event.type === 'CheckoutSessionCompleted') await grantPurchase(ctx(), event.stream.slice('checkout_session-'.length), null, 'checkout.completed');
    else if (event.stream.startsWith('subscription-')) await onSubscriptionEvent(ctx(), event);
    else if (event.type === 'InvoiceRefunded') await onInvoiceRefunded(ctx(), event);
    else if (event.type === 'BenefitDeleted') await onBenefitDeleted(ctx(), event);
    else if (event.type === 'BenefitCreated') await onBenefitCreated(services, ctx(), event);
  }
}

/**
 * Grants and revokes benefits as purchases, subscriptions, refunds, new benefits and deletions
 * happen, and finishes what a crash interrupted: every step is idempotent on the grant's own
 * stream (its id derived from benefit and source), so an event handled again appends nothing new.
 */
export const benefitGrantsJob: BackgroundJob = {
  name: 'benefit-grants',
  start(services: Services, logger: Logger) {
    return followFromCheckpoint(services, logger, {
      checkpoint: BENEFIT_GRANTS_CHECKPOINT,
      streamPrefixes: ['checkout_session-', 'subscription-', 'invoice-', 'product_benefits-'],
      batchSize: 200,
      handle: (events) => handleBatch(services, events),
      remedy: `restore the read store that goes with this log, or delete the checkpoint ${BENEFIT_GRANTS_CHECKPOINT} to look at every purchase again (a grant is made once)`,
      failure: 'benefit grants failed; retrying from its checkpoint',
    });
  },
};
