import type { BackgroundJob, Services } from '../../../platform/runtime/index.ts';
import { fileStream } from '../domain/file.ts';

const EVERY_MS = 60 * 60 * 1000;
/**
 * Bytes with no record this long after they were stored belong to no upload: an upload records
 * its file the moment its bytes are stored whole.
 */
export const UNRECORDED_AFTER_MS = 60 * 60 * 1000;

/**
 * Removes the bytes no file record stands for: an upload whose record a crash cut off (stored,
 * never recorded) once UNRECORDED_AFTER_MS have passed, and a deleted file whose removal a crash
 * cut off (FileDeleted recorded, bytes left). Answers how many it removed.
 */
export async function removeUnrecordedFiles(services: Pick<Services, 'files' | 'store'>, now: number): Promise<number> {
  let removed = 0;
  for await (const key of services.files.list()) {
    const events = await services.store.readStream(fileStream(key));
    const deleted = events.some((e) => e.type === 'FileDeleted');
    if (!deleted && events.length > 0) continue;
    if (!deleted) {
      const stat = await services.files.stat(key);
      if (!stat || now - stat.storedAt < UNRECORDED_AFTER_MS) continue;
    }
    await services.files.delete(key);
    removed++;
  }
  return removed;
}

/**
 * Removes what uploads cut short left in the file store (a server killed mid-upload), and the
 * bytes no file record stands for: once at start, then hourly, since on GridFS an upload's
 * leftovers are swept only once they are old enough that no other process can still be writing
 * them.
 */
export const sweepIncompleteUploads: BackgroundJob = {
  name: 'files-sweep',
  async start(services, logger) {
    let running: Promise<void> | null = null;
    const pass = () => {
      running ??= (async () => {
        const incomplete = await services.files.sweep();
        const unrecorded = await removeUnrecordedFiles(services, services.clock());
        if (incomplete + unrecorded > 0) logger.info({ incomplete, unrecorded }, 'removed incomplete uploads and unrecorded files');
      })()
        .catch((error: unknown) => logger.error({ err: error }, 'sweeping the file store failed'))
        .finally(() => {
          running = null;
        });
      return running;
    };
    await pass();
    const timer = setInterval(() => void pass(), EVERY_MS);
    timer.unref();
    return {
      async stop() {
        clearInterval(timer);
        await running;
      },
    };
  },
};
