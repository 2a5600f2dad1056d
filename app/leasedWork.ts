import { hostname } from 'node:os';
import type { Logger } from '../projections/projectionRunner.ts';
import type { ReadStore } from '../projections/readStore.ts';

export type Running = { stop(): Promise<void> };

export type LeaseOptions = {
  readStore: ReadStore;
  /** This process, unique among workers (host, pid and a random part). */
  owner: string;
  ttlMs: number;
  logger: Logger;
  /** Milliseconds since the epoch; leases compare the holders' clocks, so keep them in sync (NTP). */
  now?: () => number;
};

/**
 * Runs `start()` only while this process holds the lease `name`: it tries to take the lease
 * every third of its lifetime, renews it at the same pace while running, and stops the work
 * (at a safe point) when a renewal fails. When a holder dies, its lease expires and another
 * worker takes over within one lifetime. A lease is about sharing work, not correctness: the
 * projections' checkpoint compare-and-set and the automation's per-step idempotency make a short
 * overlap harmless.
 */
export function runUnderLease(name: string, options: LeaseOptions, start: () => Promise<Running>): Running {
  const { readStore, owner, ttlMs, logger } = options;
  const now = options.now ?? Date.now;
  const tick = Math.max(100, Math.floor(ttlMs / 3));
  let running: Running | null = null;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let cycle: Promise<void> = Promise.resolve();

  const step = async () => {
    let held = false;
    try {
      held = await readStore.acquireLease(name, owner, ttlMs, now());
    } catch (error) {
      logger.error({ err: error, lease: name }, 'lease check failed');
    }
    if (stopped) return;
    if (held && !running) {
      logger.info({ lease: name, owner }, 'lease taken: starting');
      try {
        running = await start();
      } catch (error) {
        logger.error({ err: error, lease: name }, 'could not start the leased work; giving the lease up');
        await readStore.releaseLease(name, owner).catch(() => undefined);
      }
    } else if (!held && running) {
      logger.info({ lease: name, owner }, 'lease lost: stopping');
      const r = running;
      running = null;
      await r.stop();
    }
  };

  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      cycle = step().finally(schedule);
    }, tick);
  };
  cycle = step().finally(schedule);

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await cycle.catch(() => undefined);
      const r = running;
      running = null;
      await r?.stop();
      // Hand over at once rather than after the lease runs out.
      await readStore.releaseLease(name, owner).catch(() => undefined);
    },
  };
}

/** `<host>-<pid>-<random>`: which machine and process holds a lease, as logs and the leases table show it. */
export function workerId(): string {
  return `${process.env.HOSTNAME ?? hostname()}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}
