import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorSchema, findOrAwaitStream, notFound } from '../../../platform/http/index.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { loadProductByRef } from '../../catalog/index.ts';
import { bearerAccess, manageAccess, routeListing, type RouteAccess } from '../../oauth/index.ts';
import { createBenefit, deleteBenefit, productOfBenefit, updateBenefit } from '../benefitCommands.ts';
import { findBenefit, listBenefits, listGrants, presentBenefit, presentGrant } from '../benefitQueries.ts';
import { productBenefitsStream } from '../domain/benefitTypes.ts';
import {
  BenefitCreateBody,
  BenefitGrantSchema,
  BenefitIdParams,
  BenefitListQuery,
  BenefitSchema,
  BenefitUpdateBody,
  DeletedBenefitSchema,
  GrantListQuery,
  ProductParams,
} from './benefitSchemas.ts';

export const PER_PAGE_DEFAULT = 100;
export const PER_PAGE_MAX = 1000;

/** A product at its limit of benefits answers 409, on both. */
const bearer: RouteAccess = { ...bearerAccess, errors: { ...bearerAccess.errors, 409: ErrorSchema } };
const manage: RouteAccess = { ...manageAccess, errors: { ...manageAccess.errors, 409: ErrorSchema } };

export const benefitRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => routes(app, services, bearer);
export const benefitManageRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => routes(app, services, manage);

async function routes(app: Parameters<FastifyPluginAsyncZod>[0], services: Services, access: RouteAccess): Promise<void> {
  const { prefix, schema: routeSchema, errors } = access;
  const authenticate = access.onRequest(app);
  const { token, paging, page, pageSchema } = routeListing(access, services, { default: PER_PAGE_DEFAULT, max: PER_PAGE_MAX });

  /** The organization's product by id (route key) or UUID; another's or none: 404, alike. */
  const ownProduct = async (request: FastifyRequest, ref: string) => {
    const product = await loadProductByRef(services, access.organizationOf(request), ref);
    if (!product) throw notFound('Product');
    return product;
  };
  /** The organization's benefit, not deleted; another's, a deleted or an unknown one: 404, alike. */
  const ownBenefit = async (request: FastifyRequest, reply: FastifyReply, id: string) => {
    const organizationId = access.organizationOf(request);
    const productId = await productOfBenefit(services, organizationId, id);
    if (productId === null) throw notFound('Benefit');
    const doc = await findOrAwaitStream(services, reply, { stream: productBenefitsStream(productId), find: () => findBenefit(services.readStore, organizationId, id), organizationId, ready: (d) => !d.deleted });
    if (!doc) throw notFound('Benefit');
    return doc;
  };

  app.get(
    `${prefix}/benefits`,
    {
      onRequest: authenticate,
      schema: {
        ...routeSchema,
        summary: "The organization's benefits, newest first; ?product= and ?type= filter.",
        querystring: BenefitListQuery.extend(paging),
        response: { 200: pageSchema(BenefitSchema), ...errors },
      },
    },
    async (request) => {
      const q = request.query;
      const organizationId = access.organizationOf(request);
      // A product named by UUID filters by its id; an unknown one matches nothing.
      const product = q.product === undefined ? undefined : ((await loadProductByRef(services, organizationId, q.product))?.routeKey ?? q.product);
      const { items, total } = await listBenefits(services.readStore, organizationId, { product, type: q.type, skip: (q.page - 1) * q.per_page, limit: q.per_page });
      return page(request, 'benefits', items.map(presentBenefit), total, q, { product: q.product, type: q.type });
    },
  );

  app.get(
    `${prefix}/products/:product/benefits`,
    {
      onRequest: authenticate,
      schema: { ...routeSchema, summary: "A product's benefits, newest first.", params: ProductParams, querystring: z.object(paging), response: { 200: pageSchema(BenefitSchema), ...errors } },
    },
    async (request) => {
      const q = request.query;
      const product = await ownProduct(request, request.params.product);
      const { items, total } = await listBenefits(services.readStore, access.organizationOf(request), { product: product.routeKey, skip: (q.page - 1) * q.per_page, limit: q.per_page });
      return page(request, `products/${request.params.product}/benefits`, items.map(presentBenefit), total, q, {});
    },
  );

  app.post(
    `${prefix}/products/:product/benefits`,
    {
      onRequest: authenticate,
      schema: {
        ...routeSchema,
        summary: 'Adds a benefit to a product: a `file` benefit (files: file ids) or a `license_key` benefit. Granted to the product’s buyers still entitled (one-payment checkouts not refunded in full, entitled subscriptions), and to each later one.',
        params: ProductParams,
        querystring: z.object(token),
        body: BenefitCreateBody,
        response: { 201: BenefitSchema, ...errors },
      },
    },
    async (request, reply) => {
      const organizationId = access.organizationOf(request);
      const product = await ownProduct(request, request.params.product);
      const b = request.body;
      const { benefit } = await createBenefit(access.context(services, request), { organizationId, product: product.routeKey, type: b.type, description: b.description, properties: b.properties });
      reply.code(201);
      return presentBenefit(benefit);
    },
  );

  app.get(
    `${prefix}/benefits/:benefit`,
    { onRequest: authenticate, schema: { ...routeSchema, summary: 'A benefit.', params: BenefitIdParams, querystring: z.object(token), response: { 200: BenefitSchema, ...errors } } },
    async (request, reply) => presentBenefit(await ownBenefit(request, reply, request.params.benefit)),
  );

  app.patch(
    `${prefix}/benefits/:benefit`,
    {
      onRequest: authenticate,
      schema: {
        ...routeSchema,
        summary: "Changes a benefit's description or properties (given whole). Grants in force follow: a file benefit's buyers download its files as they now are.",
        params: BenefitIdParams,
        querystring: z.object(token),
        body: BenefitUpdateBody,
        response: { 200: BenefitSchema, ...errors },
      },
    },
    async (request) => {
      const { benefit } = await updateBenefit(access.context(services, request), access.organizationOf(request), request.params.benefit, request.body);
      if (benefit.deleted) throw notFound('Benefit');
      return presentBenefit(benefit);
    },
  );

  app.delete(
    `${prefix}/benefits/:benefit`,
    {
      onRequest: authenticate,
      schema: { ...routeSchema, summary: 'Deletes a benefit: its grants are revoked (cause benefit.deleted).', params: BenefitIdParams, querystring: z.object(token), response: { 200: DeletedBenefitSchema, ...errors } },
    },
    async (request, reply) => {
      await ownBenefit(request, reply, request.params.benefit);
      await deleteBenefit(access.context(services, request), access.organizationOf(request), request.params.benefit);
      return { id: request.params.benefit, object: 'benefit' as const, deleted: true as const };
    },
  );

  app.get(
    `${prefix}/benefit_grants`,
    {
      onRequest: authenticate,
      schema: {
        ...routeSchema,
        summary: 'Benefits granted to customers, newest first; ?customer=, ?benefit= and ?status= filter.',
        querystring: GrantListQuery.extend(paging),
        response: { 200: pageSchema(BenefitGrantSchema), ...errors },
      },
    },
    async (request) => {
      const q = request.query;
      const { items, total } = await listGrants(services.readStore, access.organizationOf(request), { customer: q.customer, benefit: q.benefit, status: q.status, skip: (q.page - 1) * q.per_page, limit: q.per_page });
      return page(request, 'benefit_grants', items.map(presentGrant), total, q, { customer: q.customer, benefit: q.benefit, status: q.status });
    },
  );
}
