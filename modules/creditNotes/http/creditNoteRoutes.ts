import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { Services } from '../../../platform/runtime/index.ts';
import { baseUrl, decimalInteger, ErrorSchema, manageErrors, manageRoute, notFound, pageEnvelope, PageLinksSchema, PageMetaSchema, pageOf, PageQuery, protectedRoute } from '../../../platform/http/index.ts';
import { requireAuth } from '../../oauth/index.ts';
import { addressLines, loadOrganization, requireOrganization } from '../../identity/index.ts';
import { sellerHeader } from '../../receipts/index.ts';
import { findCreditNote, listCreditNotes, presentCreditNote, type CreditNoteDoc } from '../creditNoteProjection.ts';
import { creditNotePdf } from './creditNotePdf.ts';
import { CreditNoteSchema } from './creditNoteSchemas.ts';

const PER_PAGE_DEFAULT = 100;
const PER_PAGE_MAX = 1000;
const InvoiceId = z.string().regex(/^in_[A-Za-z0-9_-]{1,64}$/, 'must be an invoice id (in_…)');
const Params = z.object({ id: z.string().regex(/^cn_[A-Za-z0-9]{1,64}$/, 'must be a credit note id (cn_…)') });

/** The credit note as a PDF, with the seller as the organization names itself now. */
export async function sendCreditNotePdf(services: Services, reply: FastifyReply, doc: CreditNoteDoc): Promise<FastifyReply> {
  const org = await loadOrganization(services.store, doc.organization_id);
  const header = await sellerHeader(services, doc.organization_id);
  const pdf = await creditNotePdf(presentCreditNote(doc), { name: org?.name ?? '', address: org ? addressLines(org.address) : [] }, header?.draw);
  return reply.type('application/pdf').header('cache-control', 'private, no-store').header('content-disposition', `inline; filename="credit-note-${doc.number}.pdf"`).send(pdf);
}

/** Credit notes for integrators (bearer): the list, by invoice, one, and its PDF. */
export const creditNoteRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/api/credit_notes',
    {
      onRequest: app.authenticate,
      schema: {
        ...protectedRoute,
        summary: "The organization's credit notes, in the order they were numbered; one made per refund.",
        querystring: z.object({
          invoice: InvoiceId.optional().describe("Only this invoice's."),
          per_page: decimalInteger(1, PER_PAGE_MAX).default(PER_PAGE_DEFAULT),
          page: decimalInteger(1, 1_000_000).default(1),
        }),
        response: { 200: z.object({ data: z.array(CreditNoteSchema), links: PageLinksSchema, meta: PageMetaSchema }), 401: ErrorSchema, 422: ErrorSchema },
      },
    },
    async (request) => {
      const { organizationId } = requireAuth(request);
      const { invoice, per_page: perPage, page } = request.query;
      const { items, total } = await listCreditNotes(services.readStore, organizationId, { invoice, skip: (page - 1) * perPage, limit: perPage });
      const envelope = pageEnvelope({ path: `${baseUrl(services, request)}/api/credit_notes`, page, perPage, defaultPerPage: PER_PAGE_DEFAULT, total, itemCount: items.length, query: { invoice } });
      return { data: items.map(presentCreditNote), ...envelope };
    },
  );

  app.get(
    '/api/credit_notes/:id',
    {
      onRequest: app.authenticate,
      schema: { ...protectedRoute, summary: 'A credit note.', params: Params, response: { 200: CreditNoteSchema, 401: ErrorSchema, 404: ErrorSchema, 422: ErrorSchema } },
    },
    async (request) => {
      const doc = await findCreditNote(services.readStore, requireAuth(request).organizationId, request.params.id);
      if (!doc) throw notFound('Credit note');
      return presentCreditNote(doc);
    },
  );

  app.get(
    '/api/credit_notes/:id/pdf',
    { onRequest: app.authenticate, schema: { ...protectedRoute, summary: 'A credit note as a PDF.', params: Params } },
    async (request, reply) => {
      const doc = await findCreditNote(services.readStore, requireAuth(request).organizationId, request.params.id);
      if (!doc) throw notFound('Credit note');
      return sendCreditNotePdf(services, reply, doc);
    },
  );
};

/** The dashboard's: an invoice's credit notes and their PDFs. */
export const creditNoteManageRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/manage/api/credit_notes',
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: 'Credit notes, in the order they were numbered, of one invoice when given.',
        querystring: PageQuery.extend({ invoice: InvoiceId.optional() }),
        response: { 200: z.object({ data: z.array(CreditNoteSchema), meta: z.record(z.string(), z.unknown()) }), ...manageErrors },
      },
    },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const q = request.query;
      const { items, total } = await listCreditNotes(services.readStore, organizationId, { invoice: q.invoice, skip: (q.page - 1) * q.per_page, limit: q.per_page });
      return pageOf(items.map(presentCreditNote), total, q.page, q.per_page);
    },
  );

  app.get(
    '/manage/api/credit_notes/:id/pdf',
    { onRequest: app.authenticateSession, schema: { ...manageRoute, summary: 'A credit note as a PDF.', params: Params } },
    async (request, reply) => {
      const doc = await findCreditNote(services.readStore, requireOrganization(request).organizationId, request.params.id);
      if (!doc) throw notFound('Credit note');
      return sendCreditNotePdf(services, reply, doc);
    },
  );
};
