import { Generations } from '../../lib/generations.ts';

type Window = { current: number; startedMs: number };
type Answer = { current: number; ttl: number };

/**
 * The rate limiter's counters (a store for @fastify/rate-limit), timed by the monotonic clock.
 * The plugin's own store times windows by Date.now(): when the wall clock steps back (an NTP
 * correction, a VM restored from a snapshot), a window that has hit its limit stays shut for as
 * long as the clock went back, an hour for an hour, and Retry-After says so.
 *
 * Fixed windows per key, as the plugin's store counts them; about `2 × keysPerRoute` keys are
 * kept per route, least recently used out first.
 */
export class MonotonicRateLimitStore {
  private readonly windows: Generations<string, Window>;

  constructor(
    _options?: unknown,
    private readonly keysPerRoute = 5000,
    private readonly nowMs: () => number = () => performance.now(),
  ) {
    this.windows = new Generations(keysPerRoute);
  }

  incr(key: string, done: (error: Error | null, answer: Answer) => void, timeWindow: number): void {
    const now = this.nowMs();
    let window = this.windows.get(key);
    if (!window || window.startedMs + timeWindow <= now) {
      window = { current: 0, startedMs: now };
      this.windows.set(key, window);
    }
    window.current += 1;
    done(null, { current: window.current, ttl: window.startedMs + timeWindow - now });
  }

  read(key: string, done: (error: Error | null, answer: Answer) => void, timeWindow: number): void {
    const now = this.nowMs();
    const window = this.windows.get(key);
    if (!window || window.startedMs + timeWindow <= now) done(null, { current: 0, ttl: 0 });
    else done(null, { current: window.current, ttl: window.startedMs + timeWindow - now });
  }

  /** One store per route, as the plugin asks: routes count apart. */
  child(): MonotonicRateLimitStore {
    return new MonotonicRateLimitStore(undefined, this.keysPerRoute, this.nowMs);
  }
}
