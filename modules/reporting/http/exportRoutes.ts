import { Readable } from 'node:stream';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { invalid } from '../../../platform/domain/index.ts';
import { ErrorSchema, manageErrors, manageRoute, protectedRoute } from '../../../platform/http/index.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { requireOrganization } from '../../identity/index.ts';
import { requireAuth } from '../../oauth/index.ts';
import { csvChunks, EXPORT_KINDS, exportFileName, exportRange, ExportRangeError, RANGE_BOUND, type ExportKind } from '../csvExports.ts';

const Bound = z.string().regex(RANGE_BOUND, 'must be a date (YYYY-MM-DD) or Unix seconds');
/** The range of an export or a report. */
export const ExportQuery = z.object({
  from: Bound.optional().describe("Inclusive: a day (YYYY-MM-DD) in the organization's time zone, or Unix seconds. From the first when absent."),
  to: Bound.optional().describe('A day includes its whole day; Unix seconds are exclusive. Up to now when absent.'),
});
const Csv = z.string().describe('text/csv; charset=utf-8 (RFC 4180): a header line, then one line per row.');

const SUMMARY: Record<ExportKind, string> = {
  sales: 'Completed checkout sessions in a time range, by completion time, as CSV (streamed).',
  invoices: "Invoices (checkouts' and subscriptions') created in a time range, as CSV (streamed).",
  customers: 'Customers made in a time range, a line per currency they paid in, as CSV (streamed).',
};

type RangeQuery = { from?: string | undefined; to?: string | undefined };

/** The range a query names; a bound that is no day or no order is refused on its field. */
export async function requestRange(services: Services, organizationId: string, query: RangeQuery) {
  try {
    return await exportRange(services.store, organizationId, query);
  } catch (error) {
    if (error instanceof ExportRangeError) throw invalid('validation_failed', error.message, error.field);
    throw error;
  }
}

/** Streams the export to the reply: rows are read from the store only as fast as the client takes them. */
async function sendExport(services: Services, reply: FastifyReply, kind: ExportKind, organizationId: string, query: RangeQuery) {
  const range = await requestRange(services, organizationId, query);
  const body = Readable.from(csvChunks(kind, services.readStore, organizationId, range), { objectMode: false });
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${exportFileName(kind, query)}"`)
    // Buyers' emails and names: kept by no cache on the way.
    .header('cache-control', 'no-store')
    .send(body);
}

/** `GET /api/exports/{sales|invoices}.csv` with a bearer credential. */
export const exportRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  for (const kind of EXPORT_KINDS) {
    app.get(
      `/api/exports/${kind}.csv`,
      {
        onRequest: app.authenticate,
        schema: {
          ...protectedRoute,
          summary: SUMMARY[kind],
          querystring: ExportQuery.extend({ api_token: z.string().optional() }),
          response: { 200: Csv, 401: ErrorSchema, 403: ErrorSchema, 422: ErrorSchema },
        },
      },
      async (request, reply) => sendExport(services, reply, kind, requireAuth(request).organizationId, request.query),
    );
  }
};

/** The same exports for the dashboard (its session). */
export const exportManageRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  for (const kind of EXPORT_KINDS) {
    app.get(
      `/manage/api/exports/${kind}.csv`,
      {
        onRequest: app.authenticateSession,
        schema: { ...manageRoute, summary: SUMMARY[kind], querystring: ExportQuery, response: { 200: Csv, ...manageErrors } },
      },
      async (request, reply) => sendExport(services, reply, kind, requireOrganization(request).organizationId, request.query),
    );
  }
};
