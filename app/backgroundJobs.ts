import { automationJob } from '../automation/workflowRunner.ts';
import type { Logger } from '../projections/projectionRunner.ts';
import { checkoutSessionExpiryJob } from './jobs/checkoutSessionExpiry.ts';
import type { Services } from './services.ts';

export type BackgroundJob = {
  name: string;
  /** Starts the job; the returned stop() resolves once it has stopped at a safe point. */
  start(services: Services, logger: Logger): Promise<{ stop(): Promise<void> }>;
};

/**
 * Work that runs beside the API in the embedded profile (and in workers in the production
 * profile): subscribers and schedulers. Projections are started by compose() itself, since
 * every reader needs them.
 */
export const backgroundJobs: BackgroundJob[] = [automationJob, checkoutSessionExpiryJob];

export async function startBackgroundJobs(
  services: Services,
  logger: Logger,
  jobs: readonly BackgroundJob[] = backgroundJobs,
): Promise<{ stop(): Promise<void> }> {
  const started: Array<{ stop(): Promise<void> }> = [];
  for (const job of jobs) started.push(await job.start(services, logger));
  return {
    async stop() {
      await Promise.all(started.map((j) => j.stop()));
    },
  };
}
