import type { Logger } from '../platform/es/projectionRunner.ts';
import { runUnderLeases, type Running } from '../platform/runtime/leasedWork.ts';
import type { BackgroundJob, Services } from '../platform/runtime/services.ts';
import { modules } from './modules.ts';

export type { BackgroundJob };

/**
 * Work that runs beside the API in the embedded profile (and in workers in the production
 * profile): subscribers and schedulers. Projections are started by compose() itself, since
 * every reader needs them.
 */
export async function backgroundJobs(): Promise<BackgroundJob[]> {
  return (await Promise.all(modules.map((m) => m.jobs()))).flat();
}

export async function startBackgroundJobs(
  services: Services,
  logger: Logger,
  jobs?: readonly BackgroundJob[],
): Promise<{ stop(): Promise<void> }> {
  const started: Array<{ stop(): Promise<void> }> = [];
  for (const job of jobs ?? (await backgroundJobs())) started.push(await job.start(services, logger));
  return {
    async stop() {
      await Promise.all(started.map((j) => j.stop()));
    },
  };
}

/**
 * Each background job under a lease named after it (`job:<name>`): however many processes run
 * them on the same stores (automation workers, or several `serve` of the embedded profile on one
 * data directory), one runs each job at a time, and another takes over within `ttlMs` of its end.
 */
export function runJobsUnderLeases(
  services: Services,
  logger: Logger,
  lease: { owner: string; ttlMs: number },
  jobs: readonly BackgroundJob[],
): Running {
  return runUnderLeases(
    jobs.map((job) => ({ name: `job:${job.name}`, start: () => startBackgroundJobs(services, logger, [job]) })),
    { readStore: services.readStore, owner: lease.owner, ttlMs: lease.ttlMs, logger, pool: 'jobs' },
  );
}
