import { Worker } from 'node:worker_threads';
import { ConfigError, type Config } from '../../platform/runtime/config.ts';
import type { Metrics } from '../../platform/runtime/metrics.ts';
import { reportedProjections, type ReportedProjections } from './reportedProjections.ts';
import type { FromSubscribers, LogLevel, ToSubscribers } from './threadMessages.ts';

export type ThreadLog = Record<LogLevel, (obj: object, msg: string) => void>;

export type SubscriberThread = {
  /** The projections as the thread reports them: Services.projections of the server thread. */
  projections: ReportedProjections;
  /** The server appended events: the thread reads them at once, or under a steady load within WAKE_EVERY_MS. */
  appended(): void;
  /** The server listens: the thread starts the background jobs (if it runs them). */
  startJobs(): void;
  /** Stops the jobs, lets the projections reach the head, and ends the thread. */
  stop(): Promise<void>;
};

/** Waits after the thread ended unexpectedly before starting it again, doubling up to a minute. */
const RESTART_FIRST_MS = 1000;
const RESTART_MAX_MS = 60_000;
/**
 * The least time between two wakes of the thread (see appended()). Each wake costs the thread a
 * read of the log and a commit per projection that wrote, and every commit holds the file's write
 * lock, which the server's appends then wait for: under a steady load, batches of a tenth of a
 * second keep those few, while a request after a quiet spell is applied at once.
 */
const WAKE_EVERY_MS = 100;
/** How long a stop waits for the thread to finish its batch and close before ending it. */
const STOP_TIMEOUT_MS = 30_000;

/** The thread's module: the TypeScript source through tsx in a checkout, the bundled chunk in dist/. */
function threadEntry(): { file: URL; entry?: string } {
  if (import.meta.url.endsWith('.ts')) {
    return { file: new URL('../../bin/thread.js', import.meta.url), entry: new URL('./subscriberThreadEntry.ts', import.meta.url).href };
  }
  // scripts/build.ts puts the entry beside every other chunk of the service.
  return { file: new URL('./subscriber-thread.js', import.meta.url) };
}

/**
 * Runs the server's projections and background jobs on a worker thread (subscriberThreadEntry.ts),
 * so on more than one core they take no time from HTTP. Resolves once the projections run (rebuilt
 * first if their code changed); rejects if they cannot start. A thread that dies later is started
 * again, with back-off, from the stored checkpoints.
 */
export function startSubscriberThread(
  config: Config,
  options: {
    runJobs: boolean;
    metrics: Metrics;
    log: () => ThreadLog;
    projections?: ReportedProjections;
    /** Called with each thread started, the first and every restart (diagnostics; tests end one as a crash would). */
    onSpawn?: (worker: Worker) => void;
  },
): Promise<SubscriberThread> {
  const projections = options.projections ?? reportedProjections();
  const { file, entry } = threadEntry();
  let current: Worker | null = null;
  let jobsStarted = false;
  let stopping = false;
  let exited: Promise<void> = Promise.resolve();
  let restartMs = RESTART_FIRST_MS;
  let wakeScheduled = false;
  let lastWake = Number.NEGATIVE_INFINITY;

  const send = (message: ToSubscribers) => current?.postMessage(message);

  /** Starts one thread; resolves when it is ready, rejects if it ends before. */
  const spawn = () =>
    new Promise<void>((resolve, reject) => {
      const worker = new Worker(file, { workerData: { entry, config, runJobs: options.runJobs } });
      options.onSpawn?.(worker);
      let ready = false;
      let failure: Error | null = null;
      exited = new Promise<void>((done) => worker.once('exit', () => done()));
      worker.on('message', (message: FromSubscribers) => {
        switch (message.type) {
          case 'ready':
            ready = true;
            current = worker;
            restartMs = RESTART_FIRST_MS;
            projections.report(message.positions);
            if (jobsStarted) send({ type: 'start-jobs' });
            resolve();
            break;
          case 'progress':
            projections.report(message.positions);
            break;
          case 'metrics':
            options.metrics.addCounts(message);
            break;
          case 'log':
            options.log()[message.level](message.obj, message.msg);
            break;
          case 'failed':
            // A configuration refused in the thread is refused as the server's own would be (exit code 2).
            failure = message.name === 'ConfigError' ? new ConfigError(message.message) : new Error(message.message);
            void worker.terminate();
            break;
          case 'stopped':
            break;
        }
      });
      worker.on('error', (error) => {
        failure ??= error;
        options.log().error({ err: error }, 'the subscriber thread (projections, background jobs) failed');
      });
      worker.on('exit', (code) => {
        if (current === worker) current = null;
        if (!ready) {
          reject(failure ?? new Error(`the subscriber thread ended (exit code ${code}) before its projections ran`));
          return;
        }
        if (!stopping) restart(code);
      });
    });

  const restart = (code: number) => {
    options.log().error({ exit_code: code, restart_in_ms: restartMs }, 'the subscriber thread ended; starting it again from the stored checkpoints');
    const wait = restartMs;
    restartMs = Math.min(RESTART_MAX_MS, restartMs * 2);
    setTimeout(() => {
      if (stopping) return;
      spawn().catch((error: unknown) => {
        if (stopping) return;
        options.log().error({ err: error }, 'the subscriber thread could not start again');
        restart(1);
      });
    }, wait).unref();
  };

  return spawn().then(() => ({
    projections,
    appended() {
      if (wakeScheduled) return;
      wakeScheduled = true;
      // At once after a quiet spell; under load at most every WAKE_EVERY_MS, so the thread
      // applies batches of many events (cheaper per event) rather than one per turn.
      const wait = Math.max(0, lastWake + WAKE_EVERY_MS - performance.now());
      const wake = () => {
        wakeScheduled = false;
        lastWake = performance.now();
        send({ type: 'appended' });
      };
      if (wait === 0) setImmediate(wake);
      else setTimeout(wake, wait);
    },
    startJobs() {
      jobsStarted = true;
      send({ type: 'start-jobs' });
    },
    async stop() {
      if (stopping) return exited;
      stopping = true;
      const worker = current;
      if (worker) {
        send({ type: 'stop' });
        const timer = setTimeout(() => {
          options.log().warn({ timeout_ms: STOP_TIMEOUT_MS }, 'the subscriber thread did not stop in time; ending it');
          void worker.terminate();
        }, STOP_TIMEOUT_MS);
        await exited;
        clearTimeout(timer);
      }
      await projections.stop();
    },
  }));
}
