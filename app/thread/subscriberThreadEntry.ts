/**
 * The subscriber thread of `commerce serve` (started by subscriberThread.ts, never imported): the
 * projections and the background jobs, on their own stores' connections, beside the thread that
 * answers HTTP. It reports each projection's progress, its figures and its log lines to the server
 * thread, and learns from it when the server appended, so it reads new events at once.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { allProjections } from '../allProjections.ts';
import { projectionsAtHead } from '../../platform/es/projectionsAtHead.ts';
import type { Logger } from '../../platform/es/projectionRunner.ts';
import { backgroundJobs, runJobsUnderLeases } from '../backgroundJobs.ts';
import { compose } from '../compose.ts';
import { isProductionProfile, type Config } from '../../platform/runtime/config.ts';
import { workerId } from '../../platform/runtime/leasedWork.ts';
import type { Running } from '../../platform/runtime/leasedWork.ts';
import { forwardedMetrics } from './forwardedMetrics.ts';
import { lowerThreadPriority } from './lowerThreadPriority.ts';
import { loggable, type FromSubscribers, type LogLevel, type Positions, type ToSubscribers } from './threadMessages.ts';

/** How often counted figures go to the server thread: well within any scrape interval. */
const METRICS_EVERY_MS = 1000;
/**
 * Requests first: when the cores are busy, this thread yields to the one that answers them (5 nice
 * steps below it, it still gets about a quarter of a core the other wants, so it keeps up), and
 * catches up as soon as they are not.
 */
const NICENESS = 5;

const port = parentPort;
if (!port) throw new Error('subscriberThreadEntry runs as a worker thread of `commerce serve`');
lowerThreadPriority(NICENESS);
const { config, runJobs } = workerData as { config: Config; runJobs: boolean };

const send = (message: FromSubscribers) => port.postMessage(message);
const log = (level: LogLevel) => (obj: object, msg: string) => send({ type: 'log', level, msg, obj: loggable(obj) });
// The projections' info lines (a rebuild's progress) are dropped, as the in-process runner's are.
const projectionLogger: Logger = { error: log('error'), info: () => undefined };
const jobLogger: Logger = { error: log('error'), info: log('info') };
const metrics = forwardedMetrics();

let reportScheduled = false;
let services: Awaited<ReturnType<typeof compose>> | null = null;
const positions = (): Positions => allProjections.map((p) => [p.name, services?.projections?.checkpointOf(p.name) ?? null]);
// Once per turn of the event loop, however many batches the projections applied in it.
const reportProgress = () => {
  if (reportScheduled) return;
  reportScheduled = true;
  setImmediate(() => {
    reportScheduled = false;
    if (services) send({ type: 'progress', positions: positions() });
  });
};
const sendMetrics = () => {
  const counts = metrics.take();
  if (counts) send(counts);
};

try {
  services = await compose(config, {
    runProjections: true,
    // The server thread learns positions from our reports, not from the stored checkpoints; on
    // the production profile other processes may wait on those, so there every batch's is stored.
    lazyCheckpoints: !isProductionProfile(config),
    onProjectionProgress: reportProgress,
    metrics,
    logger: projectionLogger,
  });
} catch (error) {
  send({ type: 'failed', name: error instanceof Error ? error.name : 'Error', message: error instanceof Error ? error.message : String(error) });
  port.close();
}

if (services) {
  const running = services;
  const allJobs = runJobs ? await backgroundJobs() : [];
  let jobs: Running | null = null;
  let stopping = false;
  const metricsTimer = setInterval(sendMetrics, METRICS_EVERY_MS);
  port.on('message', (message: ToSubscribers) => {
    if (message.type === 'appended') running.store.wake?.();
    else if (message.type === 'start-jobs' && runJobs && !jobs && !stopping) {
      // Under leases, as in the automation worker: two `serve` on one data directory must not both run every workflow.
      jobs = runJobsUnderLeases(running, jobLogger, { owner: workerId(), ttlMs: config.LEASE_TTL_MS }, allJobs);
    } else if (message.type === 'stop' && !stopping) {
      stopping = true;
      void (async () => {
        await jobs?.stop();
        await projectionsAtHead(running.store, running.projections!, log('warn'));
        await running.close();
        clearInterval(metricsTimer);
        sendMetrics();
        send({ type: 'progress', positions: positions() });
        send({ type: 'stopped' });
        port.close();
      })().catch((error: unknown) => {
        log('error')({ err: error }, 'the subscriber thread did not stop cleanly');
        send({ type: 'stopped' });
        port.close();
      });
    }
  });
  send({ type: 'ready', positions: positions() });
}
