import { hostname } from 'node:os';
import type { Logger } from '../es/projectionRunner.ts';
import type { ReadStore } from '../readStore/readStore.ts';

export type Running = { stop(): Promise<void> };

export type LeaseOptions = {
  readStore: ReadStore;
  /** This process, unique among workers (host, pid and a random part). */
  owner: string;
  ttlMs: number;
  logger: Logger;
  /**
   * Milliseconds since the epoch: this worker's own bookkeeping (when to renew, heartbeats). The
   * lease itself runs on the store's clock where it has one (MongoDB).
   */
  now?: () => number;
  /**
   * The workers that share these leases (one kind of worker: `projections`, `jobs`). Each one
   * announces itself there with a heartbeat and takes at most its fair share of the leases.
   */
  pool?: string;
};

/** One piece of work under the lease `name`. */
export type LeasedWork = { name: string; start: () => Promise<Running> };

/** Where workers announce themselves (read-store documents): `{id: "<pool>:<owner>", pool, owner, expires_at}`. */
export const WORKER_HEARTBEATS = 'worker_heartbeats';

type Heartbeat = { id: string; pool: string; owner: string; expires_at: number };

type Slot = LeasedWork & {
  /** Held until then, as last renewed; null while not held. */
  expiresAt: number | null;
  running: Running | null;
  /** The start or stop under way, if any: the work's own steps, which the lease timer never waits on. */
  busy: Promise<void> | null;
};

/**
 * Runs each piece of work only while this process holds its lease. Every third of a lease's
 * lifetime one timer renews what is held (started or still starting), takes free leases up to
 * this worker's fair share (leases over live workers, rounded up) and hands one back when above
 * it, so a worker that joins gets its part. After a store error the work goes on until the lease
 * would have run out. Leases share work; correctness rests on the checkpoints' compare-and-set
 * and the automation's per-step idempotency, which make a short overlap harmless.
 */
export function runUnderLeases(work: readonly LeasedWork[], options: LeaseOptions): Running {
  const { readStore, owner, ttlMs, logger } = options;
  const now = options.now ?? Date.now;
  const pool = options.pool ?? 'default';
  const tickMs = Math.max(100, Math.floor(ttlMs / 3));
  const slots: Slot[] = work.map((w) => ({ ...w, expiresAt: null, running: null, busy: null }));
  const heartbeatId = `${pool}:${owner}`;
  let live = 1;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let cycle: Promise<void> = Promise.resolve();

  /** Runs `step` after the slot's previous start or stop. */
  const serially = (slot: Slot, step: () => Promise<void>) => {
    const next = (slot.busy ?? Promise.resolve()).then(step);
    slot.busy = next;
    void next.finally(() => {
      if (slot.busy === next) slot.busy = null;
    });
  };

  const begin = (slot: Slot) =>
    serially(slot, async () => {
      logger.info({ lease: slot.name, owner }, 'lease taken: starting');
      try {
        const running = await slot.start();
        // Given up (or stopping) while it started: stop it at once.
        if (slot.expiresAt === null || stopped) await running.stop();
        else slot.running = running;
      } catch (error) {
        logger.error({ err: error, lease: slot.name }, 'could not start the leased work; giving the lease up');
        if (slot.expiresAt !== null) {
          slot.expiresAt = null;
          await readStore.releaseLease(slot.name, owner).catch(() => undefined);
        }
      }
    });

  const end = (slot: Slot, why: string, release: boolean) => {
    slot.expiresAt = null;
    serially(slot, async () => {
      const running = slot.running;
      slot.running = null;
      if (running) {
        logger.info({ lease: slot.name, owner }, `${why}: stopping`);
        await running.stop().catch((error: unknown) => logger.error({ err: error, lease: slot.name }, 'leased work did not stop cleanly'));
      }
      if (release) await readStore.releaseLease(slot.name, owner).catch(() => undefined);
    });
  };

  /** Announces this worker and counts the live ones of its pool; on a store error the last count stands. */
  const heartbeat = async (t: number) => {
    try {
      await readStore.upsert(WORKER_HEARTBEATS, { id: heartbeatId, pool, owner, expires_at: t + ttlMs } satisfies Heartbeat);
      live = Math.max(1, await readStore.count(WORKER_HEARTBEATS, { pool, expires_at: { $gt: t } }));
      // Dead workers' heartbeats, a lifetime past their end: a few per tick.
      const dead = await readStore.find<Heartbeat>(WORKER_HEARTBEATS, { filter: { pool, expires_at: { $lt: t - ttlMs } }, limit: 10 });
      for (const d of dead) await readStore.delete(WORKER_HEARTBEATS, d.id);
    } catch (error) {
      logger.error({ err: error, pool, owner }, 'worker heartbeat failed');
    }
  };

  const renew = async (slot: Slot, t: number) => {
    let held: boolean;
    try {
      held = await readStore.acquireLease(slot.name, owner, ttlMs, t);
    } catch (error) {
      // Unknown: nobody else can take it before it runs out, so keep working until the tick that
      // comes when it does (a lease of 15 s rides out an election of ~10 s).
      const keep = t + tickMs <= slot.expiresAt!;
      logger.error({ err: error, lease: slot.name, expires_at: slot.expiresAt }, keep ? 'lease renewal failed; working on until it runs out' : 'lease renewal failed');
      if (!keep) end(slot, 'lease running out unrenewed', false);
      return;
    }
    if (held) slot.expiresAt = t + ttlMs;
    else end(slot, 'lease lost', false);
  };

  const tick = async () => {
    const t = now();
    await heartbeat(t);
    if (stopped) return;
    for (const slot of slots) if (slot.expiresAt !== null) await renew(slot, t);
    const share = Math.ceil(slots.length / live);
    const held = slots.filter((s) => s.expiresAt !== null);
    // Above its share (a worker joined): hand one back per tick, at a safe point, for a newcomer to take.
    if (held.length > share) {
      // One whose work runs rather than one still starting (a rebuild would be thrown away).
      const spare = [...held].reverse().find((s) => !s.busy) ?? held[held.length - 1]!;
      end(spare, 'handing the lease over to spread the work', true);
      return;
    }
    let count = held.length;
    for (const slot of slots) {
      if (count >= share || stopped) break;
      if (slot.expiresAt !== null || slot.busy) continue;
      try {
        if (!(await readStore.acquireLease(slot.name, owner, ttlMs, t))) continue;
      } catch (error) {
        logger.error({ err: error, lease: slot.name }, 'lease check failed');
        continue;
      }
      slot.expiresAt = t + ttlMs;
      count += 1;
      begin(slot);
    }
  };

  const run = () => {
    cycle = tick()
      .catch((error: unknown) => logger.error({ err: error, owner }, 'lease tick failed'))
      .finally(() => {
        if (!stopped) timer = setTimeout(run, tickMs);
      });
  };
  run();

  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await cycle.catch(() => undefined);
      // Hand over at once rather than after the leases run out.
      for (const slot of slots) end(slot, 'worker stopping', true);
      await Promise.all(slots.map((s) => s.busy));
      await readStore.delete(WORKER_HEARTBEATS, heartbeatId).catch(() => undefined);
    },
  };
}

/** Runs `start()` only while this process holds the lease `name` (runUnderLeases with one piece of work). */
export function runUnderLease(name: string, options: LeaseOptions, start: () => Promise<Running>): Running {
  return runUnderLeases([{ name, start }], options);
}

/** `<host>-<pid>-<random>`: which machine and process holds a lease, as logs and the leases table show it. */
export function workerId(): string {
  return `${process.env.HOSTNAME ?? hostname()}-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
}
