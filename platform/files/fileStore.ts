import type { Readable } from 'node:stream';

/**
 * The file store port: whole files under a key, written from a stream and read back in byte
 * ranges. The data directory beside commerce.db in the embedded profile, MongoDB GridFS in the
 * production profile (platform/files/dataDir, platform/files/gridfs; app/compose.ts picks one).
 *
 * A write is all or nothing: until `put` resolves, `open` and `stat` do not see the key (a
 * process killed half-way leaves an incomplete write that `sweep` removes, never a half file
 * that is served). Writing a key that exists replaces it at once.
 */
export interface FileStore {
  /**
   * Reads `source` to its end into `key`, counting and hashing as it goes; never holds the
   * whole file. A source that fails (a client gone, a size limit) rejects with its error and
   * leaves nothing under the key.
   */
  put(key: string, source: Readable): Promise<StoredFile>;
  /** The bytes `start` to `end` (both inclusive, as HTTP ranges), or all; FileNotFoundError if none. */
  open(key: string, range?: ByteRange): Promise<Readable>;
  /** Its size, and when its bytes were stored whole (ms since the epoch); null when none. */
  stat(key: string): Promise<{ size: number; storedAt: number } | null>;
  /** Removes the key; no error when it is not there. */
  delete(key: string): Promise<void>;
  /** The keys stored, in no particular order. */
  list(): AsyncIterable<string>;
  /**
   * Removes the incomplete writes a killed process left (run at start): only those no process
   * running now may still finish. Answers how many it removed.
   */
  sweep(): Promise<number>;
  close(): Promise<void>;
}

export type StoredFile = { size: number; sha256: string };

export type ByteRange = { start?: number; end?: number };

export class FileNotFoundError extends Error {
  override readonly name = 'FileNotFoundError';
  constructor(readonly key: string) {
    super(`no stored file under ${key}`);
  }
}

const KEY = /^[A-Za-z0-9_-]{1,128}$/;

/** Keys come from our ids, but an adapter makes file names of them: check. */
export function assertFileKey(key: string): string {
  if (!KEY.test(key)) throw new Error(`invalid file key: ${key}`);
  return key;
}
