import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import { ErrorSchema, manageErrors, manageRoute, protectedRoute } from '../../../platform/http/index.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { requireOrganization } from '../../identity/index.ts';
import { requireAuth } from '../../oauth/index.ts';
import { exportFileName } from '../csvExports.ts';
import { TAX_INTERVALS, taxReportCsv, type TaxInterval } from '../domain/taxReport.ts';
import { taxReport } from '../taxReport.ts';
import { ExportQuery, requestRange } from './exportRoutes.ts';
import { TaxReport } from './reportingSchemas.ts';

const TaxQuery = ExportQuery.extend({
  interval: z.enum(TAX_INTERVALS).default('month').describe("Periods in the organization's time zone."),
  mode: z.enum(['test', 'live']).optional().describe('Only test or only live invoices; both when absent.'),
});
type Query = z.infer<typeof TaxQuery>;

const SUMMARY = 'Tax per period, country, rate, taxability reason and currency: the net and tax of paid invoices less their credit notes.';

async function reportOf(services: Services, organizationId: string, query: Query) {
  const range = await requestRange(services, organizationId, query);
  return taxReport(services, organizationId, { range, interval: query.interval as TaxInterval, mode: query.mode });
}

async function sendCsv(services: Services, reply: FastifyReply, organizationId: string, query: Query) {
  const report = await reportOf(services, organizationId, query);
  return reply
    .header('content-type', 'text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="${exportFileName('tax', query)}"`)
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
