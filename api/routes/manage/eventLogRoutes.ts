import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../app/services.ts';
import type { RecordedEvent } from '../../../eventStore/eventStore.ts';
import { notFound } from '../../errors.ts';
import { requireOrganization } from '../../plugins/sessionAuth.ts';
import { decimalInteger } from '../schemas.ts';
import { manageErrors, manageRoute } from './manageSchemas.ts';

/**
 * The streams a seller may read: their business records. Identity streams (users, sessions, keys,
 * sign-in attempts) hold credential hashes and are never shown, even redacted.
 */
const READABLE = ['organization-', 'product-', 'offer-', 'checkout_session-', 'invoice-', 'promo-', 'automation_sequence-', 'automation_trigger-', 'automation_workflow-', 'automation_webhook-'];
/** Fields that hold a secret (a Send Webhook signing secret) or a hash of one, at any depth. */
const SECRET_FIELDS = new Set(['signing_secret', 'secret', 'secret_hash', 'password_hash', 'token_hash']);

function redact(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redact);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_FIELDS.has(k) ? '[redacted]' : redact(v)]));
  }
  return value;
}

const view = (e: RecordedEvent) => ({
  id: e.id,
  stream: e.stream,
  revision: e.revision,
  type: e.type,
  occurred_at: e.metadata.occurred_at,
  actor: e.metadata.actor as Record<string, unknown>,
  correlation_id: e.metadata.correlation_id,
  data: redact(e.data),
});

const Event = z.object({
  id: z.string(),
  stream: z.string(),
  revision: z.number().int(),
  type: z.string(),
  occurred_at: z.number().int(),
  actor: z.record(z.string(), z.unknown()),
  correlation_id: z.string(),
  data: z.unknown(),
});

const belongsTo = (first: RecordedEvent, organizationId: string) => {
  if (first.stream === `organization-${organizationId}`) return true;
  const data = first.data as { organization_id?: unknown } | null;
  return (data && typeof data === 'object' && data.organization_id === organizationId) || first.metadata.organization_id === organizationId;
};

/** Events scanned at most per request of the organization-wide view: its cost is bounded whatever the log's size. */
const SCAN_LIMIT = 5000;

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
      const events = READABLE.some((p) => stream.startsWith(p)) ? await services.store.readStream(stream) : [];
      if (events.length === 0 || !belongsTo(events[0]!, organizationId)) throw notFound('Stream');
      const { from_revision: from, limit } = request.query;
      const page = events.slice(from, from + limit);
      return { stream, data: page.map(view), next_revision: from + limit < events.length ? from + limit : null };
    },
  );

  app.get(
    '/manage/api/events',
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: "The organization's events in log order, by type and time; page on with `after` = the answer's `next_after`.",
        description: `Each request reads at most ${SCAN_LIMIT} events of the log after \`after\`: a page may hold fewer than \`limit\` events and still have a \`next_after\`. \`next_after\` is null at the end of the log.`,
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
      const data: RecordedEvent[] = [];
      let after = q.after === undefined ? null : Number(q.after);
      let scanned = 0;
      let ended = false;
      while (data.length < q.limit && scanned < SCAN_LIMIT) {
        const batch = await services.store.readAll({ after, limit: Math.min(500, SCAN_LIMIT - scanned), streamPrefixes: READABLE });
        if (batch.length === 0) {
          ended = true;
          break;
        }
        for (const e of batch) {
          scanned += 1;
          after = e.position;
          const t = e.metadata.occurred_at;
          if (e.metadata.organization_id !== organizationId && !(e.stream === `organization-${organizationId}`)) continue;
          if (q.type && e.type !== q.type) continue;
          if ((q.from !== undefined && t < q.from) || (q.to !== undefined && t >= q.to)) continue;
          data.push(e);
          if (data.length >= q.limit) break;
        }
      }
      return { data: data.map(view), next_after: ended || after === null ? null : String(after) };
    },
  );
};
