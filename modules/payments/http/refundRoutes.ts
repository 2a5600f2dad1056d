import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import type { Services } from '../../../platform/runtime/index.ts';
import { commandContext, ErrorSchema, protectedRoute } from '../../../platform/http/index.ts';
import { requireAuth } from '../../oauth/index.ts';
import { refundInvoice } from '../livePayments.ts';
import { Refund, RefundBody, RefundParams } from './paymentSchemas.ts';

/**
 * Refunds for integrators and the CLI (bearer, owners' credentials): the same refund as the
 * dashboard's, so Stripe is called by the service that holds the organization's keys.
 */
export const refundRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.post(
    '/api/invoices/:id/refunds',
    {
      onRequest: app.authenticate,
      schema: {
        ...protectedRoute,
        summary: 'Refund a paid invoice in full, or `amount` of it (owners): through Stripe for a live payment; makes a credit note.',
        params: RefundParams,
        body: RefundBody,
        response: { 200: Refund, 401: ErrorSchema, 403: ErrorSchema, 404: ErrorSchema, 409: ErrorSchema, 422: ErrorSchema, 502: ErrorSchema },
      },
    },
    async (request) => {
      const { organizationId } = requireAuth(request);
      return refundInvoice(commandContext(services, request, organizationId), services, organizationId, request.params.id, request.body?.amount ?? null, undefined, request.body?.reason ?? null);
    },
  );
};
