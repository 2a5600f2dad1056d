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
  // Handlers go in before the "started" line: a supervisor may signal as soon as it reads it.
  // The interval keeps a worker with nothing to run up until a signal.
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

const workerCommand = (word: 'projections' | 'automation', kind: string, what: string): CliCommand => ({
  path: ['worker', word],
  usage: `worker ${word}`,
  description: `Run ${what} alone (no HTTP); several workers share them through leases.`,
  longRunning: true,
  run: () =>
    runUntilSignal(kind, async () => {
      const workers = await import('../../app/workers.ts');
      return (word === 'projections' ? workers.startProjectionWorker : workers.startAutomationWorker)(loadConfig(), logger);
    }),
  format: () => '',
});

export const workerProjectionsCommand = workerCommand('projections', 'projection', 'the projections');
export const workerAutomationCommand = workerCommand('automation', 'automation', 'the background jobs (automation)');
