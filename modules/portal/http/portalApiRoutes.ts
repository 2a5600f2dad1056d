import { randomBytes } from 'node:crypto';
import type { onRequestHookHandler } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { commandContext, ErrorSchema, findOrAwaitStream, notFound, protectedRoute, RouteKey } from '../../../platform/http/index.ts';
import { customerStream } from '../../customers/index.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { publicBaseUrl } from '../../receipts/index.ts';
import { bearerAccess, manageAccess, requireAuth, type RouteAccess } from '../../oauth/index.ts';
import { issuePortalLink, portalLinkPath, PORTAL_SESSION_LINK_SECONDS } from '../portalAccess.ts';
import { buyerById } from '../portalCustomers.ts';
import { changePortalSettings, loadPortalSettings } from '../portalSettings.ts';

const Unix = z.number().int();

/** Stripe's billing portal session, as integrators know it. */
export const PortalSessionSchema = z.object({
  id: z.string().describe('bps_…'),
  object: z.literal('billing_portal.session'),
  customer: z.string().describe('cus_…'),
  url: z.string().describe('The one-time link to send the signed-in user to: it opens the portal once, within 5 minutes; the visit it starts lasts an hour.'),
  return_url: z.string().nullable(),
  created: Unix,
  expires_at: Unix.describe('Until when the link opens the portal.'),
});

const ReturnUrl = z
  .string()
  .max(2048)
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'https:' || url.protocol === 'http:';
    } catch {
      return false;
    }
  }, 'must be an http or https URL');

const PortalSessionBody = z.object({ return_url: ReturnUrl.optional().describe('Where the portal’s “Back” link goes.') }).strict();

export const PortalSettingsSchema = z
  .object({
    magic_link: z.boolean().describe('Buyers may ask for a sign-in link by email at /portal/<organization>.'),
    subscription_cancel: z.boolean().describe('Buyers may cancel a subscription at the end of its period, and take that back.'),
    payment_method_update: z.boolean().describe('Buyers may replace the card a subscription is charged on.'),
    subscription_update: z.boolean().describe('Buyers may move a subscription to another recurring plan of its product, in its currency and on its interval.'),
    subscription_update_products: z
      .array(RouteKey)
      .max(50)
      .default([])
      .describe("Other products (ids or UUIDs; answered as ids) whose plans buyers may move a subscription to as well, as Stripe's `features.subscription_update.products`; empty: its own product's only."),
  })
  .strict();
export type PortalSettingsAnswer = z.infer<typeof PortalSettingsSchema>;

/** Portal sessions, for a seller's app through its API key or OAuth token (`customers:write`); and the portal settings. */
export const portalApiRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.post(
    '/api/customers/:id/portal_sessions',
    {
      onRequest: app.authenticate,
      schema: {
        ...protectedRoute,
        summary: 'A one-time link into the hosted customer portal for this customer, as Stripe’s billing portal session: hand its url to your signed-in user.',
        params: z.object({ id: z.string().regex(/^cus_[A-Za-z0-9]{1,40}$/, 'must be a customer id (cus_…)') }),
        body: PortalSessionBody.optional(),
        response: { 201: PortalSessionSchema, 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema, 422: ErrorSchema },
      },
    },
    async (request, reply) => {
      const organizationId = requireAuth(request).organizationId;
      const buyer = await findOrAwaitStream(services, reply, { stream: customerStream(request.params.id), find: () => buyerById(services, organizationId, request.params.id), organizationId });
      if (!buyer) throw notFound('Customer');
      const id = `bps_${randomBytes(18).toString('base64url')}`;
      const returnUrl = request.body?.return_url ?? null;
      const ctx = commandContext(services, request, organizationId);
      const link = await issuePortalLink(ctx, { organization_id: organizationId, customer: { id: buyer.id }, source: 'portal_session', portal_session_id: id, return_url: returnUrl }, PORTAL_SESSION_LINK_SECONDS);
      return reply
        .code(201)
        .header('cache-control', 'no-store')
        .send({
          id,
          object: 'billing_portal.session' as const,
          customer: buyer.id,
          url: `${publicBaseUrl(services.config)}${portalLinkPath(organizationId, link.token)}`,
          return_url: returnUrl,
          created: link.createdAt,
          expires_at: link.expiresAt,
        });
    },
  );

  settingsRoutes(app, services, { ...bearerAccess, errors: { 401: ErrorSchema, 403: ErrorSchema, 422: ErrorSchema }, write: (app) => app.authenticate });
};

/** The portal settings through the management API (session cookie; owners change them). */
export const portalManageRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  settingsRoutes(app, services, { ...manageAccess, write: (app) => app.authenticateOwner });
};

type App = Parameters<FastifyPluginAsyncZod>[0];
/** `write`: the hook of the route that changes the settings. */
type Access = RouteAccess & { write: (app: App) => onRequestHookHandler };

function settingsRoutes(app: App, services: Services, access: Access): void {
  const path = `${access.prefix}/portal_settings`;
  app.get(
    path,
    { onRequest: access.onRequest(app), schema: { ...access.schema, summary: 'What buyers may do in the hosted customer portal.', response: { 200: PortalSettingsSchema, ...access.errors } } },
    async (request) => loadPortalSettings(services.store, access.organizationOf(request)),
  );
  app.put(
    path,
    {
      onRequest: access.write(app),
      schema: { ...access.schema, summary: 'Set what buyers may do in the hosted customer portal (owners).', body: PortalSettingsSchema, response: { 200: PortalSettingsSchema, ...access.errors } },
    },
    async (request) => changePortalSettings(access.context(services, request), access.organizationOf(request), request.body),
  );
}
