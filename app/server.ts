import { buildApp } from '../api/app.ts';
import { startBackgroundJobs } from './backgroundJobs.ts';
import { compose } from './compose.ts';
import type { Config } from './config.ts';

/**
 * Starts the API with its projections on the embedded profile. SIGTERM or SIGINT stops taking
 * connections, lets in-flight requests finish, then stops subscribers at a checkpoint.
 */
export async function startServer(config: Config): Promise<{ url: string; close(): Promise<void> }> {
  let logError: (obj: object, msg: string) => void = (o, m) => console.error(m, o);
  const services = await compose(config, {
    runProjections: true,
    logger: { error: (o, m) => logError(o, m), info: () => undefined },
  });
  const app = await buildApp(services, { logger: { level: config.LOG_LEVEL } });
  logError = (o, m) => app.log.error(o, m);
  const jobs = await startBackgroundJobs(services, {
    error: (o, m) => app.log.error(o, m),
    info: (o, m) => app.log.info(o, m),
  });
  await app.listen({ port: config.PORT, host: config.HOST });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const url = `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${port}`;

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      // 1. No new requests; in-flight ones finish. 2. Subscribers stop after their batch in flight.
      await app.close();
      await jobs.stop();
      // 3. Projections apply what those appended, so the read models stop exactly at the head.
      const head = await services.store.headPosition();
      if (head !== null && services.projections && !(await services.projections.waitFor(head, 10_000))) {
        app.log.warn({ head, checkpoint: services.projections.checkpoint() }, 'projections did not reach the head before shutdown');
      }
      await services.close();
    })());
  return { url, close };
}
