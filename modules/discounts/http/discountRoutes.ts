import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DomainError } from '../../../platform/domain/index.ts';
import { ErrorSchema, findOrAwaitStream, notFound } from '../../../platform/http/index.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { loadProductByRef } from '../../catalog/index.ts';
import { bearerAccess, manageAccess, routeListing, type RouteAccess } from '../../oauth/index.ts';
import { couponOfCode, createCoupon, createPromotionCode, deleteCoupon, updateCoupon, updatePromotionCode } from '../discountCommands.ts';
import { findCoupon, findPromotionCode, listCoupons, listPromotionCodes, presentCoupon, presentPromotionCode, presentPromotionCodes } from '../discountQueries.ts';
import { couponStream } from '../domain/coupon.ts';
import {
  CouponCreateBody,
  CouponIdParams,
  CouponSchema,
  CouponUpdateBody,
  DeletedCouponSchema,
  PromotionCodeCreateBody,
  PromotionCodeIdParams,
  PromotionCodeSchema,
  PromotionCodeUpdateBody,
} from './discountSchemas.ts';

export const PER_PAGE_DEFAULT = 100;
export const PER_PAGE_MAX = 1000;

/** A code taken by another coupon answers 409, on both. */
const bearer: RouteAccess = { ...bearerAccess, errors: { ...bearerAccess.errors, 409: ErrorSchema } };
const manage: RouteAccess = { ...manageAccess, errors: { ...manageAccess.errors, 409: ErrorSchema } };

export const discountRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => routes(app, services, bearer);
export const discountManageRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => routes(app, services, manage);

const fieldError = (field: string, message: string) => new DomainError('invalid', 'validation_failed', message, { [field]: [message] });

async function routes(app: Parameters<FastifyPluginAsyncZod>[0], services: Services, access: RouteAccess): Promise<void> {
  const { prefix, schema: routeSchema, errors } = access;
  const authenticate = access.onRequest(app);
  const { token, paging, page, pageSchema } = routeListing(access, services, { default: PER_PAGE_DEFAULT, max: PER_PAGE_MAX });
  const now = () => Math.floor(services.clock() / 1000);

  /** The organization's coupon; deleted, another organization's or none: 404, alike. */
  const ownCoupon = async (request: FastifyRequest, reply: FastifyReply, id: string) => {
    const organizationId = access.organizationOf(request);
    const doc = await findOrAwaitStream(services, reply, { stream: couponStream(organizationId, id), find: () => findCoupon(services.readStore, organizationId, id), organizationId });
    if (!doc || doc.deleted || doc.organization_id !== organizationId) throw notFound('Coupon');
    return doc;
  };
  const ownCode = async (request: FastifyRequest, reply: FastifyReply, id: string) => {
    const organizationId = access.organizationOf(request);
    const couponId = await couponOfCode(services, organizationId, id);
    if (!couponId) throw notFound('Promotion code');
    const find = () => findPromotionCode(services.readStore, organizationId, id);
    // The code is made on its coupon's stream, after its pointer.
    const doc = await findOrAwaitStream(services, reply, { stream: couponStream(organizationId, couponId), find, organizationId });
    const coupon = doc && (await findCoupon(services.readStore, organizationId, doc.coupon));
    if (!doc || !coupon) throw notFound('Promotion code');
    return { doc, coupon };
  };

  const CouponPage = pageSchema(CouponSchema);
  const CodePage = pageSchema(PromotionCodeSchema);

  app.get(
    `${prefix}/coupons`,
    { onRequest: authenticate, schema: { ...routeSchema, summary: "The organization's coupons, newest first (deleted ones left out).", querystring: z.object(paging), response: { 200: CouponPage, ...errors } } },
    async (request) => {
      const q = request.query;
      const { items, total } = await listCoupons(services.readStore, access.organizationOf(request), { skip: (q.page - 1) * q.per_page, limit: q.per_page });
      const at = now();
      return page(request, 'coupons', items.map((d) => presentCoupon(d, at)), total, q, {});
    },
  );

  app.post(
    `${prefix}/coupons`,
    {
      onRequest: authenticate,
      schema: { ...routeSchema, summary: 'Creates a coupon: percent_off, or amount_off with its currency.', querystring: z.object(token), body: CouponCreateBody, response: { 201: CouponSchema, ...errors } },
    },
    async (request, reply) => {
      const organizationId = access.organizationOf(request);
      const ctx = access.context(services, request);
      const b = request.body;
      if (b.redeem_by !== undefined && b.redeem_by <= ctx.metadata.occurred_at) throw fieldError('redeem_by', 'The redeem by date must be in the future.');
      // Named by id or uuid; kept as the id (route key) checkout's lines carry.
      const products: string[] = [];
      for (const ref of b.applies_to?.products ?? []) {
        const product = await loadProductByRef(ctx, organizationId, ref);
        if (!product) throw fieldError('applies_to.products', `No such product: ${ref}.`);
        products.push(product.routeKey);
      }
      const { id } = await createCoupon(ctx, { organizationId, ...b, applies_to: products.length > 0 ? { products } : null });
      reply.code(201);
      return presentCoupon((await ownCoupon(request, reply, id)), now());
    },
  );

  app.get(
    `${prefix}/coupons/:id`,
    { onRequest: authenticate, schema: { ...routeSchema, summary: 'A coupon.', params: CouponIdParams, querystring: z.object(token), response: { 200: CouponSchema, ...errors } } },
    async (request, reply) => presentCoupon(await ownCoupon(request, reply, request.params.id), now()),
  );

  app.post(
    `${prefix}/coupons/:id`,
    {
      onRequest: authenticate,
      schema: { ...routeSchema, summary: "Updates a coupon's name and metadata (its terms cannot change, as Stripe's).", params: CouponIdParams, querystring: z.object(token), body: CouponUpdateBody, response: { 200: CouponSchema, ...errors } },
    },
    async (request, reply) => {
      await ownCoupon(request, reply, request.params.id);
      await updateCoupon(access.context(services, request), access.organizationOf(request), request.params.id, request.body);
      return presentCoupon(await ownCoupon(request, reply, request.params.id), now());
    },
  );

  app.delete(
    `${prefix}/coupons/:id`,
    {
      onRequest: authenticate,
      schema: { ...routeSchema, summary: 'Deletes a coupon: it and its codes can no longer be redeemed; redemptions made stay.', params: CouponIdParams, querystring: z.object(token), response: { 200: DeletedCouponSchema, ...errors } },
    },
    async (request, reply) => {
      await ownCoupon(request, reply, request.params.id);
      await deleteCoupon(access.context(services, request), access.organizationOf(request), request.params.id);
      return { id: request.params.id, object: 'coupon' as const, deleted: true as const };
    },
  );

  app.get(
    `${prefix}/promotion_codes`,
    {
      onRequest: authenticate,
      schema: {
        ...routeSchema,
        summary: "The organization's promotion codes, newest first; ?code=, ?coupon=, ?active= filter.",
        querystring: z.object({
          ...paging,
          code: z.string().trim().min(1).max(64).optional().describe('Only the code with this text (case ignored).'),
          coupon: z.string().min(1).max(64).optional(),
          active: z.enum(['true', 'false']).optional(),
        }),
        response: { 200: CodePage, ...errors },
      },
    },
    async (request) => {
      const organizationId = access.organizationOf(request);
      const q = request.query;
      const active = q.active === undefined ? undefined : q.active === 'true';
      const { items, total } = await listPromotionCodes(services.readStore, organizationId, { code: q.code, coupon: q.coupon, active, skip: (q.page - 1) * q.per_page, limit: q.per_page });
      const data = await presentPromotionCodes(services.readStore, organizationId, items, now());
      return page(request, 'promotion_codes', data, total, q, { code: q.code, coupon: q.coupon, active: q.active });
    },
  );

  app.post(
    `${prefix}/promotion_codes`,
    {
      onRequest: authenticate,
      schema: { ...routeSchema, summary: 'Creates a customer-facing code for a coupon.', querystring: z.object(token), body: PromotionCodeCreateBody, response: { 201: PromotionCodeSchema, ...errors } },
    },
    async (request, reply) => {
      const organizationId = access.organizationOf(request);
      const ctx = access.context(services, request);
      if (request.body.expires_at !== undefined && request.body.expires_at <= ctx.metadata.occurred_at) throw fieldError('expires_at', 'The expiry must be in the future.');
      const { id } = await createPromotionCode(ctx, { organizationId, ...request.body });
      reply.code(201);
      const { doc, coupon } = await ownCode(request, reply, id);
      return presentPromotionCode(doc, coupon, now());
    },
  );

  app.get(
    `${prefix}/promotion_codes/:id`,
    { onRequest: authenticate, schema: { ...routeSchema, summary: 'A promotion code, its coupon embedded.', params: PromotionCodeIdParams, querystring: z.object(token), response: { 200: PromotionCodeSchema, ...errors } } },
    async (request, reply) => {
      const { doc, coupon } = await ownCode(request, reply, request.params.id);
      return presentPromotionCode(doc, coupon, now());
    },
  );

  app.post(
    `${prefix}/promotion_codes/:id`,
    {
      onRequest: authenticate,
      schema: { ...routeSchema, summary: 'Turns a code on or off, or updates its metadata.', params: PromotionCodeIdParams, querystring: z.object(token), body: PromotionCodeUpdateBody, response: { 200: PromotionCodeSchema, ...errors } },
    },
    async (request, reply) => {
      await updatePromotionCode(access.context(services, request), access.organizationOf(request), request.params.id, request.body);
      const { doc, coupon } = await ownCode(request, reply, request.params.id);
      return presentPromotionCode(doc, coupon, now());
    },
  );
}
