import { allProjections } from './allProjections.ts';
import { startProjections, type Logger } from '../platform/es/projectionRunner.ts';
import type { Projection } from '../platform/es/projection.ts';
import { backgroundJobs, runJobsUnderLeases, type BackgroundJob } from './backgroundJobs.ts';
import { compose } from './compose.ts';
import type { Config } from '../platform/runtime/config.ts';
import { runUnderLeases, workerId, type Running } from '../platform/runtime/leasedWork.ts';
import type { Services } from '../platform/runtime/services.ts';

/**
 * Worker processes of the same program. Each projection, and each background job, runs in one
 * worker at a time under a lease named after it; start as many workers as you like: each takes
 * its fair share of the leases among the live workers of its kind, and the others take over what
 * a dead one held within LEASE_TTL_MS.
 */

export type Worker = { owner: string; services: Services; stop(): Promise<void> };

/** Runs the projections (no HTTP): `commerce worker projections`. */
export async function startProjectionWorker(
  config: Config,
  logger: Logger,
  projections: readonly Projection[] = allProjections,
): Promise<Worker> {
  const services = await compose(config, { runProjections: false, logger });
  const owner = workerId();
  const leased = runUnderLeases(
    projections.map((projection) => ({
      name: `projection:${projection.name}`,
      start: () => startProjections(services.store, services.readStore, [projection], logger),
    })),
    { readStore: services.readStore, owner, ttlMs: config.LEASE_TTL_MS, logger, pool: 'projections' },
  );
  return { owner, services, stop: stopAll([leased], services) };
}

/** Runs the background jobs registered in app/backgroundJobs.ts (no HTTP): `commerce worker automation`. */
export async function startAutomationWorker(
  config: Config,
  logger: Logger,
  jobs?: readonly BackgroundJob[],
): Promise<Worker> {
  // Automation reads read models (triggers, workflows), so it waits for the projection worker's checkpoints.
  const services = await compose(config, { runProjections: false, watchProjections: true, logger });
  const owner = workerId();
  const leased = runJobsUnderLeases(services, logger, { owner, ttlMs: config.LEASE_TTL_MS }, jobs ?? (await backgroundJobs()));
  return { owner, services, stop: stopAll([leased], services) };
}

function stopAll(leased: Running[], services: { close(): Promise<void> }): () => Promise<void> {
  let stopping: Promise<void> | null = null;
  return () =>
    (stopping ??= (async () => {
      await Promise.all(leased.map((l) => l.stop()));
      await services.close();
    })());
}
