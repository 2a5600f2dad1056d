import type { BackgroundJob } from '../../../platform/runtime/index.ts';

const EVERY_MS = 60 * 60 * 1000;

/**
 * Removes what uploads cut short left in the file store (a server killed mid-upload): once at
 * start, then hourly, since on GridFS an upload's leftovers are swept only once they are old
 * enough that no other process can still be writing them.
 */
export const sweepIncompleteUploads: BackgroundJob = {
  name: 'files-sweep',
  async start(services, logger) {
    let running: Promise<void> | null = null;
    const pass = () => {
      running ??= services.files
        .sweep()
        .then((removed) => {
          if (removed > 0) logger.info({ removed }, 'removed incomplete uploads');
        })
        .catch((error: unknown) => logger.error({ err: error }, 'sweeping incomplete uploads failed'))
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
