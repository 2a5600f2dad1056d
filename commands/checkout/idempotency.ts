import { createHash } from 'node:crypto';
import { DomainError } from '../../domain/shared/domainError.ts';
import { WrongExpectedRevisionError, type RecordedEvent } from '../eventStore.ts';
import { toNewEvent, type CommandContext } from '../handleCommand.ts';

/** Keys are kept this long (Stripe's 24 hours); after that a key may be used again. */
export const IDEMPOTENCY_TTL_SECONDS = 86_400;
/** How long a duplicate waits for the first request to finish before answering 409. */
const WAIT_FOR_FIRST_MS = 10_000;

export type StoredResponse = { status: number; body: unknown };

type KeyState =
  | { state: 'free'; revision: number | null }
  | { state: 'in_flight' | 'done'; revision: number; requestHash: string; claimedAt: number; response: StoredResponse | null };

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

function keyState(events: RecordedEvent[], now: number): KeyState {
  const last = events.length === 0 ? null : events[events.length - 1]!.revision;
  let claim: RecordedEvent | null = null;
  let response: StoredResponse | null = null;
  for (const event of events) {
    if (event.type === 'IdempotencyKeyClaimed') {
      claim = event;
      response = null;
    } else if (event.type === 'IdempotencyKeyReleased') {
      claim = null;
    } else if (event.type === 'IdempotencyKeyCompleted') {
      response = event.data as StoredResponse;
    }
  }
  if (!claim) return { state: 'free', revision: last };
  const { request_hash, claimed_at } = claim.data as { request_hash: string; claimed_at: number };
  if (now - claimed_at >= IDEMPOTENCY_TTL_SECONDS) return { state: 'free', revision: last };
  return { state: response ? 'done' : 'in_flight', revision: last!, requestHash: request_hash, claimedAt: claimed_at, response };
}

/**
 * Keys live in a scope (the organization whose offer the request is for), as Stripe keeps them per
 * account: the public route has no caller identity, and one key space for everyone let a stranger
 * who reused a key get another seller's session id (the handle to start, pay and cancel it) or a
 * 422 about a request that was not theirs.
 */
export const idempotencyStream = (scope: string, key: string) => `idempotency-${scope}-${sha256(key)}`;

/**
 * Runs `run` once per Idempotency-Key within its scope: the key is claimed on its own stream
 * (no_stream, or the revision after a release), so of concurrent duplicates exactly one runs; the
 * others replay its stored response (or wait for it). A refused request (any error) releases the
 * key, so fixing the request and sending it again with the same key works.
 */
export async function withIdempotencyKey(
  ctx: CommandContext,
  scope: string,
  key: string,
  requestHash: string,
  run: () => Promise<StoredResponse>,
): Promise<StoredResponse & { replayed: boolean }> {
  const stream = idempotencyStream(scope, key);
  const deadline = Date.now() + WAIT_FOR_FIRST_MS;
  for (;;) {
    const now = ctx.metadata.occurred_at;
    const current = keyState(await ctx.store.readStream(stream), now);
    if (current.state === 'free') {
      try {
        await ctx.store.append(
          stream,
          [toNewEvent({ type: 'IdempotencyKeyClaimed', data: { request_hash: requestHash, claimed_at: now } }, ctx.metadata)],
          current.revision === null ? 'no_stream' : current.revision,
        );
      } catch (error) {
        if (error instanceof WrongExpectedRevisionError) continue;
        throw error;
      }
      let response: StoredResponse;
      try {
        response = await run();
      } catch (error) {
        await ctx.store.append(stream, [toNewEvent({ type: 'IdempotencyKeyReleased', data: {} }, ctx.metadata)], 'any');
        throw error;
      }
      await ctx.store.append(stream, [toNewEvent({ type: 'IdempotencyKeyCompleted', data: response }, ctx.metadata)], 'any');
      return { ...response, replayed: false };
    }
    if (current.requestHash !== requestHash) {
      throw new DomainError(
        'invalid',
        'idempotency_key_reused',
        'This Idempotency-Key was already used with a different request body.',
        // Named as the header's own validation errors name it (lower case), so clients look in one place.
        { 'idempotency-key': ['This Idempotency-Key was already used with a different request body.'] },
      );
    }
    if (current.state === 'done') return { ...current.response!, replayed: true };
    if (Date.now() > deadline) {
      throw new DomainError('conflict', 'idempotency_key_in_progress', 'A request with this Idempotency-Key is still being processed.');
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}
