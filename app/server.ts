import { buildApp } from './httpApp.ts';
import { backgroundJobs, runJobsUnderLeases } from './backgroundJobs.ts';
import { compose } from './compose.ts';
import { isProductionProfile, runsInApi, usesSubscriberThread, type Config } from '../platform/runtime/config.ts';
import { createMetrics } from '../platform/runtime/metrics.ts';
import { reportedProjections } from './thread/reportedProjections.ts';
import { startSubscriberThread, type SubscriberThread, type ThreadLog } from './thread/subscriberThread.ts';
import { workerId } from '../platform/runtime/leasedWork.ts';
import { projectionsAtHead } from '../platform/es/projectionsAtHead.ts';
import { recordServerUrl } from '../platform/runtime/serverUrlFile.ts';

/**
 * Starts the API, with its projections and background jobs on the embedded profile (on the
 * production profile workers run those: RUN_PROJECTIONS / RUN_BACKGROUND_JOBS), on a subscriber
 * thread of their own when the machine has a core to spare (SUBSCRIBER_THREAD). SIGTERM or SIGINT
 * stops taking connections, lets in-flight requests finish, then stops subscribers at a checkpoint.
 */
export async function startServer(config: Config): Promise<{ url: string; close(): Promise<void> }> {
  let log: ThreadLog = { error: (o, m) => console.error(m, o), warn: (o, m) => console.error(m, o), info: () => undefined };
  const runProjections = runsInApi(config, 'RUN_PROJECTIONS');
  const runJobs = runsInApi(config, 'RUN_BACKGROUND_JOBS');
  const metrics = createMetrics();
  // The projections, and the jobs with them, on their own thread where there is a core for it;
  // this thread learns their progress from the thread's reports.
  const threaded = runProjections && usesSubscriberThread(config);
  const reported = threaded ? reportedProjections() : null;
  let thread: SubscriberThread | null = null;
  // First, so a refused configuration or data directory fails here, before any thread starts.
  const services = await compose(config, {
    runProjections: runProjections && !threaded,
    watchProjections: !runProjections,
    // Nobody else waits on the stored checkpoints of the embedded profile's one process (the CLI
    // beside it catches up by itself); on the production profile other API processes and the
    // automation worker may watch them, so there every batch's checkpoint is stored.
    lazyCheckpoints: runProjections && !isProductionProfile(config),
    ...(reported ? { projections: reported, onAppended: () => thread?.appended() } : {}),
    metrics,
    logger: { error: (o, m) => log.error(o, m), info: () => undefined },
  });
  if (reported) {
    try {
      thread = await startSubscriberThread(config, { runJobs, metrics, log: () => log, projections: reported });
    } catch (error) {
      await services.close();
      throw error;
    }
  }
  const app = await buildApp(services, { logger: { level: config.LOG_LEVEL } });
  log = { error: (o, m) => app.log.error(o, m), warn: (o, m) => app.log.warn(o, m), info: (o, m) => app.log.info(o, m) };
  try {
    await app.listen({ port: config.PORT, host: config.HOST });
  } catch (error) {
    // The port is taken (or not ours to bind): stop the projections too, so the process ends
    // with the error instead of living on headless.
    await app.close();
    await thread?.stop();
    await services.close();
    throw error;
  }
  // Only once we serve: a process that cannot listen must not take the automation lease.
  // Under leases, as in the automation worker: two `serve` on one data directory (a process
  // manager's cluster mode) must not both run every workflow, each calling its receivers.
  // (The subscriber thread takes them under leases too, and stops them on its own stop.)
  thread?.startJobs();
  if (thread) app.log.info({ projections: true, background_jobs: runJobs }, 'projections and background jobs run on the subscriber thread');
  const jobs =
    runJobs && !thread
      ? runJobsUnderLeases(
          services,
          { error: (o, m) => app.log.error(o, m), info: (o, m) => app.log.info(o, m) },
          { owner: workerId(), ttlMs: config.LEASE_TTL_MS },
          await backgroundJobs(),
        )
      : { stop: async () => undefined };
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.PORT;
  const url = `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${port}`;
  // For the CLI beside it: the links it prints (demo, trigger list) then use this port.
  const forgetUrl = recordServerUrl(config, port);

  let closing: Promise<void> | null = null;
  const close = () =>
    (closing ??= (async () => {
      // 1. No new requests; in-flight ones finish. 2. Subscribers stop after their batch in flight.
      forgetUrl();
      await app.close();
      await jobs.stop();
      // 3. Projections run here apply what those appended, so the read models stop exactly at the
      // head (the subscriber thread does the same on its own stop).
      await thread?.stop();
      if (runProjections && !thread && services.projections) await projectionsAtHead(services.store, services.projections, (o, m) => app.log.warn(o, m));
      await services.close();
    })());
  return { url, close };
}
