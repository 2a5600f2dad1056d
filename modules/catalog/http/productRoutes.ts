import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../platform/runtime/index.ts';
import { desiredProduct, familyOf, FamilyImport, ProductImport } from '../catalogImport.ts';
import { changeProductLifecycle, loadOrganizationProduct, productIdOfRouteKey, saveProduct, type KnownProduct } from '../productManagement.ts';
import type { Family } from '../domain/product.ts';
import { CATALOG_PLANS, type PlanDoc } from '../catalogProjection.ts';
import { findProduct, listProducts } from '../catalogQueries.ts';
import { ManagedProduct } from './catalogSchemas.ts';
import { notFound } from '../../../platform/http/index.ts';
import { requireOrganization } from '../../identity/index.ts';
import { RouteKey } from '../../../platform/http/index.ts';
import { manageContext } from '../../../platform/http/index.ts';
import { manageErrors, manageRoute } from '../../../platform/http/index.ts';
import { PageQuery, pageOf } from '../../../platform/http/index.ts';

const P = '/manage/api/products';

/** The import's product, with its family given inline (there is no file of families here). */
const ProductBody = z
  .strictObject({ ...ProductImport.shape, family: FamilyImport.nullable().default(null) })
  .superRefine((product, ctx) => {
    const names = product.plans.map((p) => p.name);
    names.forEach((name, i) => {
      if (names.indexOf(name) !== i) ctx.addIssue({ code: 'custom', path: ['plans', i, 'name'], message: 'Plan names must be unique within a product.' });
    });
  });
const { key: _key, ...editShape } = ProductBody.shape;
const ProductEditBody = z.strictObject(editShape);

const view = (p: KnownProduct): z.infer<typeof ManagedProduct> => ({
  id: p.routeKey,
  key: p.key,
  name: p.name,
  display_name: p.display_name,
  description: p.description,
  family: p.family,
  features: p.features,
  twins: p.twins,
  status: p.status,
  version_number: p.versionNumber,
  published_at: p.publishedAt,
  archived_at: p.archivedAt,
  plans: p.plans.map(({ number: _n, ...plan }) => plan),
});

type Body = z.infer<typeof ProductEditBody>;
const desired = (body: Body, key: string) => {
  const families = new Map<string, Family>(body.family ? [[body.family.lookup_key, familyOf(body.family)]] : []);
  return desiredProduct({ ...body, key, family: body.family?.lookup_key ?? null }, families);
};

const Params = z.object({ product: RouteKey });

export const productRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  // The log first (commands decide on streams, and a product made a moment ago may not be in the
  // read model yet); the read model for route keys allocated before the counter named streams.
  // Whoever loads the product checks its organization (loadOrganizationProduct).
  const resolve = async (organizationId: string, routeKey: string) => {
    const fromLog = await productIdOfRouteKey(services, routeKey);
    if (fromLog !== null) return fromLog;
    const doc = await findProduct(services.readStore, organizationId, routeKey);
    if (!doc) throw notFound('Product');
    return doc.id;
  };

  app.get(
    P,
    {
      onRequest: app.authenticateSession,
      schema: { ...manageRoute, summary: 'The products of the current organization, in creation order.', querystring: PageQuery, response: { 200: z.object({ data: z.array(z.record(z.string(), z.unknown())), meta: z.record(z.string(), z.unknown()) }), ...manageErrors } },
    },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const { page, per_page } = request.query;
      const { items, total } = await listProducts(services.readStore, organizationId, { skip: (page - 1) * per_page, limit: per_page });
      // Each product with its plans, as the detail answers them (one query for the page's plans).
      const plans = items.length
        ? await services.readStore.find<PlanDoc>(CATALOG_PLANS, { filter: { product_id: { $in: items.map((p) => p.id) } }, sort: [['number', 1]] })
        : [];
      const plansOf = (id: string) => plans.filter((p) => p.product_id === id).map(({ product_id: _p, product_route_key: _r, organization_id: _o, number: _n, ...plan }) => plan);
      return pageOf(items.map(({ id, organization_id: _org, number: _n, route_key, ...rest }) => ({ id: route_key, ...rest, plans: plansOf(id) })), total, page, per_page);
    },
  );

  app.post(
    P,
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: 'Create a product (or update the one with this key), as `commerce import` does: 201 when created, 200 when it existed.',
        body: ProductBody,
        response: { 200: ManagedProduct, 201: ManagedProduct, ...manageErrors },
      },
    },
    async (request, reply) => {
      const { organizationId } = requireOrganization(request);
      const { key, ...body } = request.body;
      const saved = await saveProduct(manageContext(services, request), organizationId, key, desired(body, key));
      return reply.code(saved.result.created ? 201 : 200).send(view(saved.product));
    },
  );

  app.get(
    `${P}/:product`,
    { onRequest: app.authenticateSession, schema: { ...manageRoute, summary: 'A product with its plans and prices.', params: Params, response: { 200: ManagedProduct, ...manageErrors } } },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const id = await resolve(organizationId, request.params.product);
      return view(await loadOrganizationProduct(manageContext(services, request), organizationId, id));
    },
  );

  app.put(
    `${P}/:product`,
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: 'Edit a product: its details, plans and prices as a whole (a new version when anything differs).',
        params: Params,
        body: ProductEditBody,
        response: { 200: ManagedProduct, ...manageErrors },
      },
    },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const id = await resolve(organizationId, request.params.product);
      const ctx = manageContext(services, request);
      const current = await loadOrganizationProduct(ctx, organizationId, id);
      return view((await saveProduct(ctx, organizationId, current.key, desired(request.body, current.key))).product);
    },
  );

  for (const action of ['publish', 'archive', 'restore'] as const) {
    app.post(
      `${P}/:product/${action}`,
      {
        onRequest: app.authenticateSession,
        schema: { ...manageRoute, summary: `${action[0]!.toUpperCase()}${action.slice(1)} a product.`, params: Params, response: { 200: ManagedProduct, ...manageErrors } },
      },
      async (request) => {
        const { organizationId } = requireOrganization(request);
        const id = await resolve(organizationId, request.params.product);
        return view(await changeProductLifecycle(manageContext(services, request), organizationId, id, action));
      },
    );
  }
};
