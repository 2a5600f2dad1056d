import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../platform/runtime/index.ts';
import { OfferImport } from '../offerImport.ts';
import { changeOfferStatus, loadOrganizationOffer, offerPlanContent, saveOffer, type KnownOffer } from '../offerManagement.ts';
import { encodeRouteKey } from '../../../platform/lib/index.ts';
import { OFFERS, type OfferDoc } from '../checkoutProjection.ts';
import { findOfferByRef } from '../checkoutQueries.ts';
import { offerUuidOfRef } from '../offerCommands.ts';
import { HttpError, notFound, manageContext, pageOf, PageQuery, manageErrors, manageRoute } from '../../../platform/http/index.ts';
import { requireOrganization } from '../../identity/index.ts';

const P = '/manage/api/offers';
const Params = z.object({ offer: z.string().min(1).max(100).regex(/^[A-Za-z0-9-]+$/, 'must be an offer slug, route key or UUID') });
const Offer = z.record(z.string(), z.unknown());

/** An offer as the management routes answer it (the route's schema leaves it an open record). */
export type ManagedOffer = ReturnType<typeof view>;

const view = (o: KnownOffer) => ({
  id: encodeRouteKey(o.id),
  uuid: o.uuid,
  slug: o.slug,
  name: o.name,
  status: o.status,
  theme: o.theme,
  pages: o.pages,
  plan: o.plan,
  price: o.price,
  currency: o.currency,
  success_url: o.success_url ?? null,
  cancel_url: o.cancel_url ?? null,
  shop_url: o.shop_url ?? null,
  trial_period_days: o.trial_period_days ?? null,
  coupon: o.coupon ?? null,
  allowed_redirect_origins: o.allowed_redirect_origins ?? [],
  published_at: o.publishedAt,
  archived_at: o.archivedAt,
});

/** Offers: the import's validation and commands, with the signed-in person as actor. */
export const offerRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  // The log first, as for products (productRoutes.ts); loadOrganizationOffer checks the organization.
  const resolve = async (organizationId: string, ref: string) => {
    const fromLog = await offerUuidOfRef(services, ref);
    if (fromLog !== null) return fromLog;
    const doc = await findOfferByRef(services.readStore, ref);
    if (!doc || doc.organization_id !== organizationId) throw notFound('Offer');
    return doc.id;
  };

  app.get(
    P,
    { onRequest: app.authenticateSession, schema: { ...manageRoute, summary: 'Offers of the organization, in creation order.', querystring: PageQuery, response: { 200: z.object({ data: z.array(Offer), meta: Offer }), ...manageErrors } } },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const { page, per_page } = request.query;
      const filter = { organization_id: organizationId };
      const [items, total] = await Promise.all([
        services.readStore.find<OfferDoc>(OFFERS, { filter, sort: [['number', 1]], skip: (page - 1) * per_page, limit: per_page }),
        services.readStore.count(OFFERS, filter),
      ]);
      return pageOf(items.map(({ id: _uuid, route_key, organization_id: _o, number: _n, ...rest }) => ({ ...rest, id: route_key })), total, page, per_page);
    },
  );

  app.post(
    P,
    {
      onRequest: app.authenticateSession,
      schema: { ...manageRoute, summary: 'Create an offer (or update the one with this slug), as `commerce import` does: 201 when created.', body: OfferImport, response: { 200: Offer, 201: Offer, ...manageErrors } },
    },
    async (request, reply) => {
      const { organizationId } = requireOrganization(request);
      const { slug, published, ...input } = request.body;
      const content = await offerPlanContent(services, organizationId, input);
      const saved = await saveOffer(manageContext(services, request), organizationId, slug, content, published);
      return reply.code(saved.created ? 201 : 200).send(view(saved.offer));
    },
  );

  app.get(
    `${P}/:offer`,
    { onRequest: app.authenticateSession, schema: { ...manageRoute, summary: 'An offer by route key, UUID or slug.', params: Params, response: { 200: Offer, ...manageErrors } } },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const uuid = await resolve(organizationId, request.params.offer);
      return view(await loadOrganizationOffer(manageContext(services, request), organizationId, uuid));
    },
  );

  app.put(
    `${P}/:offer`,
    {
      onRequest: app.authenticateSession,
      schema: { ...manageRoute, summary: "Edit an offer's name, plan, theme, pages, redirect URLs and allowed redirect origins (its slug stays; a field left out is removed).", params: Params, body: OfferImport, response: { 200: Offer, ...manageErrors } },
    },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const uuid = await resolve(organizationId, request.params.offer);
      const ctx = manageContext(services, request);
      const current = await loadOrganizationOffer(ctx, organizationId, uuid);
      const { slug, published, ...input } = request.body;
      if (slug !== current.slug) {
        const message = 'The slug of an offer cannot change.';
        throw new HttpError(422, 'validation_failed', message, { slug: [message] });
      }
      const content = await offerPlanContent(services, organizationId, input);
      return view((await saveOffer(ctx, organizationId, slug, content, published)).offer);
    },
  );

  for (const action of ['publish', 'archive'] as const) {
    app.post(
      `${P}/:offer/${action}`,
      { onRequest: app.authenticateSession, schema: { ...manageRoute, summary: `${action === 'publish' ? 'Publish' : 'Archive'} an offer.`, params: Params, response: { 200: Offer, ...manageErrors } } },
      async (request) => {
        const { organizationId } = requireOrganization(request);
        const uuid = await resolve(organizationId, request.params.offer);
        return view(await changeOfferStatus(manageContext(services, request), organizationId, uuid, action));
      },
    );
  }
};
