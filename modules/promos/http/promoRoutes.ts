import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../platform/runtime/index.ts';
import { SLUG } from '../domain/promo.ts';
import { findPromo, publicPromo } from '../promoQueries.ts';
import { notFound } from '../../../platform/http/index.ts';
import { ErrorSchema } from '../../../platform/http/index.ts';
import { findOrAwaitStream } from '../../../platform/http/index.ts';
import { promoStream } from '../domain/promo.ts';

const Tier = z.object({
  name: z.string(),
  price: z.number().int().nullable(),
  discount_percent: z.number().nullable(),
  until: z.number().int().nullable(),
  max_participants: z.number().int().nullable(),
});
const PublicPromo = z.object({
  slug: z.string(),
  name: z.string(),
  state: z.enum(['scheduled', 'active', 'ended']),
  starts_at: z.number().int(),
  ends_at: z.number().int(),
  current_tier: Tier.nullable(),
  tiers: z.array(Tier),
  participants_count: z.number().int(),
  countdown: z.object({ ends_at: z.number().int(), seconds_remaining: z.number().int() }),
  server_time: z.number().int(),
});

/** Public, for the SDK on any site: CORS open, no credential, rate limited per client address. */
export const promoRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.addHook('onSend', async (_request, reply) => {
    reply.header('access-control-allow-origin', '*');
    reply.header('vary', 'Origin');
  });
  const params = z.object({ slug: z.string().max(100).regex(SLUG, 'must be lower-case letters, digits and dashes') });

  app.options('/api/promos/:slug', { schema: { hide: true, params } }, async (_request, reply) => {
    reply.header('access-control-allow-methods', 'GET, OPTIONS');
    reply.header('access-control-allow-headers', 'Accept, Content-Type');
    reply.header('access-control-max-age', '86400');
    return reply.code(204).send();
  });

  app.get(
    '/api/promos/:slug',
    {
      config: { rateLimit: { max: services.config.PROMO_RATE_LIMIT_MAX, timeWindow: 60_000 } },
      schema: {
        summary: 'A promo: its state, current tier, tiers, participant count and countdown (public).',
        params,
        response: { 200: PublicPromo, 404: ErrorSchema, 422: ErrorSchema, 429: ErrorSchema },
      },
    },
    async (request, reply) => {
      const slug = request.params.slug;
      const promo = await findOrAwaitStream(services, reply, { stream: promoStream(slug), find: () => findPromo(services.readStore, slug) });
      if (!promo) throw notFound('Promo');
      return publicPromo(promo, Math.floor(services.clock() / 1000));
    },
  );
};
