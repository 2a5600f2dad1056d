import { createHash } from 'node:crypto';
import { PassThrough, Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GridFSBucket, MongoClient, MongoRuntimeError, ObjectId, type Db, type GridFSFile } from 'mongodb';
import { assertFileKey, FileNotFoundError, type ByteRange, type FileStore, type StoredFile } from '../fileStore.ts';

/** The bucket's collections: `_file_store.files` and `_file_store.chunks`, beside the read models. */
export const FILE_BUCKET = '_file_store';

/**
 * An upload's chunks are written before its files document, which is what makes it visible:
 * chunks with no files document are an upload under way or one a killed process left. Only those
 * older than this are swept, since another API process may be uploading now.
 */
export const SWEEP_AFTER_MS = 6 * 60 * 60 * 1000;

/** The production profile's files: MongoDB GridFS (the driver's GridFSBucket) in the read store's database. */
export async function openGridFsFileStore(url: string, dbName: string): Promise<FileStore> {
  const client = new MongoClient(url);
  await client.connect();
  const store = gridFsFileStore(client.db(dbName));
  return { ...store, close: () => client.close() };
}

export function gridFsFileStore(db: Db, options: { sweepAfterMs?: number; now?: () => number } = {}): FileStore {
  const bucket = new GridFSBucket(db, { bucketName: FILE_BUCKET, chunkSizeBytes: 255 * 1024 });
  const files = db.collection<GridFSFile>(`${FILE_BUCKET}.files`);
  const chunks = db.collection<{ files_id: ObjectId }>(`${FILE_BUCKET}.chunks`);
  const sweepAfterMs = options.sweepAfterMs ?? SWEEP_AFTER_MS;
  const now = options.now ?? Date.now;
  /** The newest complete upload under the key (an older one stays only until its replacement's put ends). */
  const latest = (key: string) => files.findOne({ filename: assertFileKey(key) }, { sort: { uploadDate: -1, _id: -1 } });

  return {
    async put(key: string, source: Readable): Promise<StoredFile> {
      assertFileKey(key);
      const id = new ObjectId();
      const upload = bucket.openUploadStreamWithId(id, key);
      const hash = createHash('sha256');
      let size = 0;
      const counting = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          hash.update(chunk);
          size += chunk.length;
          done(null, chunk);
        },
      });
      try {
        await pipeline(source, counting, upload);
      } catch (error) {
        // The files document is written last, so the upload was never visible; drop its chunks.
        await chunks.deleteMany({ files_id: id }).catch(() => undefined);
        throw error;
      }
      // The earlier uploads under this key, now replaced.
      for await (const old of files.find({ filename: key, _id: { $ne: id } }, { projection: { _id: 1 } })) {
        await bucket.delete(old._id).catch((error: unknown) => ignoreNotFound(error));
      }
      return { size, sha256: hash.digest('hex') };
    },

    async open(key: string, range: ByteRange = {}): Promise<Readable> {
      const doc = await latest(key);
      if (!doc) throw new FileNotFoundError(key);
      const download = bucket.openDownloadStream(doc._id, driverRange(range, doc.length));
      // The port's error for a file deleted while it is read, whatever the driver calls it.
      const out = new PassThrough({ highWaterMark: 256 * 1024 });
      download.on('error', (error) => out.destroy(fromGridFsError(error, key) as Error));
      out.on('close', () => download.destroy());
      return download.pipe(out);
    },

    async stat(key: string) {
      const doc = await latest(key);
      return doc ? { size: doc.length, storedAt: doc.uploadDate.getTime() } : null;
    },

    async delete(key: string) {
      for await (const doc of files.find({ filename: assertFileKey(key) }, { projection: { _id: 1 } })) {
        await bucket.delete(doc._id).catch((error: unknown) => ignoreNotFound(error));
      }
    },

    async *list() {
      for (const name of await files.distinct('filename')) yield name;
    },

    async sweep() {
      let removed = 0;
      const cutoff = now() - sweepAfterMs;
      for (const filesId of await chunks.distinct('files_id')) {
        if (!(filesId instanceof ObjectId) || filesId.getTimestamp().getTime() > cutoff) continue;
        if (await files.countDocuments({ _id: filesId }, { limit: 1 })) continue;
        await chunks.deleteMany({ files_id: filesId });
        removed++;
      }
      return removed;
    },

    async close() {},
  };
}

/**
 * The driver's read options for an inclusive HTTP-style range: its `end` is exclusive. A start at
 * or past the end of a file is left to the caller (who answers 416); here it reads nothing.
 */
export function driverRange(range: ByteRange, length: number): { start?: number; end?: number } {
  const start = range.start ?? 0;
  const end = Math.min(range.end === undefined ? length : range.end + 1, length);
  if (start === 0 && end === length) return {};
  return { start: Math.min(start, end), end };
}

/**
 * The driver tells a missing file by a MongoRuntimeError's message (NODE-3483 will give it a
 * class): "File not found for id …" from delete, "FileNotFound: file … was not found" (code
 * ENOENT) from a download stream.
 */
export function isGridFsNotFound(error: unknown): boolean {
  if (!(error instanceof MongoRuntimeError)) return false;
  return error.code === 'ENOENT' || /^FileNotFound\b|^File not found for id\b|^File with id .* not found$/.test(error.message);
}

/** The driver's error as the port's: a missing file is FileNotFoundError, anything else itself. */
export function fromGridFsError(error: unknown, key: string): unknown {
  return isGridFsNotFound(error) ? new FileNotFoundError(key) : error;
}

function ignoreNotFound(error: unknown): void {
  // Deleted by another process between the find and the delete: what we wanted.
  if (!isGridFsNotFound(error)) throw error;
}
