import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../platform/runtime/index.ts';
import { handleStripeWebhook } from '../livePayments.ts';
import type { CommandContext } from '../../../platform/es/index.ts';
import { ErrorSchema } from '../../../platform/http/index.ts';

/** Stripe's events are small; a body far over this is not one of them. */
const BODY_LIMIT = 512 * 1024;

/**
 * Where an organization's Stripe account sends its events: `/webhooks/stripe/{organization}`.
 * The signature is checked over the body exactly as it arrived, so this scope keeps the raw text.
 * Anything that does not verify with that organization's signing secret (an unknown organization,
 * one without Stripe, another's secret) answers the same 400.
 */
export const stripeWebhookRoute: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.removeAllContentTypeParsers();
  // Stripe posts application/json; kept as text until its signature has been checked. Anything else is 415.
  app.addContentTypeParser('application/json', { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_req, body, done) => done(null, body));

  app.post(
    '/webhooks/stripe/:organization',
    {
      bodyLimit: BODY_LIMIT,
      schema: {
        summary: "Stripe's webhook endpoint of an organization (payment_intent.succeeded, payment_intent.payment_failed, charge.refunded, charge.dispute.created), verified with its signing secret.",
        params: z.object({ organization: z.string().regex(/^[A-Za-z0-9_-]{1,100}$/, 'must be an organization id') }),
        response: {
          200: z.object({ received: z.boolean(), duplicate: z.boolean().optional(), outcome: z.string().optional() }),
          400: ErrorSchema.extend({ received: z.boolean().optional() }),
        },
      },
    },
    async (request, reply) => {
      const payload = typeof request.body === 'string' ? request.body : '';
      const signature = request.headers['stripe-signature'];
      const ctx: CommandContext = {
        store: services.store,
        metadata: {
          correlation_id: request.id,
          actor: { type: 'system', name: 'stripe' },
          organization_id: request.params.organization,
          occurred_at: Math.floor(services.clock() / 1000),
        },
      };
      const answer = await handleStripeWebhook(ctx, services, request.params.organization, payload, typeof signature === 'string' ? signature : undefined);
      if (answer.status === 400) return reply.code(400).send({ message: answer.body.message ?? 'Bad signature.', code: 'invalid_signature', received: false });
      return reply.code(200).send(answer.body);
    },
  );
};
