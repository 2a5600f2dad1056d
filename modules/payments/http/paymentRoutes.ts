import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../platform/runtime/index.ts';
import { refundInvoice } from '../livePayments.ts';
import { connectStripe, disconnectStripe, loadStripeAccount, stripeSecrets, summarize } from '../stripeAccountCommands.ts';
import { baseUrl, ErrorSchema, manageContext, manageErrors, manageRoute } from '../../../platform/http/index.ts';
import { requireOrganization, requireOwner } from '../../identity/index.ts';
import { Refund, RefundBody, RefundParams, StripeAccount } from './paymentSchemas.ts';

const P = '/manage/api';

const ConnectBody = z.object({
  secret_key: z.string().trim().min(1).max(255).describe('A secret (sk_…) or restricted (rk_…) key. Restricted keys need PaymentIntents, Charges and Refunds write access.'),
  publishable_key: z.string().trim().min(1).max(255),
  webhook_secret: z.string().trim().min(1).max(255).describe("The webhook endpoint's signing secret (whsec_…)."),
});


/** The organization's payment provider settings (Stripe) and refunds; owners change them. */
export const paymentRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const webhookUrl = (request: Parameters<typeof baseUrl>[1], organizationId: string) => `${baseUrl(services, request)}/webhooks/stripe/${organizationId}`;

  app.get(
    `${P}/payments/stripe`,
    {
      onRequest: app.authenticateSession,
      schema: { ...manageRoute, summary: "The organization's Stripe connection (the secret key masked; the webhook secret never shown).", response: { 200: StripeAccount, ...manageErrors } },
    },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      return { ...summarize(await loadStripeAccount(services.store, organizationId)), webhook_url: webhookUrl(request, organizationId) };
    },
  );

  app.put(
    `${P}/payments/stripe`,
    {
      onRequest: app.authenticateOwner,
      schema: {
        ...manageRoute,
        summary: 'Connect (or reconnect) a Stripe account (owners): live sessions then take payments through it. The keys are stored encrypted and never shown again.',
        body: ConnectBody,
        response: { 200: StripeAccount, ...manageErrors },
      },
    },
    async (request) => {
      const { organizationId } = requireOwner(request);
      const { secret_key: secretKey, publishable_key: publishableKey, webhook_secret: webhookSecret } = request.body;
      const summary = await connectStripe(manageContext(services, request), stripeSecrets(services), { organizationId, secretKey, publishableKey, webhookSecret });
      return { ...summary, webhook_url: webhookUrl(request, organizationId) };
    },
  );

  app.delete(
    `${P}/payments/stripe`,
    {
      onRequest: app.authenticateOwner,
      schema: { ...manageRoute, summary: 'Disconnect the Stripe account (owners): new live sessions are refused from then on.', response: { 200: StripeAccount, ...manageErrors } },
    },
    async (request) => {
      const { organizationId } = requireOwner(request);
      const summary = await disconnectStripe(manageContext(services, request), services.stripeCredentials, organizationId);
      return { ...summary, webhook_url: webhookUrl(request, organizationId) };
    },
  );

  app.post(
    `${P}/invoices/:id/refunds`,
    {
      onRequest: app.authenticateOwner,
      schema: {
        ...manageRoute,
        summary: 'Refund a paid invoice in full, or `amount` of it (owners): through Stripe for a live payment; recorded on the invoice and sent as invoice.refunded.',
        params: RefundParams,
        body: RefundBody,
        response: { 200: Refund, 502: ErrorSchema, ...manageErrors },
      },
    },
    async (request) => {
      const { organizationId } = requireOwner(request);
      return refundInvoice(manageContext(services, request), services, organizationId, request.params.id, request.body?.amount ?? null, undefined, request.body?.reason ?? null);
    },
  );
};
