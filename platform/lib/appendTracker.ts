import { AsyncLocalStorage } from 'node:async_hooks';

/** The highest global log position the appends of one unit of work (an HTTP request) reached. */
export type AppendTrack = { position: number | null };

const current = new AsyncLocalStorage<AppendTrack>();

/**
 * Runs `work` (and everything it starts) with `track` as the place appends report to: the
 * event store decorator calls noteAppended, so every write path of a request is covered,
 * whichever command or helper appended, without threading a position through each.
 */
export function trackingAppends<T>(track: AppendTrack, work: () => T): T {
  return current.run(track, work);
}

export function noteAppended(position: number): void {
  const track = current.getStore();
  if (track && (track.position === null || position > track.position)) track.position = position;
}
