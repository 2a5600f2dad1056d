/**
 * Where each projection has got to, and the waits on them: what a ProjectionRunner answers
 * (checkpoint, checkpointOf, waitFor), for the runner that applies the events itself and for the
 * server thread that learns the positions from its subscriber thread.
 */
export type ProjectionPositions = {
  /** A projection's position moved (null: it has applied nothing yet); settles the waits it meets. */
  set(name: string, position: number | null): void;
  get(name: string): number | null | undefined;
  /** The lowest position across projections (null while one has applied nothing, or none is known). */
  lowest(): number | null;
  /** Resolves true once every projection is at `position` or past it, false after `timeoutMs` or on close. */
  waitFor(position: number, timeoutMs?: number): Promise<boolean>;
  /** How many waits are pending (a poller runs while there are). */
  waiting(): number;
  /** Ends every wait (false), and any later one at once. */
  close(): void;
};

export function projectionPositions(): ProjectionPositions {
  const positions = new Map<string, number | null>();
  const waiters = new Set<{ position: number; resolve: (ok: boolean) => void }>();
  let closed = false;

  const lowest = (): number | null => {
    let min = Number.POSITIVE_INFINITY;
    for (const p of positions.values()) {
      if (p === null) return null;
      min = Math.min(min, p);
    }
    return min === Number.POSITIVE_INFINITY ? null : min;
  };

  return {
    set(name, position) {
      positions.set(name, position);
      const low = lowest();
      if (low === null) return;
      for (const w of waiters) {
        if (low >= w.position) {
          waiters.delete(w);
          w.resolve(true);
        }
      }
    },
    get: (name) => positions.get(name),
    lowest,
    waiting: () => waiters.size,
    waitFor(position, timeoutMs = 5000) {
      if (closed) return Promise.resolve(false);
      const low = lowest();
      if (low !== null && low >= position) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const waiter = {
          position,
          resolve: (ok: boolean) => {
            clearTimeout(timer);
            resolve(ok);
          },
        };
        const timer = setTimeout(() => {
          waiters.delete(waiter);
          resolve(false);
        }, timeoutMs);
        waiters.add(waiter);
      });
    },
    close() {
      closed = true;
      for (const w of waiters) w.resolve(false);
      waiters.clear();
    },
  };
}
