import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../platform/runtime/index.ts';
import type { RecordedEvent } from '../../../platform/eventStore/index.ts';
import { EVENT_LOG, eventView, isReadableStream, type EventLogDoc } from '../eventLogProjection.ts';
import type { Filter } from '../../../platform/readStore/index.ts';
import { notFound, decimalInteger, manageErrors, manageRoute } from '../../../platform/http/index.ts';
import { requireOrganization } from '../../identity/index.ts';
import { Event } from './reportingSchemas.ts';

const belongsTo = (first: RecordedEvent, organizationId: string) => {
  if (first.stream === `organization-${organizationId}`) return true;
  const data = first.data as { organization_id?: unknown } | null;
  return (data && typeof data === 'object' && data.organization_id === organizationId) || first.metadata.organization_id === organizationId;
};

export const eventLogRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/manage/api/events/streams/:stream',
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: "The events of one of the organization's streams (product-…, offer-…, checkout_session-…, invoice-…, automation_…), paged by revision.",
        params: z.object({ stream: z.string().min(3).max(200).regex(/^[a-z_]+-[A-Za-z0-9_-]+$/, 'must be a stream name such as product-<id>') }),
        querystring: z.object({ from_revision: decimalInteger(0, Number.MAX_SAFE_INTEGER).default(0), limit: decimalInteger(1, 500).default(100) }),
        response: { 200: z.object({ stream: z.string(), data: z.array(Event), next_revision: z.number().int().nullable() }), ...manageErrors },
      },
    },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const { stream } = request.params;
      const events = isReadableStream(stream) ? await services.store.readStream(stream) : [];
      if (events.length === 0 || !belongsTo(events[0]!, organizationId)) throw notFound('Stream');
      const { from_revision: from, limit } = request.query;
      const page = events.slice(from, from + limit);
      return { stream, data: page.map(eventView), next_revision: from + limit < events.length ? from + limit : null };
    },
  );

  app.get(
    '/manage/api/events',
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: "The organization's events in log order, by type and time; page on with `after` = the answer's `next_after`.",
        description: 'From the event-log read model, indexed by organization, type and log position (so it follows the log by a moment). `next_after` is null on the last page.',
        querystring: z.object({
          type: z.string().min(1).max(100).regex(/^[A-Za-z]+$/, 'must be an event type such as ProductPublished').optional(),
          from: decimalInteger(0, 253_402_300_799).optional().describe('Unix seconds, inclusive.'),
          to: decimalInteger(0, 253_402_300_799).optional().describe('Unix seconds, exclusive.'),
          after: z.string().max(40).regex(/^\d+$/, 'must be a cursor from next_after').optional(),
          limit: decimalInteger(1, 200).default(50),
        }),
        response: { 200: z.object({ data: z.array(Event), next_after: z.string().nullable() }), ...manageErrors },
      },
    },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const q = request.query;
      const filter: Filter = { organization_id: organizationId };
      if (q.type) filter.type = q.type;
      if (q.after !== undefined) filter.position = { $gt: Number(q.after) };
      if (q.from !== undefined || q.to !== undefined) filter.occurred_at = { ...(q.from !== undefined ? { $gte: q.from } : {}), ...(q.to !== undefined ? { $lt: q.to } : {}) };
      // One more than the page: whether there is a next page, without an empty last one.
      const docs = await services.readStore.find<EventLogDoc>(EVENT_LOG, { filter, sort: [['position', 1]], limit: q.limit + 1 });
      const page = docs.slice(0, q.limit);
      // The events themselves, from the log (one indexed read each); one the log no longer holds
      // (a log restored from an older backup than the read store) is left out.
      const events = await Promise.all(page.map((doc) => services.store.readEvent(doc.stream, doc.revision)));
      return {
        data: events.filter((e): e is RecordedEvent => e !== null).map(eventView),
        next_after: docs.length > q.limit ? String(page[page.length - 1]!.position) : null,
      };
    },
  );
};
