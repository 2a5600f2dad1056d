import { pageEnvelope, PageLinksSchema, PageMetaSchema, baseUrl, notFound, decimalInteger, ErrorSchema, protectedRoute } from '../../../platform/http/index.ts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../platform/runtime/index.ts';
import { sessionHistory, stateAt } from '../sessionHistory.ts';
import { listSessions } from '../checkoutQueries.ts';
import { requireAuth } from '../../oauth/index.ts';
import { SessionIdParams } from './checkoutSchemas.ts';
import { presentSessionResource, SessionResourceSchema } from '../resources.ts';

export const SESSIONS_PER_PAGE_DEFAULT = 250;
export const SESSIONS_PER_PAGE_MAX = 1000;

const ListItem = SessionResourceSchema;

const HistoryState = z.record(z.string(), z.unknown());
const HistoryEntrySchema = z.object({
  revision: z.number().int(),
  type: z.string(),
  stream: z.enum(['session', 'invoice']),
  stream_revision: z.number().int(),
  occurred_at: z.number().int(),
  actor: z.record(z.string(), z.unknown()),
  state: HistoryState,
});

/** Organization-scoped checkout reads for the seller (bearer API key). */
export const checkoutAdminRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/api/checkout/sessions',
    {
      onRequest: app.authenticate,
      schema: {
        ...protectedRoute,
        summary: "The organization's checkout sessions, newest first.",
        querystring: z.object({
          status: z
            .enum(['open', 'completed', 'expired', 'refunded', 'partially_refunded'])
            .optional()
            .describe('`refunded` and `partially_refunded` pick completed sessions by their `refund_status`.'),
          per_page: decimalInteger(1, SESSIONS_PER_PAGE_MAX).default(SESSIONS_PER_PAGE_DEFAULT),
          page: decimalInteger(1, 1_000_000).default(1),
          api_token: z.string().optional(),
        }),
        response: { 200: z.object({ data: z.array(ListItem), links: PageLinksSchema, meta: PageMetaSchema }), 401: ErrorSchema, 422: ErrorSchema },
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const { status, per_page: perPage, page } = request.query;
      const now = Math.floor(services.clock() / 1000);
      const { items, total } = await listSessions(services.readStore, auth.organizationId, {
        ...(status ? { status } : {}),
        now,
        skip: (page - 1) * perPage,
        limit: perPage,
      });
      const envelope = pageEnvelope({
        path: `${baseUrl(services, request)}/api/checkout/sessions`,
        page,
        perPage,
        defaultPerPage: SESSIONS_PER_PAGE_DEFAULT,
        total,
        itemCount: items.length,
        query: { status },
      });
      return {
        data: items.map((doc) => presentSessionResource(doc, now)),
        ...envelope,
      };
    },
  );

  app.get(
    '/api/checkout/sessions/:id/history',
    {
      onRequest: app.authenticate,
      schema: {
        ...protectedRoute,
        summary: 'Audit replay: every event of the session and its invoice with the state after it; ?at= gives the state at a time.',
        params: SessionIdParams,
        querystring: z.object({
          at: decimalInteger(0, 253_402_300_799).optional().describe('Unix seconds.'),
          api_token: z.string().optional(),
        }),
        response: {
          200: z.object({
            session_id: z.string(),
            at: z.number().int(),
            state: HistoryState.nullable(),
            data: z.array(HistoryEntrySchema),
          }),
          401: ErrorSchema,
          404: ErrorSchema,
          422: ErrorSchema,
        },
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const history = await sessionHistory(services.store, request.params.id);
      if (history.organizationId !== auth.organizationId) throw notFound('Checkout session');
      const at = request.query.at ?? Math.floor(services.clock() / 1000);
      return {
        session_id: request.params.id,
        at,
        state: stateAt(history, at),
        data: history.entries.filter((e) => e.occurred_at <= at),
      };
    },
  );
};
