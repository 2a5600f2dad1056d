import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../platform/runtime/index.ts';
import { loadOrganization, requireOrganization } from '../../identity/index.ts';
import { lastDays } from '../zonedDays.ts';
import { CHECKOUT_SESSIONS } from '../../checkout/index.ts';
import { SALES_BUCKETS, type SalesBucketDoc } from '../salesStatsProjection.ts';
import { notFound, decimalInteger, manageErrors, manageRoute } from '../../../platform/http/index.ts';
import { SalesStats } from './reportingSchemas.ts';

/** The dashboard's Home: sales per day in the organization's time zone, from the sales_stats read model. */
export const salesStatsRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/manage/api/stats/sales',
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: 'Sessions created, completed (count and amount) and expired per day over the last days, in the organization’s time zone; gross, refunds and net per currency; and the sessions open now.',
        querystring: z.object({
          days: decimalInteger(1, 90).optional().default(30),
          mode: z.enum(['test', 'live']).optional().describe('Only test or only live sessions; both when absent.'),
        }),
        response: { 200: SalesStats, ...manageErrors },
      },
    },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const org = await loadOrganization(services.store, organizationId);
      if (!org) throw notFound('Organization');
      const now = Math.floor(services.clock() / 1000);
      const money = () => ({ amounts: {} as Record<string, number>, gross: {} as Record<string, number>, refunds: {} as Record<string, number>, net: {} as Record<string, number> });
      const days = lastDays(now, request.query.days, org.timezone).map((d) => ({ ...d, created: 0, completed: 0, expired: 0, ...money() }));
      const buckets = await services.readStore.find<SalesBucketDoc>(SALES_BUCKETS, {
        filter: { organization_id: organizationId, bucket: { $gte: days[0]!.from, $lt: days.at(-1)!.to } },
      });
      const totals = { from: days[0]!.from, to: days.at(-1)!.to, created: 0, completed: 0, expired: 0, ...money() };
      const add = (into: Record<string, number>, from: Record<string, number> | undefined, sign = 1) => {
        for (const [currency, amount] of Object.entries(from ?? {})) into[currency] = (into[currency] ?? 0) + sign * amount;
      };
      for (const b of buckets) {
        if (request.query.mode && b.mode !== request.query.mode) continue;
        // Days start on a quarter hour in every zone, so a bucket lies within one day.
        const day = days.find((d) => b.bucket >= d.from && b.bucket < d.to);
        if (!day) continue;
        for (const target of [day, totals]) {
          target.created += b.created;
          target.completed += b.completed;
          target.expired += b.expired;
          add(target.amounts, b.amounts);
          add(target.gross, b.gross);
          add(target.refunds, b.refunds);
          add(target.net, b.gross);
          add(target.net, b.refunds, -1);
        }
      }
      const open = await services.readStore.count(CHECKOUT_SESSIONS, { organization_id: organizationId, open_until: { $gt: now } });
      return { timezone: org.timezone, days, totals, open_sessions: open };
    },
  );
};
