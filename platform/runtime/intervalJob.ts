import type { Logger } from '../es/projectionRunner.ts';
import type { BackgroundJob, Services } from './services.ts';

/**
 * A background job that runs `pass` every `intervalMs(services)`, one pass at a time (a slow pass
 * is not overtaken by the next tick); a failed pass is logged and tried again at the next tick.
 * The first pass comes one interval after the start. A stop waits for the pass under way.
 */
export function intervalJob(options: {
  name: string;
  intervalMs: (services: Services) => number;
  pass: (services: Services, logger: Logger) => Promise<void>;
  failure: string;
}): BackgroundJob {
  return {
    name: options.name,
    async start(services, logger) {
      let stopped = false;
      let running: Promise<void> | null = null;
      const tick = () => {
        if (running || stopped) return;
        running = (async () => {
          try {
            await options.pass(services, logger);
          } catch (error) {
            logger.error({ err: error }, options.failure);
          } finally {
            running = null;
          }
        })();
      };
      const timer = setInterval(tick, options.intervalMs(services));
      timer.unref();
      return {
        async stop() {
          stopped = true;
          clearInterval(timer);
          await running;
        },
      };
    },
  };
}
