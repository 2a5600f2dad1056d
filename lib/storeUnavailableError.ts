/**
 * The store could not take the operation now: another process held the SQLite file's write lock
 * past the wait (SQLITE_BUSY), EventStoreDB was unreachable or had no leader, or MongoDB was
 * between primaries. Nothing is known to be written; trying again is safe (an append retried with
 * the same event ids is recognised). The API answers 503 with Retry-After.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}
