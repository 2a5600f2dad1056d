import { productDecider, productStream, type DesiredProduct, type ProductDetails, type ProductEvent, type ProductState } from './domain/product.ts';
import { fold } from '../../platform/domain/index.ts';
import { notFound } from '../../platform/domain/index.ts';
import type { CommandContext } from '../../platform/es/index.ts';
import { decodeRouteKey } from '../../platform/lib/index.ts';
import { allocatedStream } from '../../platform/es/index.ts';
import { archiveProduct, PRODUCT_COUNTER, publishProduct, upsertProductByKey } from './productCommands.ts';

export type KnownProduct = Exclude<ProductState, { status: 'none' }>;

/** The product as its stream says, if it belongs to the organization (another's answers as unknown). */
export async function loadOrganizationProduct(ctx: CommandContext, organizationId: string, productId: string): Promise<KnownProduct> {
  const state = fold(productDecider, (await ctx.store.readStream(productStream(productId))) as unknown as ProductEvent[]);
  if (state.status === 'none' || state.organizationId !== organizationId) throw notFound('Product');
  return state;
}

/**
 * The product id of a route key, from the product counter's event alone; null when the log does not
 * say. The organization is checked by whoever loads the product (loadOrganizationProduct).
 */
export async function productIdOfRouteKey(ctx: Pick<CommandContext, 'store'>, routeKey: string): Promise<string | null> {
  const number = decodeRouteKey(routeKey);
  if (number === null) return null;
  const stream = await allocatedStream(ctx.store, PRODUCT_COUNTER, number);
  return stream?.startsWith('product-') ? stream.slice('product-'.length) : null;
}

/** Create by key or bring to `desired`: the very command `commerce import` runs, answered with the state it left. */
export async function saveProduct(ctx: CommandContext, organizationId: string, key: string, desired: DesiredProduct) {
  const result = await upsertProductByKey(ctx, { organizationId, key, desired });
  return { result, product: await loadOrganizationProduct(ctx, organizationId, result.product_id) };
}

export async function changeProductLifecycle(
  ctx: CommandContext,
  organizationId: string,
  productId: string,
  action: 'publish' | 'archive' | 'restore',
): Promise<KnownProduct> {
  const state = await loadOrganizationProduct(ctx, organizationId, productId);
  if (action === 'publish') await publishProduct(ctx, productId);
  else if (action === 'archive') await archiveProduct(ctx, productId);
  else {
    // Restoring is the import's own path: the same details and plans, status active.
    const { status: _status, productId: _id, organizationId: _org, key, routeKey: _rk, versionNumber: _v, publishedAt, archivedAt: _a, plans, ...details } = state;
    await upsertProductByKey(ctx, {
      organizationId,
      key,
      desired: {
        details,
        plans: plans.map(({ id: _pid, number: _n, ...plan }) => plan),
        status: 'active',
        published: publishedAt !== null,
      },
    });
  }
  return loadOrganizationProduct(ctx, organizationId, productId);
}

export type DetailsEdit = { id: string; version_number: number; changed: boolean };

/**
 * Edits one product's details with the import's own command, so the product gets one new version or
 * none. `change` answers null when the product does not name what is edited: it is left alone (null).
 */
export async function editProductDetails(
  ctx: CommandContext,
  organizationId: string,
  productId: string,
  change: (details: ProductDetails) => ProductDetails | null,
): Promise<DetailsEdit | null> {
  const state = fold(productDecider, (await ctx.store.readStream(productStream(productId))) as unknown as ProductEvent[]);
  if (state.status === 'none' || state.organizationId !== organizationId) return null;
  const { name, display_name, description, family, features, twins } = state;
  const details = change({ name, display_name, description, family, features, twins });
  if (details === null) return null;
  const result = await upsertProductByKey(ctx, {
    organizationId,
    key: state.key,
    desired: {
      details,
      plans: state.plans.map(({ id: _id, number: _n, ...plan }) => plan),
      status: state.status,
      published: state.publishedAt !== null,
    },
  });
  return { id: result.id, version_number: result.version_number, changed: result.changed };
}
