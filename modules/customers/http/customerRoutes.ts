import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  baseUrl,
  decimalInteger,
  HttpError,
  readModelsAtHead,
  findOrAwaitStream,
  notFound,
  pageEnvelope,
  PageLinksSchema,
  PageMetaSchema,
  pageOf,
} from '../../../platform/http/index.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { requireOrganization } from '../../identity/index.ts';
import { bearerAccess, manageAccess, type RouteAccess } from '../../oauth/index.ts';
import { customerStream } from '../domain/customer.ts';
import { eraseCustomer } from '../customerErasure.ts';
import { customerHistory } from '../customerHistory.ts';
import { customerInvoices, findCustomer, listCustomers, presentCustomer } from '../customerQueries.ts';
import { CustomerHistorySchema, CustomerIdParams, CustomerInvoicesSchema, CustomerSchema } from './customerSchemas.ts';

export const CUSTOMERS_PER_PAGE_DEFAULT = 100;
export const CUSTOMERS_PER_PAGE_MAX = 1000;

/** Erasing is an owner's: the bearer hook keeps the route to owners already. */
type Access = RouteAccess & { isOwner(request: FastifyRequest): boolean };

const bearer: Access = { ...bearerAccess, isOwner: () => true };
const manage: Access = { ...manageAccess, isOwner: (request) => requireOrganization(request).role === 'owner' };

/** Customers, one and their history (bearer). */
export const customerRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => routes(app, services, bearer);

/** The same for the dashboard. */
export const customerManageRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => routes(app, services, manage);

async function routes(app: Parameters<FastifyPluginAsyncZod>[0], services: Services, access: Access): Promise<void> {
  const { prefix, schema: routeSchema, errors } = access;
  const authenticate = access.onRequest(app);
  const token = access.bearer ? { api_token: z.string().optional() } : {};
  const PageQuery = z.object({
    per_page: decimalInteger(1, access.bearer ? CUSTOMERS_PER_PAGE_MAX : 100).default(access.bearer ? CUSTOMERS_PER_PAGE_DEFAULT : 25),
    page: decimalInteger(1, 1_000_000).default(1),
    email: z.string().trim().min(1).max(254).optional().describe('Only the customer with this email (case and surrounding spaces ignored).'),
    mode: z.enum(['test', 'live']).optional().describe('Only test or live customers (as Stripe, a person buying in both is two customers).'),
    ...token,
  });
  const Page = z.object({ data: z.array(CustomerSchema), links: PageLinksSchema.optional(), meta: z.union([PageMetaSchema, z.record(z.string(), z.unknown())]) });

  /** The organization's customer; another organization's or none: 404, alike. */
  const own = async (request: FastifyRequest, reply: FastifyReply, id: string) => {
    const organizationId = access.organizationOf(request);
    const doc = await findOrAwaitStream(services, reply, { stream: customerStream(id), find: () => findCustomer(services.readStore, id), organizationId });
    if (!doc || doc.organization_id !== organizationId) throw notFound('Customer');
    return doc;
  };

  app.get(
    `${prefix}/customers`,
    {
      onRequest: authenticate,
      schema: { ...routeSchema, summary: "The organization's customers, newest first; ?email= finds one.", querystring: PageQuery, response: { 200: Page, ...errors } },
    },
    async (request) => {
      const organizationId = access.organizationOf(request);
      const q = request.query;
      const { items, total } = await listCustomers(services.readStore, organizationId, { email: q.email, mode: q.mode, skip: (q.page - 1) * q.per_page, limit: q.per_page });
      const data = items.map(presentCustomer);
      if (!access.bearer) return pageOf(data, total, q.page, q.per_page);
      const envelope = pageEnvelope({
        path: `${baseUrl(services, request)}${prefix}/customers`,
        page: q.page,
        perPage: q.per_page,
        defaultPerPage: CUSTOMERS_PER_PAGE_DEFAULT,
        total,
        itemCount: data.length,
        query: { email: q.email, mode: q.mode },
      });
      return { data, ...envelope };
    },
  );

  app.get(
    `${prefix}/customers/:id`,
    {
      onRequest: authenticate,
      schema: { ...routeSchema, summary: 'A customer, with counts and sums per currency.', params: CustomerIdParams, querystring: z.object(token), response: { 200: CustomerSchema, ...errors } },
    },
    async (request, reply) => presentCustomer(await own(request, reply, request.params.id)),
  );

  app.get(
    `${prefix}/customers/:id/history`,
    {
      onRequest: authenticate,
      schema: {
        ...routeSchema,
        summary: "Every event of the customer's sessions, invoices and subscriptions, in order.",
        params: CustomerIdParams,
        querystring: z.object(token),
        response: { 200: CustomerHistorySchema, ...errors },
      },
    },
    async (request, reply) => {
      const doc = await own(request, reply, request.params.id);
      return { customer_id: doc.id, data: await customerHistory(services.store, services.readStore, doc.id) };
    },
  );

  app.get(
    `${prefix}/customers/:id/invoices`,
    {
      onRequest: authenticate,
      schema: {
        ...routeSchema,
        summary: 'The invoices made out to the customer, newest first, with what was paid and refunded of each.',
        params: CustomerIdParams,
        querystring: z.object(token),
        response: { 200: CustomerInvoicesSchema, ...errors },
      },
    },
    async (request, reply) => {
      const doc = await own(request, reply, request.params.id);
      return { data: await customerInvoices(services.readStore, doc.id) };
    },
  );

  app.post(
    `${prefix}/customers/:id/redact`,
    {
      onRequest: authenticate,
      schema: {
        ...routeSchema,
        summary: "Erases the customer's personal data (GDPR): owners only; totals and invoice numbers stay. See docs/customers.md for what remains.",
        params: CustomerIdParams,
        querystring: z.object(token),
        response: { 200: CustomerSchema, ...errors },
      },
    },
    async (request, reply) => {
      if (!access.isOwner(request)) throw new HttpError(403, 'unauthorized', 'This action is unauthorized.');
      const doc = await own(request, reply, request.params.id);
      const ctx = access.context(services, request);
      await eraseCustomer(ctx, services, doc.id, () => readModelsAtHead(services, 10_000));
      const after = await findCustomer(services.readStore, doc.id);
      return presentCustomer(after ?? doc);
    },
  );
}
