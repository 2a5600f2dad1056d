import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { invalid } from '../../../platform/domain/index.ts';
import type { CommandContext } from '../../../platform/es/index.ts';
import {
  baseUrl,
  decimalInteger,
  ErrorSchema,
  findOrAwaitStream,
  HttpError,
  notFound,
  pageEnvelope,
  PageLinksSchema,
  PageMetaSchema,
  pageOf,
  RouteKey,
} from '../../../platform/http/index.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { loadProductByRef } from '../../catalog/index.ts';
import { loadUser, requireOrganization, type Role } from '../../identity/index.ts';
import { bearerAccess, manageAccess, requireAuth, type RouteAccess } from '../../oauth/index.ts';
import { invoiceStream } from '../domain/invoiceView.ts';
import { subscriptionStream } from '../domain/subscription.ts';
import { DeletedDiscountSchema, presentInvoice, presentSubscription, SubscriptionSchema, InvoiceResourceSchema } from '../resources.ts';
import { changeToPlan } from '../planSwitch.ts';
import { cancelSubscription, pauseSubscription, reactivateSubscription, removeSubscriptionDiscount, resumeSubscription } from '../subscriptionCommands.ts';
import { INVOICES, SUBSCRIPTIONS, type InvoiceDoc, type SubscriptionDoc } from '../subscriptionProjection.ts';
import { StatementSchema, SubscriptionHistorySchema, SubscriptionMetricsSchema } from './subscriptionSchemas.ts';
import { listInvoices, listSubscriptions, readSubscription, subscriptionHistory, subscriptionMetrics, subscriptionOf, subscriptionStatement, subscriptionTime } from '../subscriptionReads.ts';

export const SUBSCRIPTIONS_PER_PAGE_DEFAULT = 100;
export const SUBSCRIPTIONS_PER_PAGE_MAX = 1000;

const STATUSES = ['incomplete', 'incomplete_expired', 'trialing', 'active', 'past_due', 'unpaid', 'canceled', 'paused'] as const;
const UNIX = decimalInteger(0, 253_402_300_799);
const Params = z.object({ id: RouteKey });
const Item = z.record(z.string(), z.unknown());

const CancelBody = z
  .object({
    at_period_end: z.boolean().default(false).describe('true: at the end of the commitment term (reversible until then with reactivate); false: now.'),
    refund: z.enum(['none', 'prorated']).default('none').describe('With an immediate cancel: refund the unused share of the last paid invoice (owners only).'),
  })
  .strict();
const ChangePlanBody = z
  .object({
    plan: RouteKey.describe("A recurring plan, in the subscription's currency and on its invoice interval, of its product or of `product`."),
    product: RouteKey.optional().describe("The plan's product (its id or UUID), when it is not the subscription's own: a subscription may move to another product, as Stripe's moves to another product's price."),
    proration_behavior: z.enum(['create_prorations', 'always_invoice', 'none']).default('create_prorations'),
  })
  .strict();

type PageAnswer<T> = { data: T[]; meta: Record<string, unknown>; links?: z.infer<typeof PageLinksSchema> };

/** The routes' access, with the person's role and the list envelope (Laravel's links and meta on the bearer API, meta only for the dashboard). */
export type Access = RouteAccess & {
  roleOf(services: Services, request: FastifyRequest): Promise<Role | null>;
  page<T>(services: Services, request: FastifyRequest, path: string, data: T[], total: number, q: { page: number; per_page: number }, query: Record<string, string | undefined>): PageAnswer<T>;
};

export const bearer: Access = {
  ...bearerAccess,
  errors: { 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema, 409: ErrorSchema, 422: ErrorSchema },
  async roleOf(services, request) {
    const auth = requireAuth(request);
    const user = await loadUser(services.store, auth.userId);
    return user && user.memberships.includes(auth.organizationId) ? (user.roles[auth.organizationId] ?? null) : null;
  },
  page(services, request, path, data, total, q, query) {
    const envelope = pageEnvelope({ path: `${baseUrl(services, request)}${path}`, page: q.page, perPage: q.per_page, defaultPerPage: SUBSCRIPTIONS_PER_PAGE_DEFAULT, total, itemCount: data.length, query });
    return { data, ...envelope };
  },
};

export const manage: Access = {
  ...manageAccess,
  roleOf: async (_services, request) => requireOrganization(request).role,
  page: (_services, _request, _path, data, total, q) => pageOf(data, total, q.page, q.per_page),
};

/** Subscriptions, their invoices, history, statement and metrics, and the seller's actions (bearer). */
export const subscriptionRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => routes(app, services, bearer);

/** The same for the dashboard (session cookie). */
export const subscriptionManageRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => routes(app, services, manage);

async function routes(app: Parameters<FastifyPluginAsyncZod>[0], services: Services, access: Access): Promise<void> {
  const { prefix, schema: routeSchema, errors } = access;
  const authenticate = access.onRequest(app);
  const PageQuery = z.object({
    per_page: decimalInteger(1, access === bearer ? SUBSCRIPTIONS_PER_PAGE_MAX : 100).default(access === bearer ? SUBSCRIPTIONS_PER_PAGE_DEFAULT : 25),
    page: decimalInteger(1, 1_000_000).default(1),
    ...(access === bearer ? { api_token: z.string().optional() } : {}),
  });
  const Page = <T extends z.ZodType>(item: T) => z.object({ data: z.array(item), links: PageLinksSchema.optional(), meta: z.union([PageMetaSchema, Item]) });
  const wallNow = () => Math.floor(services.clock() / 1000);

  /** The organization's subscription's log; another organization's or none: 404. */
  const own = async (request: FastifyRequest, id: string) => {
    const log = await readSubscription(services.store, id);
    if (log.organizationId === null || log.organizationId !== access.organizationOf(request)) throw notFound('Subscription');
    return log;
  };

  app.get(
    `${prefix}/subscriptions`,
    {
      onRequest: authenticate,
      schema: {
        ...routeSchema,
        summary: "The organization's subscriptions, newest first, by status and buyer email.",
        querystring: PageQuery.extend({
          status: z.enum(STATUSES).optional(),
          customer_email: z.string().trim().min(1).max(254).optional().describe("The buyer's email, exactly as given at checkout."),
        }),
        response: { 200: Page(SubscriptionSchema), ...errors },
      },
    },
    async (request) => {
      const organizationId = access.organizationOf(request);
      const q = request.query;
      const { items, total } = await listSubscriptions(services.readStore, organizationId, { status: q.status, customerEmail: q.customer_email, skip: (q.page - 1) * q.per_page, limit: q.per_page });
      return access.page(services, request, `${prefix}/subscriptions`, items.map(subscriptionOf), total, q, { status: q.status, customer_email: q.customer_email });
    },
  );

  app.get(
    `${prefix}/subscriptions/:id`,
    { onRequest: authenticate, schema: { ...routeSchema, summary: 'A subscription.', params: Params, response: { 200: SubscriptionSchema, ...errors } } },
    async (request, reply) => {
      const organizationId = access.organizationOf(request);
      const doc = await findOrAwaitStream(services, reply, {
        stream: subscriptionStream(request.params.id),
        find: () => services.readStore.get<SubscriptionDoc>(SUBSCRIPTIONS, request.params.id),
        organizationId,
      });
      if (!doc || doc.organization_id !== organizationId) throw notFound('Subscription');
      return subscriptionOf(doc);
    },
  );

  app.get(
    `${prefix}/subscriptions/:id/history`,
    {
      onRequest: authenticate,
      schema: {
        ...routeSchema,
        summary: 'Audit replay: every event of the subscription with the subscription after it; ?at= (its own time) gives it as it stood then.',
        params: Params,
        querystring: z.object({ at: UNIX.optional(), ...(access === bearer ? { api_token: z.string().optional() } : {}) }),
        response: { 200: SubscriptionHistorySchema, ...errors },
      },
    },
    async (request) => {
      const log = await own(request, request.params.id);
      const at = request.query.at ?? (await subscriptionTime(services.store, log, wallNow()));
      const entries = subscriptionHistory(log).filter((e) => e.at <= at);
      return { subscription_id: request.params.id, at, state: entries.at(-1)?.state ?? null, data: entries };
    },
  );

  app.get(
    `${prefix}/subscriptions/:id/statement`,
    {
      onRequest: authenticate,
      schema: {
        ...routeSchema,
        summary: 'What the customer had been invoiced, paid, credited and owed at as_of (default: now, in the subscription\'s time), each line with its reason.',
        params: Params,
        querystring: z.object({ as_of: UNIX.optional().describe('Unix seconds, in the subscription\'s time (its test clock\'s, if any).'), ...(access === bearer ? { api_token: z.string().optional() } : {}) }),
        response: { 200: StatementSchema, ...errors },
      },
    },
    async (request) => {
      const log = await own(request, request.params.id);
      const asOf = request.query.as_of ?? (await subscriptionTime(services.store, log, wallNow()));
      return { object: 'subscription_statement' as const, ...(await subscriptionStatement(services.store, request.params.id, log, asOf)) };
    },
  );

  /** Runs a seller's action and answers the subscription as the command left it. */
  const action = (name: string, summary: string, body: z.ZodType | null, run: (ctx: CommandContext, id: string, request: FastifyRequest, reply: FastifyReply) => Promise<{ state: Parameters<typeof presentSubscription>[0] | { status: 'none' }; revision: number }>) =>
    app.post(
      `${prefix}/subscriptions/:id/${name}`,
      { onRequest: authenticate, schema: { ...routeSchema, summary, params: Params, ...(body ? { body } : {}), response: { 200: SubscriptionSchema, ...errors } } },
      async (request, reply) => {
        const id = (request.params as { id: string }).id;
        await own(request, id);
        const result = await run(access.context(services, request), id, request, reply);
        if (result.state.status === 'none') throw notFound('Subscription');
        return presentSubscription(result.state, result.revision + 1);
      },
    );

  action('cancel', 'Cancel now, or at the end of the commitment term (at_period_end); an immediate cancel may refund the unused time (refund: prorated, owners only).', CancelBody.optional(), async (ctx, id, request) => {
    const body = CancelBody.parse(request.body ?? {});
    if (body.refund === 'prorated') {
      if (body.at_period_end) throw invalid('refund_at_period_end', 'A prorated refund comes with an immediate cancel only: nothing is unused at the end of the term.', 'refund');
      // Returning money is an owner's decision, as the refund route of the management API.
      if ((await access.roleOf(services, request)) !== 'owner') throw new HttpError(403, 'unauthorized', 'This action is unauthorized.');
    }
    return cancelSubscription(ctx, id, { atPeriodEnd: body.at_period_end, refund: body.refund, requestedBy: 'seller' });
  });
  action('reactivate', 'Undo a cancellation scheduled at period end.', null, (ctx, id) => reactivateSubscription(ctx, id));
  action('pause', 'Pause: no renewal is invoiced and the buyer is not entitled until resumed.', null, (ctx, id) => pauseSubscription(ctx, id));
  action('resume', 'Resume a paused subscription: a new period starts now and is invoiced at once.', null, (ctx, id) => resumeSubscription(ctx, id));
  action('change_plan', 'Move to another recurring plan, of its product or another, in its currency, prorated as proration_behavior says.', ChangePlanBody, async (ctx, id, request) => {
    const body = ChangePlanBody.parse(request.body);
    const log = await own(request, id);
    const created = log.events[0]!;
    if (created.type !== 'SubscriptionCreated') throw notFound('Subscription');
    const current = log.events.reduce((plan, e) => (e.type === 'SubscriptionPlanChanged' ? e.data.to.plan : plan), created.data.plan);
    const product = await loadProductByRef(ctx, created.data.organization_id, body.product ?? current.product_id);
    if (body.product !== undefined && !product) throw invalid('product_not_found', 'No product with this id.', 'product');
    const plan = product?.plans.find((p) => p.id === body.plan);
    if (!product || !plan) throw invalid('plan_not_found', `No plan with this id in ${body.product === undefined ? "the subscription's product" : 'this product'}.`, 'plan');
    if (plan.type !== 'recurring') throw invalid('plan_not_recurring', 'The plan does not renew: a subscription moves only to a recurring plan.', 'plan');
    if (plan.currency_code.toUpperCase() !== created.data.currency.toUpperCase()) throw invalid('plan_other_currency', `The plan is in ${plan.currency_code}; the subscription bills in ${created.data.currency}.`, 'plan');
    return changeToPlan(ctx, id, body.product === undefined ? current.product_id : product.routeKey, plan, body.proration_behavior);
  });

  app.delete(
    `${prefix}/subscriptions/:id/discount`,
    {
      onRequest: authenticate,
      schema: {
        ...routeSchema,
        summary: "Take the subscription's coupon off: the next invoice is at full price; invoices already made keep theirs.",
        params: Params,
        response: { 200: DeletedDiscountSchema, ...errors },
      },
    },
    async (request) => {
      const { id } = request.params;
      await own(request, id);
      const result = await removeSubscriptionDiscount(access.context(services, request), id);
      const removed = result.events.find((e) => e.type === 'SubscriptionDiscountRemoved');
      if (removed?.type !== 'SubscriptionDiscountRemoved') throw notFound('Subscription');
      const d = removed.data.discount;
      return { object: 'discount' as const, deleted: true as const, subscription: id, coupon: d.coupon, promotion_code: d.promotion_code, start: d.start, end: d.end };
    },
  );

  app.get(
    `${prefix}/metrics/subscriptions`,
    {
      onRequest: authenticate,
      schema: {
        ...routeSchema,
        summary: 'MRR (active and past_due, normalised to a month, per currency), subscriptions by status, and new, churned and reactivated in the 30 days before as_of.',
        querystring: z.object({
          as_of: UNIX.optional().describe('Unix seconds; default now.'),
          mode: z.enum(['live', 'test']).default('live'),
          ...(access === bearer ? { api_token: z.string().optional() } : {}),
        }),
        response: { 200: SubscriptionMetricsSchema, ...errors },
      },
    },
    async (request) => {
      const organizationId = access.organizationOf(request);
      const asOf = request.query.as_of ?? wallNow();
      return { object: 'subscription_metrics' as const, mode: request.query.mode, ...(await subscriptionMetrics(services.readStore, organizationId, request.query.mode, asOf)) };
    },
  );

  // The dashboard's invoice routes of the checkout module keep /manage/api/invoices; a subscription's invoices are under it.
  const invoicesPath = access === bearer ? `${prefix}/invoices` : `${prefix}/subscriptions/:subscription/invoices`;
  app.get(
    invoicesPath,
    {
      onRequest: authenticate,
      schema: {
        ...routeSchema,
        summary: access === bearer ? "The organization's invoices (checkouts' and subscriptions'), newest first, by subscription and status." : "A subscription's invoices, newest first, by status.",
        ...(access === bearer ? {} : { params: z.object({ subscription: RouteKey }) }),
        querystring: PageQuery.extend({
          ...(access === bearer ? { subscription: RouteKey.optional() } : {}),
          status: z
            .enum(['draft', 'open', 'paid', 'void', 'uncollectible', 'refunded', 'partially_refunded'])
            .optional()
            .describe('`refunded` and `partially_refunded` pick paid invoices by their `refund_status`.'),
        }),
        response: { 200: Page(InvoiceResourceSchema), ...errors },
      },
    },
    async (request) => {
      const organizationId = access.organizationOf(request);
      const q = request.query as { page: number; per_page: number; status?: string; subscription?: string };
      const inPath = (request.params as { subscription?: string }).subscription;
      // A subscription named in the path is a resource: another organization's is not found. As a filter, it only narrows.
      if (inPath !== undefined) await own(request, inPath);
      const subscription = inPath ?? q.subscription;
      const { items, total } = await listInvoices(services.readStore, organizationId, { subscription, status: q.status, skip: (q.page - 1) * q.per_page, limit: q.per_page });
      return access.page(services, request, access === bearer ? invoicesPath : `${prefix}/subscriptions/${subscription ?? ''}/invoices`, items.map(presentInvoice), total, q, { subscription: q.subscription, status: q.status });
    },
  );

  app.get(
    access === bearer ? `${prefix}/invoices/:id` : `${prefix}/subscriptions/:subscription/invoices/:id`,
    {
      onRequest: authenticate,
      schema: { ...routeSchema, summary: 'An invoice, with its lines (period, proration) and payment attempts.', params: access === bearer ? Params : Params.extend({ subscription: RouteKey }), response: { 200: InvoiceResourceSchema, ...errors } },
    },
    async (request, reply) => {
      const organizationId = access.organizationOf(request);
      const params = request.params as { id: string; subscription?: string };
      const doc = await findOrAwaitStream(services, reply, {
        stream: invoiceStream(params.id),
        find: () => services.readStore.get<InvoiceDoc>(INVOICES, params.id),
        organizationId,
      });
      if (!doc || doc.organization_id !== organizationId || (params.subscription !== undefined && doc.subscription !== params.subscription)) throw notFound('Invoice');
      return presentInvoice(doc);
    },
  );
}
