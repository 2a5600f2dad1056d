/** What the server's thread and its subscriber thread say to each other (structured-clone data only). */

/** Each projection's position as the subscriber thread last applied it (null: nothing yet). */
export type Positions = Array<[name: string, position: number | null]>;

export type LogLevel = 'error' | 'warn' | 'info';

/** From the subscriber thread to the server's. */
export type FromSubscribers =
  | { type: 'ready'; positions: Positions }
  | { type: 'progress'; positions: Positions }
  /** Counts since the last report, for the server's /metrics. */
  | { type: 'metrics'; appended: Array<[eventType: string, count: number]>; webhooks: { success: number; failure: number } }
  | { type: 'log'; level: LogLevel; msg: string; obj: Record<string, unknown> }
  /** Starting failed (the thread then ends): the server reports it as its own start's failure. */
  | { type: 'failed'; name: string; message: string }
  | { type: 'stopped' };

/** From the server's thread to the subscriber thread. */
export type ToSubscribers =
  /** The server appended events: subscriptions look for them now rather than at their next poll. */
  | { type: 'appended' }
  /** The server listens: the background jobs may start (a server that cannot listen must not take their leases). */
  | { type: 'start-jobs' }
  /** Stop the jobs, let the projections reach the head, close, then say `stopped`. */
  | { type: 'stop' };

/** An error as a log line can carry it across threads (an Error's own fields do not all survive cloning). */
export function loggable(obj: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(obj)) {
    out[key] = value instanceof Error ? { type: value.name, message: value.message, stack: value.stack, code: (value as { code?: unknown }).code } : value;
  }
  return out;
}
