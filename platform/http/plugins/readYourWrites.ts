import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { Services } from '../../runtime/services.ts';
import { trackingAppends, type AppendTrack } from '../../lib/appendTracker.ts';
import { HttpError } from '../errors.ts';

/** A write's answer: the global log position its appends reached. Sent back on a read, it waits for it. */
export const POSITION_HEADER = 'commerce-position';
/** On an answer read from read models that had not reached the position asked for within the bound. */
export const STALE_HEADER = 'commerce-stale';
/** The longest a request waits for the read models; then it answers as they are, marked stale. */
export const READ_WAIT_MS = 2000;
/** Sessions and keys whose last write position this process remembers (least recently used out). */
const REMEMBERED_CLIENTS = 10_000;

declare module 'fastify' {
  interface FastifyRequest {
    appendTrack: AppendTrack | null;
  }
}

/** The caller a write position is remembered for: a session, an API key, or an OAuth grant. */
function clientOf(request: FastifyRequest): string | null {
  if (request.userSession) return `session:${request.userSession.sessionId}`;
  if (request.auth?.apiKeyId) return `key:${request.auth.apiKeyId}`;
  if (request.auth?.oauth) return `grant:${request.auth.oauth.grantId}`;
  return null;
}

const POSITION = /^\d{1,16}$/;

function positionAsked(request: FastifyRequest): number | null {
  const value = request.headers[POSITION_HEADER];
  if (value === undefined) return null;
  if (typeof value !== 'string' || !POSITION.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new HttpError(400, 'invalid_position', 'The Commerce-Position header must be a position a write of this service answered with.');
  }
  return Number(value);
}

/**
 * Waits, at most `timeoutMs`, until the read models have applied the log up to `position` (never
 * past the head: a position from another log, or made up, costs no wait). True when they have.
 * Across processes (the production profile) the runner is a watcher of the checkpoints the
 * projection workers store with their writes, so this compares with the read store, not memory.
 */
export async function readModelsReached(services: Services, position: number, timeoutMs = READ_WAIT_MS): Promise<boolean> {
  const runner = services.projections;
  if (!runner) return true;
  const at = runner.checkpoint();
  if (at !== null && at >= position) return true;
  const head = await services.store.headPosition();
  if (head === null) return true;
  return runner.waitFor(Math.min(position, head), timeoutMs);
}

/**
 * The read models have applied the whole log as it is now (bounded wait): for a lookup that found
 * nothing and would answer 401 or 404, where what it looks for may have been written a moment ago
 * by another client (a new API key). Resolves true when they were behind and now caught up, i.e.
 * when looking again can find something new.
 */
export async function readModelsAtHead(services: Services, timeoutMs = READ_WAIT_MS): Promise<boolean> {
  const runner = services.projections;
  if (!runner) return false;
  const head = await services.store.headPosition();
  if (head === null) return false;
  const at = runner.checkpoint();
  if (at !== null && at >= head) return false;
  return runner.waitFor(head, timeoutMs);
}

export type StreamBackedLookup<T> = {
  /** The resource's stream, or how to find it in the log (only asked on a miss; null: none). */
  stream: string | (() => Promise<string | null>);
  /** The read model's answer. */
  find: () => Promise<T | null>;
  /** When given, a stream of another organization counts as none. */
  organizationId?: string;
  /** A document that is there but not yet what the caller needs (an offer not yet shown published) counts as a miss. */
  ready?: (doc: T) => boolean;
};

/**
 * One resource by id, from its read model; on a miss, when the resource's event stream exists
 * (and is the organization's) and the read models have not reached its last event, waits for
 * them (bounded) and finds again. So a GET by id never answers 404 for a resource whose stream
 * exists because a projection is a moment behind, whoever asks; past the bound it answers as the
 * read model is, marked stale. A miss whose stream is absent or already applied costs one read.
 */
export async function findOrAwaitStream<T>(services: Services, reply: FastifyReply, lookup: StreamBackedLookup<T>): Promise<T | null> {
  const found = await lookup.find();
  if ((found !== null && (lookup.ready?.(found) ?? true)) || !services.projections) return found;
  const stream = typeof lookup.stream === 'string' ? lookup.stream : await lookup.stream();
  const events = stream === null ? [] : await services.store.readStream(stream);
  const last = events.at(-1);
  if (!last) return found;
  const owner = events[0]!.metadata.organization_id;
  if (lookup.organizationId !== undefined && owner !== null && owner !== lookup.organizationId) return found;
  const at = services.projections.checkpoint();
  if (at !== null && at >= last.position) return found;
  if (!(await readModelsReached(services, last.position))) reply.header(STALE_HEADER, 'true');
  return lookup.find();
}

/**
 * Read-your-writes for every client. A write answers `Commerce-Position` with the highest position
 * its appends reached, remembered for the session, key or grant that wrote. A later read by the
 * same caller, or any request sending the header back, waits up to READ_WAIT_MS for the read
 * models to reach it, and answers `Commerce-Stale: true` if they had not.
 */
export const readYourWritesPlugin = fp(
  async (app: FastifyInstance, { services }: { services: Services }) => {
    app.decorateRequest('appendTrack', null);
    const remembered = new Map<string, number>();
    const remember = (client: string, position: number) => {
      const known = remembered.get(client);
      if (known !== undefined && known >= position) return;
      remembered.delete(client);
      if (remembered.size >= REMEMBERED_CLIENTS) remembered.delete(remembered.keys().next().value!);
      remembered.set(client, position);
    };

    // Callback hooks that call on inside the tracking context, so the route's own onRequest hooks
    // (authentication), its handler and whatever they start report their appends to this request.
    app.addHook('onRequest', (request, _reply, done) => {
      const track: AppendTrack = { position: null };
      request.appendTrack = track;
      trackingAppends(track, done);
    });

    app.addHook('preHandler', (request, reply, done) => {
      const track = request.appendTrack!;
      // Entered again: a body is parsed from stream events, outside the context onRequest set.
      const go = (error?: Error) => trackingAppends(track, () => done(error));
      let asked: number | null;
      try {
        asked = positionAsked(request);
      } catch (error) {
        return go(error as Error);
      }
      // Reads only: a write decides on its streams, and where one looks a read model up it waits itself.
      const client = request.method === 'GET' || request.method === 'HEAD' ? clientOf(request) : null;
      const mine = client === null ? undefined : remembered.get(client);
      const wanted = Math.max(asked ?? -1, mine ?? -1);
      const at = services.projections?.checkpoint() ?? null;
      if (wanted < 0 || !services.projections || (at !== null && at >= wanted)) return go();
      readModelsReached(services, wanted).then(
        (reached) => {
          if (!reached) reply.header(STALE_HEADER, 'true');
          go();
        },
        (error: unknown) => go(error instanceof Error ? error : new Error(String(error))),
      );
    });

    app.addHook('onSend', (request, reply, payload, done) => {
      const position = request.appendTrack?.position ?? null;
      if (position !== null) {
        reply.header(POSITION_HEADER, String(position));
        const client = clientOf(request);
        if (client !== null) remember(client, position);
      }
      done(null, payload);
    });
  },
  { name: 'read-your-writes' },
);
