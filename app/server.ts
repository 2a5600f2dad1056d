import { buildApp } from '../api/app.ts';
import { startBackgroundJobs } from './backgroundJobs.ts';
import { compose } from './compose.ts';
import { runsInApi, type Config } from './config.ts';

/**
 * Starts the API, with its projections and background jobs on the embedded profile (on the
 * production profile workers run those: RUN_PROJECTIONS / RUN_BACKGROUND_JOBS). SIGTERM or SIGINT stops taking
 * connections, lets in-flight requests finish, then stops subscribers at a checkpoint.
 */
export async function startServer(config: Config): Promise<{ url: string; close(): Promise<void> }> {
  let logError: (obj: object, msg: string) => void = (o, m) => console.error(m, o);
  const runProjections = runsInApi(config, 'RUN_PROJECTIONS');
  const services = await compose(config, {
    runProjections,
    watchProjections: !runProjections,
    logger: { error: (o, m) => logError(o, m), info: () => undefined },
  });
  const app = await buildApp(services, { logger: { level: config.LOG_LEVEL } });
  logError = (o, m) => app.log.error(o, m);
  const jobs = runsInApi(config, 'RUN_BACKGROUND_JOBS')
    ? await startBackgroundJobs(services, {
        error: (o, m) => app.log.error(o, m),
        info: (o, m) => app.log.info(o, m),
      })
    : { stop: async () => undefined };
  await app.listen({ port: config.PORT, host: config.HOST });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const url = `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${port}`;

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      await app.close();
      await jobs.stop();
      await services.close();
    })());
  return { url, close };
}
