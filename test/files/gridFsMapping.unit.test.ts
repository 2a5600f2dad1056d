import { MongoGridFSChunkError, MongoInvalidArgumentError, MongoRuntimeError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { FileNotFoundError } from '../../platform/files/index.ts';
import { driverRange, fromGridFsError, isGridFsNotFound } from '../../platform/files/mongodb/gridFsFileStore.ts';

/** What the GridFS adapter asks of the driver and makes of its answers, without a server. */
describe('GridFS adapter mapping', () => {
  it("gives the driver an exclusive end, as GridFSBucketReadStreamOptions' `end` is", () => {
    expect(driverRange({}, 1000)).toEqual({});
    expect(driverRange({ start: 0, end: 999 }, 1000)).toEqual({});
    expect(driverRange({ start: 10 }, 1000)).toEqual({ start: 10, end: 1000 });
    expect(driverRange({ end: 9 }, 1000)).toEqual({ start: 0, end: 10 });
    expect(driverRange({ start: 5, end: 5 }, 1000)).toEqual({ start: 5, end: 6 });
    // Past the end: clipped, never an option the driver refuses (start > end throws MongoInvalidArgumentError).
    expect(driverRange({ start: 10, end: 5000 }, 1000)).toEqual({ start: 10, end: 1000 });
    expect(driverRange({ start: 2000 }, 1000)).toEqual({ start: 1000, end: 1000 });
  });

  it("reads the driver's not-found errors (MongoRuntimeError, by message or code ENOENT) as FileNotFoundError, and nothing else", () => {
    // As GridFSBucketReadStream raises it for a files document that is gone (driver src/gridfs/download.ts).
    const streamed = new MongoRuntimeError('FileNotFound: file 65f0c0ffee was not found');
    streamed.code = 'ENOENT';
    // As GridFSBucket.delete raises it (src/gridfs/index.ts), and rename.
    const deleted = new MongoRuntimeError('File not found for id 65f0c0ffee');
    const renamed = new MongoRuntimeError('File with id 65f0c0ffee not found');
    for (const error of [streamed, deleted, renamed]) {
      expect(isGridFsNotFound(error)).toBe(true);
      const mapped = fromGridFsError(error, 'file_abc');
      expect(mapped).toBeInstanceOf(FileNotFoundError);
      expect((mapped as FileNotFoundError).key).toBe('file_abc');
    }
    for (const other of [
      new MongoGridFSChunkError('ChunkIsMissing: Got unexpected n: 3, expected: 2'),
      new MongoInvalidArgumentError('Stream start (5) must not be more than the length of the file (4)'),
      new MongoRuntimeError('connection closed'),
      new Error('File not found for id 1'),
    ]) {
      expect(isGridFsNotFound(other)).toBe(false);
      expect(fromGridFsError(other, 'file_abc')).toBe(other);
    }
  });
});
