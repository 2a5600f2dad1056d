import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findOrAwaitStream, notFound } from '../../../platform/http/index.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { bearerAccess, manageAccess, routeListing, type RouteAccess } from '../../oauth/index.ts';
import { licenseKeyStream } from '../domain/licenseKey.ts';
import { ownLicenseKey, setLicenseKeyDisabled } from '../licenseCommands.ts';
import { findLicenseKey, listLicenseKeys, openLicenseKey, presentLicenseKey } from '../licenseKeyQueries.ts';
import { LicenseKeyIdParams, LicenseKeySchema, LicenseStatusSchema } from './licenseSchemas.ts';

export const PER_PAGE_DEFAULT = 100;
export const PER_PAGE_MAX = 1000;

export const licenseKeyRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => routes(app, services, bearerAccess);
export const licenseKeyManageRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => routes(app, services, manageAccess);

async function routes(app: Parameters<FastifyPluginAsyncZod>[0], services: Services, access: RouteAccess): Promise<void> {
  const { prefix, schema: routeSchema, errors } = access;
  const authenticate = access.onRequest(app);
  const { token, paging, page, pageSchema } = routeListing(access, services, { default: PER_PAGE_DEFAULT, max: PER_PAGE_MAX });
  const now = () => Math.floor(services.clock() / 1000);
  const Page = pageSchema(LicenseKeySchema);

  /** The organization's key from the read model, once it has caught up with the key's stream; another organization's or none: 404, alike. */
  const ownDoc = async (request: FastifyRequest, reply: FastifyReply, id: string, fresh = false) => {
    const organizationId = access.organizationOf(request);
    const find = () => findLicenseKey(services.readStore, organizationId, id);
    const doc = await findOrAwaitStream(services, reply, { stream: licenseKeyStream(id), find, organizationId, ...(fresh ? { ready: () => false } : {}) });
    if (!doc) throw notFound('License key');
    return doc;
  };

  app.get(
    `${prefix}/license_keys`,
    {
      onRequest: authenticate,
      schema: {
        ...routeSchema,
        summary: "The organization's license keys, newest first; ?benefit=, ?customer=, ?status= filter.",
        querystring: z.object({ ...paging, benefit: z.string().min(1).max(100).optional(), customer: z.string().min(1).max(100).optional(), status: LicenseStatusSchema.optional() }),
        response: { 200: Page, ...errors },
      },
    },
    async (request) => {
      const q = request.query;
      const at = now();
      const { items, total } = await listLicenseKeys(services.readStore, access.organizationOf(request), { benefit: q.benefit, customer: q.customer, status: q.status, now: at, skip: (q.page - 1) * q.per_page, limit: q.per_page });
      const data = items.map((d) => presentLicenseKey(d, at));
      return page(request, 'license_keys', data, total, q, { benefit: q.benefit, customer: q.customer, status: q.status });
    },
  );

  app.get(
    `${prefix}/license_keys/:id`,
    { onRequest: authenticate, schema: { ...routeSchema, summary: 'A license key, with the key itself and its activations.', params: LicenseKeyIdParams, querystring: z.object(token), response: { 200: LicenseKeySchema, ...errors } } },
    async (request, reply) => {
      const doc = await ownDoc(request, reply, request.params.id);
      return presentLicenseKey(doc, now(), openLicenseKey(services, doc));
    },
  );

  for (const action of ['disable', 'enable'] as const) {
    app.post(
      `${prefix}/license_keys/:id/${action}`,
      {
        onRequest: authenticate,
        schema: {
          ...routeSchema,
          summary:
            action === 'disable'
              ? 'Disables a license key: activation and validation answer `disabled` until it is enabled.'
              : 'Enables a key the seller disabled (a key whose grant is revoked: 409 `grant_revoked`).',
          params: LicenseKeyIdParams,
          querystring: z.object(token),
          response: { 200: LicenseKeySchema, 409: errors[404]!, ...errors },
        },
      },
      async (request, reply) => {
        const organizationId = access.organizationOf(request);
        const { id } = request.params;
        // Decided on the key's stream: another organization's key is not found, as a missing one.
        if (!(await ownLicenseKey(services.store, organizationId, id))) throw notFound('License key');
        await setLicenseKeyDisabled(access.context(services, request), id, action === 'disable');
        const doc = await ownDoc(request, reply, id, true);
        return presentLicenseKey(doc, now());
      },
    );
  }
}
