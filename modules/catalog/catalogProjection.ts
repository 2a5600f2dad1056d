import type { RecordedEvent } from '../../platform/eventStore/index.ts';
import { productEventTypes, type Plan, type ProductDetails, type ProductEvent } from './domain/product.ts';
import type { Projection, ProjectionTx } from '../../platform/es/index.ts';

export const CATALOG_PRODUCTS = 'catalog_products';
export const CATALOG_PLANS = 'catalog_plans';

/** A product as the catalog routes read it. `id` is the stream's UUID; `route_key` is what the API shows. */
export type ProductDoc = ProductDetails & {
  id: string;
  route_key: string;
  number: number;
  organization_id: string;
  key: string;
  status: 'active' | 'archived';
  version_number: number;
  published_at: number | null;
  archived_at: number | null;
  created_at: number;
  updated_at: number;
};

/** A plan with its product's keys, so plan lists are one indexed query scoped by organization. */
export type PlanDoc = Plan & { product_id: string; product_route_key: string; organization_id: string };

/**
 * Catalog read models, organization-scoped: products (sorted by `number`, creation order) and their
 * plans (by `number` within their product).
 */
export const catalogProjection: Projection = {
  name: 'catalog',
  collections: [CATALOG_PRODUCTS, CATALOG_PLANS],
  indexes: [
    { collection: CATALOG_PRODUCTS, fields: ['organization_id', 'number'] },
    { collection: CATALOG_PRODUCTS, fields: ['organization_id', 'route_key'] },
    { collection: CATALOG_PRODUCTS, fields: ['organization_id', 'key'] },
    { collection: CATALOG_PLANS, fields: ['product_id', 'number'] },
    { collection: CATALOG_PLANS, fields: ['organization_id', 'product_route_key', 'name'] },
  ],
  eventTypes: productEventTypes,
  async apply(recorded: RecordedEvent, tx: ProjectionTx) {
    const event = recorded as unknown as ProductEvent;
    const productId = recorded.stream.slice('product-'.length);
    if (event.type === 'ProductCreated') {
      const d = event.data;
      const doc: ProductDoc = {
        id: d.product_id,
        route_key: d.route_key,
        number: d.number,
        organization_id: d.organization_id,
        key: d.key,
        name: d.name,
        display_name: d.display_name,
        description: d.description,
        family: d.family,
        features: d.features,
        twins: d.twins,
        status: d.status,
        version_number: d.version_number,
        published_at: null,
        archived_at: null,
        created_at: d.created_at,
        updated_at: d.created_at,
      };
      tx.upsert(CATALOG_PRODUCTS, doc);
      return;
    }
    const product = await tx.get<ProductDoc>(CATALOG_PRODUCTS, productId);
    if (!product) return;
    const next: ProductDoc = { ...product, version_number: event.data.version_number };
    const planDoc = (plan: Plan): PlanDoc => ({
      ...plan,
      product_id: product.id,
      product_route_key: product.route_key,
      organization_id: product.organization_id,
    });
    switch (event.type) {
      case 'ProductDetailsChanged': {
        const { name, display_name, description, family, features, twins, updated_at } = event.data;
        Object.assign(next, { name, display_name, description, family, features, twins, updated_at });
        break;
      }
      case 'ProductPlanAdded':
      case 'ProductPlanChanged':
        tx.upsert(CATALOG_PLANS, planDoc(event.data.plan));
        next.updated_at = event.data.updated_at;
        break;
      case 'ProductPlanRemoved':
        tx.delete(CATALOG_PLANS, event.data.plan_id);
        next.updated_at = event.data.updated_at;
        break;
      case 'ProductPublished':
        next.published_at = event.data.published_at;
        next.updated_at = event.data.published_at;
        break;
      case 'ProductUnpublished':
        next.published_at = null;
        next.updated_at = event.data.updated_at;
        break;
      case 'ProductArchived':
        next.status = 'archived';
        next.archived_at = event.data.archived_at;
        next.updated_at = event.data.archived_at;
        break;
      case 'ProductRestored':
        next.status = 'active';
        next.archived_at = null;
        next.updated_at = event.data.updated_at;
        break;
    }
    tx.upsert(CATALOG_PRODUCTS, next);
  },
};
