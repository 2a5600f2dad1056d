import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { z } from 'zod';
import type { Services } from '../platform/runtime/services.ts';
import { checkReadiness } from '../platform/runtime/readiness.ts';
import { allProjections } from './allProjections.ts';

const Health = z.object({ status: z.literal('ok') });
const Ready = z.object({
  status: z.enum(['ready', 'not_ready']),
  reasons: z.array(z.string()),
  projections: z.array(z.object({ projection: z.string(), lag_events: z.number().int() })),
});

/**
 * Liveness (/healthz), readiness (/readyz) and Prometheus metrics (/metrics), plus the request
 * counter and latency histogram every route feeds. Labels use the route pattern, so the number
 * of series stays bounded whatever URLs clients send.
 */
export const observabilityPlugin = fp(
  async (app: FastifyInstance, { services }: { services: Services }) => {
    app.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url ?? 'unmatched';
      services.metrics.httpRequest(request.method, route, reply.statusCode, reply.elapsedTime / 1000);
      done();
    });

    app.get(
      '/healthz',
      { schema: { summary: 'Liveness: the process is up.', response: { 200: Health } } },
      async () => ({ status: 'ok' as const }),
    );

    app.get(
      '/readyz',
      {
        schema: {
          summary: 'Readiness: the stores answer and projections are caught up (503 with the reasons otherwise).',
          response: { 200: Ready, 503: Ready },
        },
      },
      async (_request, reply) => {
        const { store, readStore, clock } = services;
        const readiness = await checkReadiness({ store, readStore, clock, projections: allProjections, runner: services.projections });
        return reply.code(readiness.ready ? 200 : 503).send({
          status: readiness.ready ? 'ready' : 'not_ready',
          reasons: readiness.reasons,
          projections: readiness.lag.map((l) => ({ projection: l.projection, lag_events: l.events })),
        });
      },
    );

    app.get('/metrics', { schema: { summary: 'Prometheus metrics (text exposition format).' } }, async (_request, reply) => {
      const { contentType, body } = await services.metrics.scrape();
      return reply.type(contentType).header('cache-control', 'no-store').send(body);
    });
  },
  { name: 'observability' },
);
