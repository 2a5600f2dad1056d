import { createHash } from 'node:crypto';
import { DomainError } from '../../platform/domain/index.ts';
import { WrongExpectedRevisionError, type RecordedEvent } from '../../platform/eventStore/index.ts';
import { toNewEvent, type CommandContext } from '../../platform/es/index.ts';

/** Keys are kept this long (Stripe's 24 hours); after that a key may be used again. */
export const IDEMPOTENCY_TTL_SECONDS = 86_400;
/** How long a duplicate waits for the first request to finish before answering 409. */
const WAIT_FOR_FIRST_MS = 10_000;
/**
 * How long a claim holds its key before another request may take it over (a process killed after
 * claiming never completes or releases it). Taking over is safe even when the first process is
 * only slow: the claim reserves the id of what it creates, so both create the same thing once.
 */
export const IDEMPOTENCY_LEASE_MS = 5_000;

export type StoredResponse = { status: number; body: unknown };

type Claim = {
  request_hash: string;
  /** Unix seconds of the first claim: the key is kept IDEMPOTENCY_TTL_SECONDS from then. */
  claimed_at: number;
  /** The id of what the request creates, decided with the claim (absent in claims written before). */
  resource_id?: string;
  /** Epoch ms after which another request may take the claim over. */
  lease_until?: number;
};

type KeyState =
  | { state: 'free'; revision: number | null }
  | { state: 'in_flight' | 'done'; revision: number; claim: Claim; leaseUntil: number; response: StoredResponse | null };

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** JSON with sorted keys: two bodies that differ only in key order are the same request. */
export function requestFingerprint(value: unknown): string {
  return sha256(
    JSON.stringify(value, (_k, v: unknown) =>
      v && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : v,
    ),
  );
}

function keyState(events: RecordedEvent[], nowMs: number): KeyState {
  const last = events.length === 0 ? null : events[events.length - 1]!.revision;
  let claim: Claim | null = null;
  let response: StoredResponse | null = null;
  for (const event of events) {
    if (event.type === 'IdempotencyKeyClaimed') {
      claim = event.data as Claim;
      response = null;
    } else if (event.type === 'IdempotencyKeyReleased') {
      claim = null;
    } else if (event.type === 'IdempotencyKeyCompleted') {
      response = event.data as StoredResponse;
    }
  }
  if (!claim) return { state: 'free', revision: last };
  if (Math.floor(nowMs / 1000) - claim.claimed_at >= IDEMPOTENCY_TTL_SECONDS) return { state: 'free', revision: last };
  const leaseUntil = claim.lease_until ?? claim.claimed_at * 1000 + IDEMPOTENCY_LEASE_MS;
  return { state: response ? 'done' : 'in_flight', revision: last!, claim, leaseUntil, response };
}

/**
 * Keys live in a scope (the organization whose offer the request is for), as Stripe keeps them per
 * account: the public route has no caller identity, and one key space for everyone let a stranger
 * who reused a key get another seller's session id (the handle to start, pay and cancel it) or a
 * 422 about a request that was not theirs.
 */
export const idempotencyStream = (scope: string, key: string) => `idempotency-${scope}-${sha256(key)}`;

export type IdempotencyOptions = {
  /** A fresh id for what `run` creates; a takeover reuses the claim's. */
  newResourceId: () => string;
  /** Epoch ms (the service clock). */
  nowMs?: () => number;
  leaseMs?: number;
  /** Told when the completion or release could not be recorded (the lease then settles the key). */
  onRecordFailed?: (error: unknown) => void;
};

/**
 * Runs `run` once per Idempotency-Key within its scope: the key is claimed on its own stream
 * (no_stream, or the revision after a release), so of concurrent duplicates exactly one runs; the
 * others replay its stored response (or wait for it). A refused request (any error) releases the
 * key, so fixing the request and sending it again with the same key works.
 *
 * The claim reserves the id of what `run` creates and holds the key for a lease. A claim neither
 * completed nor released when its lease ends (its process was killed, or recording the outcome
 * failed) is taken over by the next request with the same key and body: it runs `run` again with
 * the reserved id (`takeover` true), and `run` must answer from what that id already holds when it
 * exists (the session the first process created), so the retry gets the first answer back.
 */
export async function withIdempotencyKey(
  ctx: CommandContext,
  scope: string,
  key: string,
  requestHash: string,
  run: (resourceId: string, takeover: boolean) => Promise<StoredResponse>,
  options: IdempotencyOptions,
): Promise<StoredResponse & { replayed: boolean }> {
  const stream = idempotencyStream(scope, key);
  const nowMs = options.nowMs ?? Date.now;
  const leaseMs = options.leaseMs ?? IDEMPOTENCY_LEASE_MS;
  const deadline = Date.now() + WAIT_FOR_FIRST_MS;
  for (;;) {
    const now = nowMs();
    const current = keyState(await ctx.store.readStream(stream), now);
    if (current.state !== 'free' && current.claim.request_hash !== requestHash) {
      throw new DomainError(
        'invalid',
        'idempotency_key_reused',
        'This Idempotency-Key was already used with a different request body.',
        // Named as the header's own validation errors name it (lower case), so clients look in one place.
        { 'idempotency-key': ['This Idempotency-Key was already used with a different request body.'] },
      );
    }
    if (current.state === 'done') return { ...current.response!, replayed: true };
    if (current.state === 'free' || now >= current.leaseUntil) {
      const takeover = current.state === 'in_flight';
      // A claim written before claims reserved an id has none to hand on: the takeover makes its own.
      const resourceId = (takeover ? current.claim.resource_id : undefined) ?? options.newResourceId();
      const claim: Claim = {
        request_hash: requestHash,
        claimed_at: takeover ? current.claim.claimed_at : Math.floor(now / 1000),
        resource_id: resourceId,
        lease_until: now + leaseMs,
      };
      try {
        await ctx.store.append(
          stream,
          [toNewEvent({ type: 'IdempotencyKeyClaimed', data: claim }, ctx.metadata)],
          current.revision === null ? 'no_stream' : current.revision,
        );
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError) continue;
        throw error;
      }
      return { ...(await runClaimed(ctx, stream, () => run(resourceId, takeover), options)), replayed: false };
    }
    if (Date.now() > deadline) {
      throw new DomainError('conflict', 'idempotency_key_in_progress', 'A request with this Idempotency-Key is still being processed.');
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Runs the claimed request and records its outcome. The outcome is answered even when recording
 * it fails: the key then stays claimed until its lease ends, and the next request takes it over
 * and finds what this one created.
 */
async function runClaimed(
  ctx: CommandContext,
  stream: string,
  run: () => Promise<StoredResponse>,
  options: IdempotencyOptions,
): Promise<StoredResponse> {
  let response: StoredResponse;
  try {
    response = await run();
  } catch (error) {
    await ctx.store
      .append(stream, [toNewEvent({ type: 'IdempotencyKeyReleased', data: {} }, ctx.metadata)], 'any')
      .catch((recordError: unknown) => options.onRecordFailed?.(recordError));
    throw error;
  }
  await ctx.store
    .append(stream, [toNewEvent({ type: 'IdempotencyKeyCompleted', data: response }, ctx.metadata)], 'any')
    .catch((recordError: unknown) => options.onRecordFailed?.(recordError));
  return response;
}
