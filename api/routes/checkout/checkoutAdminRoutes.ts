import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../app/services.ts';
import { sessionHistory, stateAt } from '../../../commands/checkout/sessionHistory.ts';
import { listSessions } from '../../../projections/checkout/checkoutQueries.ts';
import { baseUrl } from '../../context.ts';
import { notFound } from '../../errors.ts';
import { requireAuth } from '../../plugins/auth.ts';
import { ErrorSchema, protectedRoute } from '../schemas.ts';
import { OfferRefSchema, SessionIdParams, SessionSchema, presentSession, sessionOfferRef } from './checkoutSchemas.ts';

export const SESSIONS_PER_PAGE_DEFAULT = 250;
export const SESSIONS_PER_PAGE_MAX = 1000;

const ListItem = SessionSchema.extend({ created_at: z.number().int(), offer: OfferRefSchema });
const Links = z.object({ first: z.string(), last: z.string(), prev: z.string().nullable(), next: z.string().nullable() });
const Meta = z.object({
  current_page: z.number().int(),
  from: z.number().int().nullable(),
  last_page: z.number().int(),
  path: z.string(),
  per_page: z.number().int(),
  to: z.number().int().nullable(),
  total: z.number().int(),
});

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
      preHandler: app.authenticate,
      schema: {
        ...protectedRoute,
        summary: "The organization's checkout sessions, newest first.",
        querystring: z.object({
          status: z.enum(['open', 'completed', 'expired']).optional(),
          per_page: z.coerce.number().int().min(1).max(SESSIONS_PER_PAGE_MAX).default(SESSIONS_PER_PAGE_DEFAULT),
          page: z.coerce.number().int().min(1).max(1_000_000).default(1),
          api_token: z.string().optional(),
        }),
        response: { 200: z.object({ data: z.array(ListItem), links: Links, meta: Meta }), 401: ErrorSchema, 422: ErrorSchema },
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
      const lastPage = Math.max(1, Math.ceil(total / perPage));
      const path = `${baseUrl(services, request)}/api/checkout/sessions`;
      const link = (p: number) => {
        const params = new URLSearchParams();
        if (status) params.set('status', status);
        if (perPage !== SESSIONS_PER_PAGE_DEFAULT) params.set('per_page', String(perPage));
        params.set('page', String(p));
        return `${path}?${params.toString()}`;
      };
      const from = items.length > 0 ? (page - 1) * perPage + 1 : null;
      return {
        data: items.map((doc) => ({ ...presentSession(doc, now), created_at: doc.created_at, offer: sessionOfferRef(doc) })),
        links: {
          first: link(1),
          last: link(lastPage),
          prev: page > 1 ? link(Math.min(page - 1, lastPage)) : null,
          next: page < lastPage ? link(page + 1) : null,
        },
        meta: {
          current_page: page,
          from,
          last_page: lastPage,
          path,
          per_page: perPage,
          to: from === null ? null : from + items.length - 1,
          total,
        },
      };
    },
  );

  app.get(
    '/api/checkout/sessions/:id/history',
    {
      preHandler: app.authenticate,
      schema: {
        ...protectedRoute,
        summary: 'Audit replay: every event of the session and its invoice with the state after it; ?at= gives the state at a time.',
        params: SessionIdParams,
        querystring: z.object({
          at: z.coerce.number().int().min(0).max(253_402_300_799).optional().describe('Unix seconds.'),
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
