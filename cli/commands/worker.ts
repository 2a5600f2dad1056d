import { loadConfig } from '../../platform/runtime/config.ts';
import type { Worker } from '../../app/workers.ts';
import type { Logger } from '../../platform/es/projectionRunner.ts';
import type { CliCommand } from '../command.ts';
import { exitOnSignal } from '../exitOnSignal.ts';

const logger: Logger = {
  error: (obj, msg) => console.error(JSON.stringify({ level: 'error', msg, ...serialise(obj) })),
  info: (obj, msg) => console.log(JSON.stringify({ level: 'info', msg, ...serialise(obj) })),
};

function serialise(obj: object): object {
  const err = (obj as { err?: unknown }).err;
  return err instanceof Error ? { ...obj, err: err.message } : obj;
}

/** Runs until SIGTERM or SIGINT, then stops at a checkpoint and gives its leases up. */
async function runUntilSignal(kind: string, start: () => Promise<Worker>): Promise<never> {
  // Signal handlers go in before anything is announced: a supervisor may signal as soon as it
  // reads the "started" line, and an unhandled SIGTERM would kill the process mid-batch.
  // Keeps the process up even with nothing registered to run (no jobs yet): a worker waits for a signal.
  const keepAlive = setInterval(() => undefined, 60_000);
  const worker = start();
  // A signal that arrives while the worker is starting stops it once it has started.
  exitOnSignal(async (signal) => {
    const running = await worker;
    clearInterval(keepAlive);
    logger.info({ signal }, `${kind} worker stopping`);
    await running.stop();
  });
  logger.info({ worker: (await worker).owner }, `${kind} worker started`);
  return new Promise<never>(() => undefined);
}

export const workerProjectionsCommand: CliCommand = {
  path: ['worker', 'projections'],
  usage: 'worker projections',
  description: 'Run the projections alone (no HTTP); several workers share them through leases.',
  longRunning: true,
  run: () => runUntilSignal('projection', async () => (await import('../../app/workers.ts')).startProjectionWorker(loadConfig(), logger)),
  format: () => '',
};

export const workerAutomationCommand: CliCommand = {
  path: ['worker', 'automation'],
  usage: 'worker automation',
  description: 'Run the background jobs (automation) alone (no HTTP); several workers share them through leases.',
  longRunning: true,
  run: () => runUntilSignal('automation', async () => (await import('../../app/workers.ts')).startAutomationWorker(loadConfig(), logger)),
  format: () => '',
};
