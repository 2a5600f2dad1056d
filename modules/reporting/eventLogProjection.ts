import type { RecordedEvent } from '../../platform/eventStore/index.ts';
import type { Projection, ProjectionTx } from '../../platform/es/index.ts';

/**
 * The streams a seller may read: their business records. Identity streams (users, sessions, keys,
 * sign-in attempts) hold credential hashes and are never shown, even redacted. Key claim streams
 * (`product_key-…`, `automation_sequence_key-…`) are bookkeeping and not listed either.
 */
export const READABLE_STREAMS = [
  'organization-',
  'product-',
  'offer-',
  'checkout_session-',
  'invoice-',
  'promo-',
  'automation_sequence-',
  'automation_trigger-',
  'automation_workflow-',
  'automation_webhook-',
] as const;

export const isReadableStream = (stream: string) => READABLE_STREAMS.some((p) => stream.startsWith(p));

/** Fields that hold a secret (a Send Webhook signing secret) or a hash of one, at any depth. */
const SECRET_FIELDS = new Set(['signing_secret', 'secret', 'secret_hash', 'password_hash', 'token_hash']);

/** The value with every secret field's value replaced; the value itself (not a copy) when it holds none. */
export function redact(value: unknown): unknown {
  return holdsSecret(value) ? redactCopy(value) : value;
}

// Most events hold no secret (a webhook's whole payload, above all): a walk that allocates nothing
// spares copying each of them.
function holdsSecret(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) if (holdsSecret(value[i])) return true;
    return false;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (SECRET_FIELDS.has(key) || holdsSecret((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

function redactCopy(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactCopy);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, SECRET_FIELDS.has(k) ? '[redacted]' : redactCopy(v)]));
  }
  return value;
}

/** An event as the event-log view shows it: its secrets redacted. */
export const eventView = (e: RecordedEvent) => ({
  id: e.id,
  stream: e.stream,
  revision: e.revision,
  type: e.type,
  occurred_at: e.metadata.occurred_at,
  actor: e.metadata.actor as Record<string, unknown>,
  correlation_id: e.metadata.correlation_id,
  data: redact(e.data),
});

/**
 * One event of the organization's log, as the index of the view: where the event is and what a
 * page filters and sorts on. The event itself is read from the log for the page that shows it.
 */
export type EventLogDoc = { id: string; organization_id: string; position: number; stream: string; revision: number; type: string; occurred_at: number };

export const EVENT_LOG = 'event_log';

/** The organization an event belongs to: the organization stream's own, else its metadata's. */
function organizationOf(event: RecordedEvent): string | null {
  if (event.stream.startsWith('organization-')) return event.stream.slice('organization-'.length);
  return event.metadata.organization_id ?? null;
}

/**
 * The organization's events in log order, indexed by (organization, position) and (organization,
 * type, position): a page of `GET /manage/api/events` is one indexed query at any size of the log,
 * then one read of the log per event shown. A document says where its event is, not what it holds:
 * a copy of every event (a catch URL's whole payloads) would weigh on every append, for pages that
 * are read now and then.
 */
export const eventLogProjection: Projection = {
  name: 'event_log',
  version: 2,
  collections: [EVENT_LOG],
  // Never read back while applying: keep the documents out of the runner's cache.
  writeOnly: [EVENT_LOG],
  indexes: [
    { collection: EVENT_LOG, fields: ['organization_id', 'position'] },
    { collection: EVENT_LOG, fields: ['organization_id', 'type', 'position'] },
  ],
  eventTypes: 'all',
  apply(event: RecordedEvent, tx: ProjectionTx) {
    if (!isReadableStream(event.stream)) return;
    const organizationId = organizationOf(event);
    if (organizationId === null) return;
    tx.upsert(EVENT_LOG, {
      id: event.id,
      organization_id: organizationId,
      position: event.position,
      stream: event.stream,
      revision: event.revision,
      type: event.type,
      occurred_at: event.metadata.occurred_at,
    } satisfies EventLogDoc);
  },
};
