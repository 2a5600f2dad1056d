import type { ReadStore } from '../../platform/readStore/index.ts';
import { CATALOG_PLANS, CATALOG_PRODUCTS, type PlanDoc, type ProductDoc } from './catalogProjection.ts';

/** The queries the catalog routes and the CLI run against the catalog read model. */
export async function listProducts(
  readStore: ReadStore,
  organizationId: string,
  page: { skip: number; limit: number },
): Promise<{ items: ProductDoc[]; total: number }> {
  const filter = { organization_id: organizationId };
  const [items, total] = await Promise.all([
    readStore.find<ProductDoc>(CATALOG_PRODUCTS, { filter, sort: [['number', 1]], skip: page.skip, limit: page.limit }),
    readStore.count(CATALOG_PRODUCTS, filter),
  ]);
  return { items, total };
}

/** Another organization's product is not found, exactly as an unknown one. */
export async function findProduct(readStore: ReadStore, organizationId: string, routeKey: string): Promise<ProductDoc | null> {
  const [doc] = await readStore.find<ProductDoc>(CATALOG_PRODUCTS, {
    filter: { organization_id: organizationId, route_key: routeKey },
    limit: 1,
  });
  return doc ?? null;
}

export async function findProductByKey(readStore: ReadStore, organizationId: string, key: string): Promise<ProductDoc | null> {
  const [doc] = await readStore.find<ProductDoc>(CATALOG_PRODUCTS, { filter: { organization_id: organizationId, key }, limit: 1 });
  return doc ?? null;
}

/** Any organization's product by route key: for operators (the CLI), never for API callers. */
export async function findProductAnyOrganization(readStore: ReadStore, routeKey: string): Promise<ProductDoc | null> {
  const [doc] = await readStore.find<ProductDoc>(CATALOG_PRODUCTS, { filter: { route_key: routeKey }, limit: 1 });
  return doc ?? null;
}

export async function listPlans(readStore: ReadStore, product: ProductDoc): Promise<PlanDoc[]> {
  return readStore.find<PlanDoc>(CATALOG_PLANS, { filter: { product_id: product.id }, sort: [['number', 1]] });
}
