import type { ProductEvent, ProductDetails } from './domain/product.ts';
import type { RecordedEvent } from '../../platform/eventStore/index.ts';
import type { Projection, ProjectionTx } from '../../platform/es/index.ts';

/** A family as the organization's products name it, with the products that do. */
export type FamilyDoc = { id: string; organization_id: string; lookup_key: string; family_id: string; name: string; product_ids: string[] };
/** A feature (by its id) as the organization's products list it, with the products that do. */
export type FeatureDoc = { id: string; organization_id: string; feature_id: string; name: string; description: string | null; product_ids: string[] };
/** What one product names: the family and feature ids it was last counted under. */
type ProductFacetsDoc = { id: string; organization_id: string; lookup_key: string | null; feature_ids: string[] };

export const CATALOG_FAMILIES = 'catalog_families';
export const CATALOG_FEATURES = 'catalog_features';
const PRODUCT_FACETS = 'catalog_product_facets';

export const familyDocId = (organizationId: string, lookupKey: string) => `${organizationId}:${lookupKey}`;
export const featureDocId = (organizationId: string, featureId: string) => `${organizationId}:${featureId}`;

const without = (ids: readonly string[], id: string) => ids.filter((x) => x !== id);
const withId = (ids: readonly string[], id: string) => (ids.includes(id) ? [...ids] : [...ids, id]);

/**
 * Families and features, which live inside products, listed apart per organization with the products
 * that name each: what the management routes list and what an edit of one touches.
 */
export const catalogFacetsProjection: Projection = {
  name: 'catalog_facets',
  collections: [CATALOG_FAMILIES, CATALOG_FEATURES, PRODUCT_FACETS],
  indexes: [
    { collection: CATALOG_FAMILIES, fields: ['organization_id', 'lookup_key'] },
    { collection: CATALOG_FEATURES, fields: ['organization_id', 'feature_id'] },
  ],
  eventTypes: ['ProductCreated', 'ProductDetailsChanged'],
  async apply(recorded: RecordedEvent, tx: ProjectionTx) {
    const event = recorded as unknown as ProductEvent;
    const productId = recorded.stream.slice('product-'.length);
    if (event.type === 'ProductCreated') return place(tx, productId, event.data.organization_id, event.data);
    if (event.type === 'ProductDetailsChanged') {
      const known = await tx.get<ProductFacetsDoc>(PRODUCT_FACETS, productId);
      if (known) await place(tx, productId, known.organization_id, event.data);
    }
  },
};

async function place(tx: ProjectionTx, productId: string, organizationId: string, details: ProductDetails): Promise<void> {
  const before = await tx.get<ProductFacetsDoc>(PRODUCT_FACETS, productId);
  const lookupKey = details.family?.lookup_key ?? null;
  const featureIds = details.features.map((f) => f.id);
  // Leave what it no longer names.
  if (before?.lookup_key && before.lookup_key !== lookupKey) {
    const doc = await tx.get<FamilyDoc>(CATALOG_FAMILIES, familyDocId(organizationId, before.lookup_key));
    if (doc) putOrDrop(tx, CATALOG_FAMILIES, { ...doc, product_ids: without(doc.product_ids, productId) });
  }
  for (const id of before?.feature_ids ?? []) {
    if (featureIds.includes(id)) continue;
    const doc = await tx.get<FeatureDoc>(CATALOG_FEATURES, featureDocId(organizationId, id));
    if (doc) putOrDrop(tx, CATALOG_FEATURES, { ...doc, product_ids: without(doc.product_ids, productId) });
  }
  // Join what it names; the latest name given wins.
  if (details.family) {
    const id = familyDocId(organizationId, details.family.lookup_key);
    const doc = await tx.get<FamilyDoc>(CATALOG_FAMILIES, id);
    tx.upsert(CATALOG_FAMILIES, {
      id,
      organization_id: organizationId,
      lookup_key: details.family.lookup_key,
      family_id: details.family.id,
      name: details.family.name,
      product_ids: withId(doc?.product_ids ?? [], productId),
    } satisfies FamilyDoc);
  }
  for (const feature of details.features) {
    const id = featureDocId(organizationId, feature.id);
    const doc = await tx.get<FeatureDoc>(CATALOG_FEATURES, id);
    tx.upsert(CATALOG_FEATURES, {
      id,
      organization_id: organizationId,
      feature_id: feature.id,
      name: feature.name,
      description: feature.description,
      product_ids: withId(doc?.product_ids ?? [], productId),
    } satisfies FeatureDoc);
  }
  tx.upsert(PRODUCT_FACETS, { id: productId, organization_id: organizationId, lookup_key: lookupKey, feature_ids: featureIds } satisfies ProductFacetsDoc);
}

function putOrDrop(tx: ProjectionTx, collection: string, doc: { id: string; product_ids: string[] }): void {
  if (doc.product_ids.length === 0) tx.delete(collection, doc.id);
  else tx.upsert(collection, doc);
}
