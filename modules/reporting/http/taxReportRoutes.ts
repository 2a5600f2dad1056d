import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { invalid } from '../../../platform/domain/index.ts';
import { ErrorSchema, manageErrors, manageRoute, protectedRoute } from '../../../platform/http/index.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { requireOrganization } from '../../identity/index.ts';
import { requireAuth } from '../../oauth/index.ts';
import { exportRange, ExportRangeError, RANGE_BOUND } from '../csvExports.ts';
import { TAX_INTERVALS, taxReportCsv, type TaxInterval } from '../domain/taxReport.ts';
import { taxReport } from '../taxReport.ts';
import { TaxReport } from './reportingSchemas.ts';

const Bound = z.string().regex(RANGE_BOUND, 'must be a date (YYYY-MM-DD) or Unix seconds');
const TaxQuery = z.object({
  from: Bound.optional().describe("Inclusive: a day (YYYY-MM-DD) in the organization's time zone, or Unix seconds. From the first when absent."),
  to: Bound.optional().describe('A day includes its whole day; Unix seconds are exclusive. Up to now when absent.'),
  interval: z.enum(TAX_INTERVALS).default('month').describe("Periods in the organization's time zone."),
  mode: z.enum(['test', 'live']).optional().describe('Only test or only live invoices; both when absent.'),
});
type Query = z.infer<typeof TaxQuery>;

const SUMMARY = 'Tax per period, country, rate, taxability reason and currency: the net and tax of paid invoices less their credit notes.';

async function reportOf(services: Services, organizationId: string, query: Query) {
  let range;
  try {
    range = await exportRange(services.store, organizationId, query);
  } catch (error) {
    if (error instanceof ExportRangeError) throw invalid('validation_failed', error.message, error.field);
    throw error;
  }
  return taxReport(services, organizationId, { range, interval: query.interval as TaxInterval, mode: query.mode });
}

const fileName = (query: Query) => {
  const part = (v: string | undefined, none: string) => (v === undefined ? none : /^\d+$/.test(v) ? new Date(Number(v) * 1000).toISOString().slice(0, 10) : v);
  return `tax-${part(query.from, 'start')}-${part(query.to, 'now')}.csv`;
};

async function sendCsv(services: Services, reply: FastifyReply, organizationId: string, query: Query) {
  const report = await reportOf(services, organizationId, query);
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${fileName(query)}"`)
    .header('cache-control', 'no-store')
    .send(taxReportCsv(report.data));
}

const Csv = z.string().describe('text/csv; charset=utf-8 (RFC 4180): a header line, then the rows of GET /api/reports/tax.');

/** `GET /api/reports/tax` and `GET /api/exports/tax.csv` with a bearer credential. */
export const taxReportRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/api/reports/tax',
    { onRequest: app.authenticate, schema: { ...protectedRoute, summary: SUMMARY, querystring: TaxQuery, response: { 200: TaxReport, 401: ErrorSchema, 403: ErrorSchema, 422: ErrorSchema } } },
    async (request) => reportOf(services, requireAuth(request).organizationId, request.query),
  );
  app.get(
    '/api/exports/tax.csv',
    {
      onRequest: app.authenticate,
      schema: { ...protectedRoute, summary: `${SUMMARY} As CSV.`, querystring: TaxQuery.extend({ api_token: z.string().optional() }), response: { 200: Csv, 401: ErrorSchema, 403: ErrorSchema, 422: ErrorSchema } },
    },
    async (request, reply) => sendCsv(services, reply, requireAuth(request).organizationId, request.query),
  );
};

/** The same for the dashboard (its session). */
export const taxReportManageRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/manage/api/reports/tax',
    { onRequest: app.authenticateSession, schema: { ...manageRoute, summary: SUMMARY, querystring: TaxQuery, response: { 200: TaxReport, ...manageErrors } } },
    async (request) => reportOf(services, requireOrganization(request).organizationId, request.query),
  );
  app.get(
    '/manage/api/exports/tax.csv',
    { onRequest: app.authenticateSession, schema: { ...manageRoute, summary: `${SUMMARY} As CSV.`, querystring: TaxQuery, response: { 200: Csv, ...manageErrors } } },
    async (request, reply) => sendCsv(services, reply, requireOrganization(request).organizationId, request.query),
  );
};
