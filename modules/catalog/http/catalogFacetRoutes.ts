import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../platform/runtime/index.ts';
import { editProductDetails, type DetailsEdit } from '../productManagement.ts';
import {
  CATALOG_FAMILIES,
  CATALOG_FEATURES,
  familyDocId,
  featureDocId,
  type FamilyDoc,
  type FeatureDoc,
} from '../catalogFacetsProjection.ts';
import { notFound } from '../../../platform/http/index.ts';
import { requireOrganization } from '../../identity/index.ts';
import { manageContext } from '../../../platform/http/index.ts';
import { pageOf, PageQuery } from '../../../platform/http/index.ts';
import { manageErrors, manageRoute } from '../../../platform/http/index.ts';
import { readModelsAtHead } from '../../../platform/http/index.ts';

/** As the import file's lookup_key and feature id. */
const Identifier = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, 'must be letters, digits and . _ : - (starting with a letter or digit)');
const Name = z.string().trim().min(1).max(255);

const Family = z.object({ lookup_key: z.string(), id: z.string(), name: z.string(), products_count: z.number().int() });
const Feature = z.object({ id: z.string(), name: z.string(), description: z.string().nullable(), products_count: z.number().int() });
const Edited = z.object({ id: z.string().describe('Route key.'), version_number: z.number().int(), changed: z.boolean() });

const familyView = (f: FamilyDoc) => ({ lookup_key: f.lookup_key, id: f.family_id, name: f.name, products_count: f.product_ids.length });
const featureView = (f: FeatureDoc) => ({ id: f.feature_id, name: f.name, description: f.description, products_count: f.product_ids.length });

/**
 * Families and features edited apart from their products: the import's own command runs on each
 * product the catalog_facets read model names, and each product's stream decides whether it still does.
 */
export const catalogFacetRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const editAll = async (request: Parameters<typeof manageContext>[1], organizationId: string, productIds: string[], change: Parameters<typeof editProductDetails>[3]) => {
    const ctx = manageContext(services, request);
    const edited: DetailsEdit[] = [];
    for (const productId of productIds) {
      const result = await editProductDetails(ctx, organizationId, productId, change);
      if (result) edited.push(result);
    }
    return edited;
  };

  app.get(
    '/manage/api/families',
    { onRequest: app.authenticateSession, schema: { ...manageRoute, summary: "The families the organization's products name, by lookup_key.", querystring: PageQuery, response: { 200: z.object({ data: z.array(Family), meta: z.record(z.string(), z.unknown()) }), ...manageErrors } } },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const { page, per_page } = request.query;
      const filter = { organization_id: organizationId };
      const [docs, total] = await Promise.all([
        services.readStore.find<FamilyDoc>(CATALOG_FAMILIES, { filter, sort: [['lookup_key', 1]], skip: (page - 1) * per_page, limit: per_page }),
        services.readStore.count(CATALOG_FAMILIES, filter),
      ]);
      return pageOf(docs.map(familyView), total, page, per_page);
    },
  );

  app.put(
    '/manage/api/families/:lookup_key',
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: 'Rename a family in every product that names it (one new version of each), as re-importing them with the new name would.',
        params: z.object({ lookup_key: Identifier }),
        body: z.strictObject({ name: Name }),
        response: { 200: z.object({ lookup_key: z.string(), name: z.string(), products: z.array(Edited) }), ...manageErrors },
      },
    },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const { lookup_key } = request.params;
      // An index of many streams, read to decide: first the read models reach the log's head (bounded).
      await readModelsAtHead(services);
      const doc = await services.readStore.get<FamilyDoc>(CATALOG_FAMILIES, familyDocId(organizationId, lookup_key));
      if (!doc) throw notFound('Family');
      const products = await editAll(request, organizationId, doc.product_ids, (details) =>
        details.family?.lookup_key === lookup_key ? { ...details, family: { ...details.family, name: request.body.name } } : null,
      );
      return { lookup_key, name: request.body.name, products };
    },
  );

  app.get(
    '/manage/api/features',
    { onRequest: app.authenticateSession, schema: { ...manageRoute, summary: "The features the organization's products list, by id (each product keeps its own value).", querystring: PageQuery, response: { 200: z.object({ data: z.array(Feature), meta: z.record(z.string(), z.unknown()) }), ...manageErrors } } },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const { page, per_page } = request.query;
      const filter = { organization_id: organizationId };
      const [docs, total] = await Promise.all([
        services.readStore.find<FeatureDoc>(CATALOG_FEATURES, { filter, sort: [['feature_id', 1]], skip: (page - 1) * per_page, limit: per_page }),
        services.readStore.count(CATALOG_FEATURES, filter),
      ]);
      return pageOf(docs.map(featureView), total, page, per_page);
    },
  );

  app.put(
    '/manage/api/features/:id',
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: "Set a feature's name and description in every product that lists it (one new version of each); each product keeps its own value.",
        params: z.object({ id: Identifier }),
        body: z.strictObject({ name: Name, description: z.string().max(2000).nullable().optional().describe('Left out: each product keeps its own.') }),
        response: { 200: z.object({ id: z.string(), name: z.string(), products: z.array(Edited) }), ...manageErrors },
      },
    },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const { id } = request.params;
      const { name, description } = request.body;
      // An index of many streams, read to decide: first the read models reach the log's head (bounded).
      await readModelsAtHead(services);
      const doc = await services.readStore.get<FeatureDoc>(CATALOG_FEATURES, featureDocId(organizationId, id));
      if (!doc) throw notFound('Feature');
      const products = await editAll(request, organizationId, doc.product_ids, (details) =>
        details.features.some((f) => f.id === id)
          ? { ...details, features: details.features.map((f) => (f.id === id ? { ...f, name, ...(description !== undefined ? { description } : {}) } : f)) }
          : null,
      );
      return { id, name, products };
    },
  );
};
