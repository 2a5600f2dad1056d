import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { DomainError, notFound } from '../../../platform/domain/index.ts';
import { ErrorSchema } from '../../../platform/http/index.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { readSessionSnapshot } from '../../checkout/index.ts';
import { purchaseBenefits } from '../purchaseBenefits.ts';
import { PurchaseBenefitsSchema } from './deliverySchemas.ts';

/** How long after the payment the thank-you page may ask (as its receipt link): later, the receipt and the portal show them. */
export const THANK_YOU_SECONDS = 24 * 3600;

const Params = z.object({ id: z.string().min(1).max(64).regex(/^cs_[A-Za-z0-9_]+$/, 'must be a checkout session id (cs_…)') });

/**
 * The thank-you page's view of what the purchase delivered; the unguessable session id is the proof.
 * The answer holds keys and live links: kept out of caches, logs and Referers, and only for a day.
 */
export const deliveryRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  const rateLimit = { max: services.config.CHECKOUT_RATE_LIMIT, timeWindow: services.config.CHECKOUT_RATE_LIMIT_WINDOW_SECONDS * 1000 };
  app.get(
    '/api/checkout/sessions/:id/benefits',
    {
      config: { rateLimit, secretPath: true },
      schema: {
        summary:
          "What a paid checkout session delivered (public, for the hosted thank-you page): each granted benefit's files with download links valid 15 minutes, and license keys. `pending` while grants are still being made: ask again.",
        params: Params,
        response: { 200: PurchaseBenefitsSchema, 404: ErrorSchema, 409: ErrorSchema, 410: ErrorSchema, 422: ErrorSchema, 429: ErrorSchema },
      },
    },
    async (request, reply) => {
      reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
      const snapshot = await readSessionSnapshot(services.store, request.params.id);
      if (!snapshot) throw notFound('Checkout session');
      const { view } = snapshot;
      const invoice = view.invoice;
      if (!invoice || invoice.status !== 'paid') throw new DomainError('conflict', 'session_not_paid', 'This checkout session is not paid.');
      const paidAt = view.completed_at ?? Math.floor(services.clock() / 1000);
      if (paidAt < Math.floor(services.clock() / 1000) - THANK_YOU_SECONDS) {
        throw new DomainError('gone', 'thank_you_expired', 'This purchase is older than a day: its downloads and keys are on the receipt page linked from the receipt email.');
      }
      return purchaseBenefits(services, view.organization_id, invoice.id);
    },
  );
};
