import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Readable } from 'node:stream';
import { assertFileKey, FileNotFoundError, type ByteRange, type FileStore, type StoredFile } from '../fileStore.ts';

/** Where the embedded profile keeps files: DATA_DIR/files, beside commerce.db (so `commerce backup` copies them). */
export const FILES_DIR = 'files';
/** Writes in progress, under their own names: nothing here is ever served. */
const INCOMPLETE_DIR = '.incomplete';

/**
 * Files in a directory. A write goes to `.incomplete/<key>.<pid>.<random>`, is synced, and is
 * then renamed into place: the rename is atomic, so a reader sees the old file or the whole
 * new one, and a process killed mid-write leaves only its incomplete name behind. The pid in
 * that name (and, for our own pid, the file's time) tells `sweep` whether its writer can still
 * finish: another thread or another store of this process may be writing.
 */
export async function openDataDirFileStore(dataDir: string): Promise<FileStore> {
  const root = join(resolve(dataDir), FILES_DIR);
  const incomplete = join(root, INCOMPLETE_DIR);
  await mkdir(incomplete, { recursive: true, mode: 0o700 });
  const pathOf = (key: string) => join(root, assertFileKey(key));

  const store: FileStore = {
    async put(key: string, source: Readable): Promise<StoredFile> {
      const target = pathOf(key);
      const name = `${key}.${process.pid}.${randomBytes(6).toString('hex')}`;
      const draft = join(incomplete, name);
      // Heard from before the first await: a source failing while the file opens rejects this
      // put rather than going unheard (the loop below listens only once it runs).
      let failed: unknown = null;
      const noteFailure = (error: unknown) => (failed ??= error);
      source.on('error', noteFailure);
      const chunks = source[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
      let handle;
      try {
        handle = await open(draft, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
      } catch (error) {
        source.off('error', noteFailure);
        source.destroy();
        throw error;
      }
      let closed = false;
      try {
        const hash = createHash('sha256');
        let size = 0;
        // One chunk at a time: the next is read once this one is written, so memory stays at a chunk.
        for (let next = await chunks.next(); !next.done; next = await chunks.next()) {
          const chunk = next.value;
          const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
          hash.update(bytes);
          size += bytes.length;
          let written = 0;
          while (written < bytes.length) written += (await handle.write(bytes, written, bytes.length - written)).bytesWritten;
        }
        if (failed) throw failed;
        await handle.sync();
        await handle.close();
        closed = true;
        await rename(draft, target);
        await syncDirectory(root);
        return { size, sha256: hash.digest('hex') };
      } catch (error) {
        source.destroy();
        if (!closed) await handle.close().catch(() => undefined);
        await rm(draft, { force: true });
        throw error;
      } finally {
        source.off('error', noteFailure);
      }
    },

    async open(key: string, range: ByteRange = {}): Promise<Readable> {
      let handle;
      try {
        handle = await open(pathOf(key), 'r');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new FileNotFoundError(key);
        throw error;
      }
      return handle.createReadStream({ start: range.start, end: range.end, highWaterMark: 256 * 1024 });
    },

    async stat(key: string) {
      try {
        const s = await stat(pathOf(key));
        // Renamed into place once written and synced: its last write is when it was stored.
        return { size: s.size, storedAt: s.mtimeMs };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
        throw error;
      }
    },

    async delete(key: string) {
      await rm(pathOf(key), { force: true });
    },

    async *list() {
      for (const entry of await readdir(root, { withFileTypes: true })) {
        if (entry.isFile()) yield entry.name;
      }
    },

    async sweep() {
      let removed = 0;
      // Our own pid's names are a previous process's when written before this one started (a
      // container's server is pid 1 every time); any thread of this process may be writing the others.
      const started = Date.now() - process.uptime() * 1000 - MTIME_SLACK_MS;
      for (const name of await readdir(incomplete)) {
        const pid = Number(name.split('.').at(-2));
        if (Number.isInteger(pid) && pid > 0) {
          if (pid !== process.pid && processRuns(pid)) continue;
          if (pid === process.pid && (await mtimeOf(join(incomplete, name))) >= started) continue;
        }
        await rm(join(incomplete, name), { force: true });
        removed++;
      }
      return removed;
    },

    async close() {},
  };
  // What a killed process left goes at start, before anything is served (the sweep job repeats it hourly).
  await store.sweep();
  return store;
}

/** Coarse file times (some filesystems keep seconds, or two): a write this process began is never older than its start by more. */
const MTIME_SLACK_MS = 2000;

async function mtimeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).mtimeMs;
  } catch {
    // Gone meanwhile: its write finished or failed.
    return Infinity;
  }
}

function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, as another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A rename is durable once the directory holding it is synced. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } catch (error) {
    // Some filesystems refuse fsync on a directory; the rename stands all the same.
    if ((error as NodeJS.ErrnoException).code !== 'EINVAL' && (error as NodeJS.ErrnoException).code !== 'EISDIR') throw error;
  } finally {
    await handle.close();
  }
}

/**
 * For `commerce backup`: copies the stored files (not the incomplete writes) from one data
 * directory into another's `files/`, each written under a temporary name, synced and renamed as
 * `put` does. Taken after the database's snapshot, so every file that snapshot names is there (a
 * file uploaded meanwhile is copied too, and is simply unused after a restore).
 */
export async function copyDataDirFiles(fromDataDir: string, toDataDir: string): Promise<{ files: number; bytes: number }> {
  const from = join(resolve(fromDataDir), FILES_DIR);
  const to = join(resolve(toDataDir), FILES_DIR);
  let entries;
  try {
    entries = await readdir(from, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { files: 0, bytes: 0 };
    throw error;
  }
  await mkdir(to, { recursive: true, mode: 0o700 });
  let files = 0;
  let bytes = 0;
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    const partial = join(to, `.${entry.name}.partial`);
    try {
      await copyFile(join(from, entry.name), partial);
    } catch (error) {
      // Deleted since the listing: nothing to keep.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    const handle = await open(partial, 'r');
    try {
      await handle.sync();
      bytes += (await handle.stat()).size;
    } finally {
      await handle.close();
    }
    await rename(partial, join(to, entry.name));
    files++;
  }
  await syncDirectory(to);
  return { files, bytes };
}
