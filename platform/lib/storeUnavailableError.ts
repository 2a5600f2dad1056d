/**
 * The store could not take the operation now: another process held the SQLite file's write lock
 * past the wait (SQLITE_BUSY), EventStoreDB was unreachable or had no leader, or MongoDB was
 * between primaries. Whether an append was written is not known (EventStoreDB's timeouts may
 * have written it): a retry decides again on the stream as it then is, with new event ids. The
 * API answers 503 with Retry-After.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
}
