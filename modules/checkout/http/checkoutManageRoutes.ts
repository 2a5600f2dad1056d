import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../platform/runtime/index.ts';
import { sessionHistory } from '../sessionHistory.ts';
import { CHECKOUT_INVOICES, CHECKOUT_SESSIONS, checkoutProjection, type SessionDoc } from '../checkoutProjection.ts';
import type { Filter, Range } from '../../../platform/readStore/index.ts';
import { notFound, decimalInteger, pageOf, PageQuery, manageErrors, manageRoute, findOrAwaitStream } from '../../../platform/http/index.ts';
import { requireOrganization } from '../../identity/index.ts';
import { type ManagedSessionSchema, presentSession, SessionIdParams, sessionOfferRef } from './checkoutSchemas.ts';
import { invoiceStream } from '../domain/invoice.ts';
import { invoicePricing } from './pricingSchemas.ts';

const UNIX = decimalInteger(0, 253_402_300_799);

const ListQuery = PageQuery.extend({
  email: z.string().trim().min(1).max(254).optional().describe("The buyer's email, exactly as given at checkout."),
  created_from: UNIX.optional().describe('Unix seconds, inclusive.'),
  created_to: UNIX.optional().describe('Unix seconds, exclusive.'),
});
const REFUNDED = ['refunded', 'partially_refunded'] as const;
const SessionListQuery = ListQuery.extend({
  status: z.enum(['open', 'completed', 'expired', ...REFUNDED]).optional().describe('`refunded` and `partially_refunded` pick completed sessions by their refund status.'),
});
const InvoiceListQuery = ListQuery.extend({
  status: z.enum(['open', 'paid', 'void', ...REFUNDED]).optional().describe('`refunded` and `partially_refunded` pick paid invoices by their refund status.'),
});
const isRefundFilter = (status: string | undefined): status is (typeof REFUNDED)[number] => (REFUNDED as readonly string[]).includes(status ?? '');

const Item = z.record(z.string(), z.unknown());
const Page = z.object({ data: z.array(Item), meta: z.record(z.string(), z.unknown()) });

const created = (q: { created_from?: number | undefined; created_to?: number | undefined }): Filter => {
  const range: Range = {};
  if (q.created_from !== undefined) range.$gte = q.created_from;
  if (q.created_to !== undefined) range.$lt = q.created_to;
  return Object.keys(range).length ? { created_at: range } : {};
};

const listItem = (doc: SessionDoc, now: number): z.infer<typeof ManagedSessionSchema> => ({
  ...presentSession(doc, now),
  created_at: doc.created_at,
  customer: doc.customer,
  customer_id: doc.customer_id ?? null,
  offer: sessionOfferRef(doc),
});

/** Checkout sessions and invoices of the organization, from the checkout read model's indexes. */
export const checkoutManageRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  // Totals per filter, kept while the checkout projection's checkpoint stands still: counting
  // 100,000 sessions on every page request would make a page's cost grow with the data.
  const totals = new Map<string, { at: number | null; total: number }>();
  const countOf = async (filter: Filter) => {
    const at = services.projections?.checkpointOf(checkoutProjection.name);
    const key = JSON.stringify(filter);
    const known = totals.get(key);
    if (at !== undefined && known && known.at === at) return known.total;
    const total = await services.readStore.count(CHECKOUT_SESSIONS, filter);
    if (at !== undefined) {
      if (totals.size >= 1000) totals.clear();
      totals.set(key, { at, total });
    }
    return total;
  };
  /**
   * Newest first, ties by id. A page in the older half is read from the other end (oldest first,
   * then reversed), so the last page costs what the first does rather than an OFFSET past every
   * newer session.
   */
  const page = async (filter: Filter, q: { page: number; per_page: number }) => {
    const total = await countOf(filter);
    const skip = (q.page - 1) * q.per_page;
    if (skip >= total) return { items: [], total };
    if (skip * 2 < total) {
      const items = await services.readStore.find<SessionDoc>(CHECKOUT_SESSIONS, { filter, sort: [['created_at', -1], ['id', -1]], skip, limit: q.per_page });
      return { items, total };
    }
    const end = Math.min(total, skip + q.per_page);
    const items = await services.readStore.find<SessionDoc>(CHECKOUT_SESSIONS, { filter, sort: [['created_at', 1], ['id', 1]], skip: total - end, limit: end - skip });
    return { items: items.reverse(), total };
  };
  const nowSeconds = () => Math.floor(services.clock() / 1000);

  app.get(
    '/manage/api/checkout/sessions',
    {
      onRequest: app.authenticateSession,
      schema: { ...manageRoute, summary: 'Checkout sessions, newest first, by status, buyer email and creation time.', querystring: SessionListQuery, response: { 200: Page, ...manageErrors } },
    },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const q = request.query;
      const now = nowSeconds();
      const filter: Filter = { organization_id: organizationId, ...created(q) };
      if (q.email) filter['customer.email'] = q.email;
      if (q.status === 'open') filter.open_until = { $gt: now };
      else if (q.status === 'expired') filter.open_until = { $lte: now };
      else if (q.status === 'completed') filter.status = 'completed';
      else if (isRefundFilter(q.status)) filter['invoice.refund_status'] = q.status;
      const { items, total } = await page(filter, q);
      return pageOf(items.map((d) => listItem(d, now)), total, q.page, q.per_page);
    },
  );

  app.get(
    '/manage/api/checkout/sessions/:id',
    {
      onRequest: app.authenticateSession,
      schema: { ...manageRoute, summary: 'A checkout session with its audit history (every event, its actor and the state after it).', params: SessionIdParams, response: { 200: Item, ...manageErrors } },
    },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const history = await sessionHistory(services.store, request.params.id);
      const last = history.entries.at(-1);
      if (history.organizationId !== organizationId || !last) throw notFound('Checkout session');
      return { ...last.state, history: history.entries };
    },
  );

  app.get(
    '/manage/api/invoices',
    {
      onRequest: app.authenticateSession,
      schema: { ...manageRoute, summary: 'Invoices (with their session), newest first, by status, buyer email and creation time of the session.', querystring: InvoiceListQuery, response: { 200: Page, ...manageErrors } },
    },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const q = request.query;
      const filter: Filter = { organization_id: organizationId, 'invoice.number': { $gt: 0 }, ...created(q) };
      if (q.email) filter['customer.email'] = q.email;
      if (isRefundFilter(q.status)) filter['invoice.refund_status'] = q.status;
      else if (q.status) filter['invoice.status'] = q.status;
      const { items, total } = await page(filter, q);
      const now = nowSeconds();
      return pageOf(items.map((d) => ({ ...d.invoice!, ...invoicePricing(d.invoice!.pricing, d.invoice!.total), session: listItem(d, now) })), total, q.page, q.per_page);
    },
  );

  app.get(
    '/manage/api/invoices/:id',
    {
      onRequest: app.authenticateSession,
      schema: { ...manageRoute, summary: "An invoice with its session's audit history.", params: SessionIdParams, response: { 200: Item, ...manageErrors } },
    },
    async (request, reply) => {
      const { organizationId } = requireOrganization(request);
      const invoiceId = request.params.id;
      const link = await findOrAwaitStream(services, reply, {
        stream: invoiceStream(invoiceId),
        find: () => services.readStore.get<{ id: string; session_id: string }>(CHECKOUT_INVOICES, invoiceId),
        organizationId,
      });
      const history = link ? await sessionHistory(services.store, link.session_id) : null;
      const last = history?.entries.at(-1);
      if (!history || history.organizationId !== organizationId || !last?.state.invoice) throw notFound('Invoice');
      const invoice = last.state.invoice;
      return { ...invoice, ...invoicePricing(invoice.pricing, invoice.total), session_id: last.state.id, history: history.entries };
    },
  );
};
