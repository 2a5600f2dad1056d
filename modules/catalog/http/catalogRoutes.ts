import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../platform/runtime/index.ts';
import { catalogProjection, type PlanDoc, type ProductDoc } from '../catalogProjection.ts';
import { findProduct, listPlans, listProducts } from '../catalogQueries.ts';
import { baseUrl } from '../../../platform/http/index.ts';
import { notFound, unauthorized } from '../../../platform/http/index.ts';
import { requireAuth } from '../../oauth/index.ts';
import { ErrorSchema, protectedRoute, RouteKey } from '../../../platform/http/index.ts';
import {
  DEFAULT_PER_PAGE,
  MAX_PER_PAGE,
  PlanResource,
  Product,
  type ProductListItem,
  ProductListQuery,
  ProductPage,
} from './catalogSchemas.ts';
import { ProductPageCache } from './productPageCache.ts';
import { pageEnvelope } from '../../../platform/http/index.ts';
import { findOrAwaitStream } from '../../../platform/http/index.ts';
import { productIdOfRouteKey } from '../productManagement.ts';
import { productStream } from '../domain/product.ts';
import { productResource } from '../resources.ts';

const PATH = '/api/catalog/products';
const ProductParams = z.object({ product: RouteKey.describe('The product route key.') });
const LegacyTokenQuery = z.object({ api_token: z.string().optional() });
const errors = { 401: ErrorSchema, 404: ErrorSchema, 422: ErrorSchema };

type ListItem = z.infer<typeof ProductListItem>;

const listItem = (p: ProductDoc): ListItem => ({
  id: p.route_key,
  name: p.name,
  display_name: p.display_name,
  description: p.description,
  family: p.family,
  version_number: p.version_number,
  status: p.status,
  published_at: p.published_at,
  archived_at: p.archived_at,
});

/** The plan as its route answers it (the schema orders the keys). */
const planResource = ({ product_id: _p, product_route_key: _r, organization_id: _o, number: _n, ...plan }: PlanDoc): z.infer<typeof PlanResource> => ({
  ...plan,
  object: 'plan',
  tax_behavior: plan.tax_behavior ?? 'unspecified',
});

/** Laravel's LengthAwarePaginator shape: absolute links with `page` (and a non-default per_page). */
function productPage(items: ProductDoc[], total: number, page: number, perPage: number, base: string): z.infer<typeof ProductPage> {
  const envelope = pageEnvelope({ path: `${base}${PATH}`, page, perPage, defaultPerPage: DEFAULT_PER_PAGE, total, itemCount: items.length });
  return { data: items.map(listItem), ...envelope };
}

/**
 * The read-only catalog. Writes exist, as the spec says, and deny every authenticated caller:
 * their hook answers before the body is read, so nothing about a denied write is parsed or stored.
 */
export const catalogRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const cache = new ProductPageCache();
  // The running projections know the catalog's checkpoint without a query, which would cost a
  // good part of what the cached page saves; a process without them asks the store.
  // A catalog the CLI applied from another process is seen once this process's subscription
  // meets it: within a second, as the CLI promises, though the detail route may show it first.
  const catalogCheckpoint = async () => {
    const known = services.projections?.checkpointOf(catalogProjection.name);
    return known !== undefined ? known : services.readStore.readCheckpoint(catalogProjection.name);
  };
  const readProduct = async (request: FastifyRequest, reply: FastifyReply, routeKey: string) => {
    const organizationId = requireAuth(request).organizationId;
    const product = await findOrAwaitStream(services, reply, {
      stream: async () => {
        const id = await productIdOfRouteKey(services, routeKey);
        return id === null ? null : productStream(id);
      },
      find: () => findProduct(services.readStore, organizationId, routeKey),
      organizationId,
    });
    if (!product) throw notFound('Product');
    return product;
  };

  app.get(
    PATH,
    {
      onRequest: app.authenticate,
      schema: {
        ...protectedRoute,
        summary: 'List the products of the current organization.',
        description: `Paged by \`page\` and \`per_page\` (default ${DEFAULT_PER_PAGE}, at most ${MAX_PER_PAGE}; outside 1–${MAX_PER_PAGE} answers 422). Ordered by creation.`,
        querystring: ProductListQuery,
        response: { 200: ProductPage, ...errors },
      },
    },
    async (request, reply) => {
      const { organizationId } = requireAuth(request);
      const page = request.query.page ?? 1;
      const perPage = request.query.per_page ?? DEFAULT_PER_PAGE;
      const base = baseUrl(services, request);
      const key = `${organizationId}\u0000${page}\u0000${perPage}\u0000${base}`;
      const checkpoint = await catalogCheckpoint();
      let body = cache.get(key, checkpoint);
      if (!body) {
        const { items, total } = await listProducts(services.readStore, organizationId, { skip: (page - 1) * perPage, limit: perPage });
        body = Buffer.from(JSON.stringify(productPage(items, total, page, perPage, base)));
        cache.set(key, checkpoint, body);
      }
      // A Buffer goes out as is (no second serialization): it was built from the schema's own type above.
      return reply.type('application/json; charset=utf-8').send(body as unknown as z.infer<typeof ProductPage>);
    },
  );

  app.get(
    `${PATH}/:product`,
    {
      onRequest: app.authenticate,
      schema: {
        ...protectedRoute,
        summary: 'A product with its features and linked provider records (twins).',
        params: ProductParams,
        querystring: LegacyTokenQuery,
        response: { 200: Product, ...errors },
      },
    },
    async (request, reply) => productResource(await readProduct(request, reply, request.params.product)),
  );

  app.get(
    `${PATH}/:product/plans`,
    {
      onRequest: app.authenticate,
      schema: {
        ...protectedRoute,
        summary: 'The plans of a product, with their charges.',
        params: ProductParams,
        querystring: LegacyTokenQuery,
        response: { 200: z.object({ data: z.array(PlanResource) }), ...errors },
      },
    },
    async (request, reply) => {
      const product = await readProduct(request, reply, request.params.product);
      return { data: (await listPlans(services.readStore, product)).map(planResource) };
    },
  );

  const deny = async () => {
    throw unauthorized();
  };
  const denied = {
    ...protectedRoute,
    description:
      'Exists for compatibility and changes nothing: an authenticated caller gets 403 "This action is unauthorized.", before the body is read. Products are managed through `commerce import` and, by signed-in people, `/manage/api/products`.',
    querystring: LegacyTokenQuery,
    body: z.record(z.string(), z.unknown()).optional().describe('Ignored.'),
    response: { 401: ErrorSchema, 403: ErrorSchema },
  };
  const writeOptions = (summary: string, withParams: boolean) => ({
    onRequest: [app.authenticate, deny],
    schema: { ...denied, summary, ...(withParams ? { params: ProductParams } : {}) },
  });

  app.post(PATH, writeOptions('Create a product: always denied (403).', false), deny);
  app.put(`${PATH}/:product`, writeOptions('Replace a product: always denied (403).', true), deny);
  app.patch(`${PATH}/:product`, writeOptions('Update a product: always denied (403).', true), deny);
  app.delete(`${PATH}/:product`, writeOptions('Delete a product: always denied (403).', true), deny);
};
