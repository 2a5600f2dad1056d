import { createHash, randomUUID } from 'node:crypto';
import {
  productDecider,
  productKeyStream,
  productStream,
  type DesiredProduct,
  type ProductEvent,
  type ProductKeyClaimedEvent,
  type ProductState,
} from './domain/product.ts';
import { fold } from '../../platform/domain/index.ts';
import { DomainError, notFound } from '../../platform/domain/index.ts';
import { WrongExpectedRevisionError } from '../../platform/eventStore/index.ts';
import { handleCommand, toNewEvent, type CommandContext } from '../../platform/es/index.ts';
import { allocatedStream, allocateId } from '../../platform/es/index.ts';
import { decodeRouteKey, encodeRouteKey } from '../../platform/lib/index.ts';

/** Counter names of allocateId: the integer ids behind product and plan route keys. */
export const PRODUCT_COUNTER = 'product';
export const PLAN_COUNTER = 'plan';

export type ProductWriteResult = {
  /** Route key. */
  id: string;
  product_id: string;
  key: string;
  created: boolean;
  /** True when this call recorded events (a re-import of the same data records none). */
  changed: boolean;
  version_number: number;
};

const keyHash = (organizationId: string, key: string) =>
  createHash('sha256').update(`${organizationId}\u0000${key}`).digest('hex');

async function loadProduct(ctx: CommandContext, productId: string): Promise<ProductState> {
  const events = await ctx.store.readStream(productStream(productId));
  return fold(productDecider, events as unknown as ProductEvent[]);
}

/** The product of an import key in the organization, from its claim and its stream (null when none). */
export async function loadProductByKey(
  ctx: Pick<CommandContext, 'store'>,
  organizationId: string,
  key: string,
): Promise<Exclude<ProductState, { status: 'none' }> | null> {
  const [claim] = await ctx.store.readStream(productKeyStream(keyHash(organizationId, key)));
  if (!claim) return null;
  const events = await ctx.store.readStream(productStream((claim.data as ProductKeyClaimedEvent['data']).product_id));
  const state = fold(productDecider, events as unknown as ProductEvent[]);
  return state.status === 'none' ? null : state;
}

/**
 * The product that owns `key` in the organization, claiming the key for a new product id when
 * none does. The claim stream is created with no_stream, so concurrent imports agree on one id.
 */
async function claimKey(ctx: CommandContext, organizationId: string, key: string): Promise<string> {
  const stream = productKeyStream(keyHash(organizationId, key));
  const [claim] = await ctx.store.readStream(stream);
  if (claim) return (claim.data as ProductKeyClaimedEvent['data']).product_id;
  const productId = randomUUID();
  const event: ProductKeyClaimedEvent = {
    type: 'ProductKeyClaimed',
    data: { organization_id: organizationId, key, product_id: productId },
  };
  try {
    await ctx.store.append(stream, [toNewEvent(event, ctx.metadata)], 'no_stream');
    return productId;
  } catch (error) {
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
    const [winner] = await ctx.store.readStream(stream);
    return (winner!.data as ProductKeyClaimedEvent['data']).product_id;
  }
}

/** Ids for the plans the product does not have yet (allocated here: the decider stays pure). */
async function allocatePlanIds(ctx: CommandContext, state: ProductState, desired: DesiredProduct) {
  const known = new Set(state.status === 'none' ? [] : state.plans.map((p) => p.name));
  const ids: Record<string, { number: number; id: string }> = {};
  for (const plan of desired.plans) {
    if (known.has(plan.name)) continue;
    const number = await allocateId(ctx.store, PLAN_COUNTER, ctx.metadata);
    ids[plan.name] = { number, id: encodeRouteKey(number) };
  }
  return ids;
}

/**
 * Creates the product of `key` in the organization, or brings it to the desired state: one new
 * version when anything differs, nothing at all when nothing does. Never a second product.
 */
export async function upsertProductByKey(
  ctx: CommandContext,
  input: { organizationId: string; key: string; desired: DesiredProduct },
): Promise<ProductWriteResult> {
  const productId = await claimKey(ctx, input.organizationId, input.key);
  const now = ctx.metadata.occurred_at;
  for (let attempt = 1; ; attempt++) {
    const state = await loadProduct(ctx, productId);
    const planIds = await allocatePlanIds(ctx, state, input.desired);
    try {
      if (state.status === 'none') {
        const number = await allocateId(ctx.store, PRODUCT_COUNTER, ctx.metadata, productStream(productId));
        const routeKey = encodeRouteKey(number);
        const result = await handleCommand(ctx, productStream(productId), productDecider, {
          type: 'CreateProduct',
          productId,
          number,
          routeKey,
          organizationId: input.organizationId,
          key: input.key,
          planIds,
          now,
          ...input.desired,
        });
        return { id: routeKey, product_id: productId, key: input.key, created: true, changed: true, version_number: versionOf(result.state) };
      }
      const result = await handleCommand(ctx, productStream(productId), productDecider, {
        type: 'SyncProduct',
        planIds,
        now,
        ...input.desired,
      });
      return {
        id: state.routeKey,
        product_id: productId,
        key: input.key,
        created: false,
        changed: result.events.length > 0,
        version_number: versionOf(result.state),
      };
    } catch (error) {
      // Another writer added a plan (or created the product) between our read and our decision.
      const raced = error instanceof DomainError && (error.code === 'plan_id_missing' || error.code === 'product_exists');
      if (!raced || attempt >= 3) throw error;
    }
  }
}

export async function publishProduct(ctx: CommandContext, productId: string): Promise<{ changed: boolean; version_number: number }> {
  const result = await handleCommand(ctx, productStream(productId), productDecider, { type: 'PublishProduct', now: ctx.metadata.occurred_at });
  return { changed: result.events.length > 0, version_number: versionOf(result.state) };
}

export async function archiveProduct(ctx: CommandContext, productId: string): Promise<{ changed: boolean; version_number: number }> {
  const result = await handleCommand(ctx, productStream(productId), productDecider, { type: 'ArchiveProduct', now: ctx.metadata.occurred_at });
  return { changed: result.events.length > 0, version_number: versionOf(result.state) };
}

function versionOf(state: ProductState): number {
  if (state.status === 'none') throw notFound('Product');
  return state.versionNumber;
}

/**
 * A product by its route key or its UUID, from its own stream (the counter's event maps a route key to
 * it); null when there is none, or it is another organization's.
 */
export async function loadProductByRef(
  ctx: Pick<CommandContext, 'store'>,
  organizationId: string,
  ref: string,
): Promise<Exclude<ProductState, { status: 'none' }> | null> {
  const number = decodeRouteKey(ref);
  const stream = number !== null ? await allocatedStream(ctx.store, PRODUCT_COUNTER, number) : /^[0-9a-f-]{36}$/i.test(ref) ? productStream(ref.toLowerCase()) : null;
  if (stream === null) return null;
  const state = fold(productDecider, (await ctx.store.readStream(stream)) as unknown as ProductEvent[]);
  return state.status === 'none' || state.organizationId !== organizationId ? null : state;
}
