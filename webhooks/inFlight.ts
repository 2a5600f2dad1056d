import type { Services } from '../platform/runtime/services.ts';
import { webhooksApplied } from './webhooksApplied.ts';

/** Deliveries of one resource to one endpoint go in order: this is what they share. */
export const orderKey = (endpointId: string, resource: string) => `${endpointId}|${resource}`;

/** Past this many keys, those the read model has applied are forgotten. */
const TOUCHED_PRUNE_AT = 10_000;
/** Outcomes wait at most this long for the other calls' under way, so a burst of calls records in a few commits. */
const RECORD_EVERY_MS = 50;
const RECORD_BATCH = 256;

/**
 * What the webhook job's two senders share (the dispatcher, which finds due deliveries in the
 * read model, and the fan-out's sends of the deliveries it just planned): the calls under way,
 * one concurrency limit, the keys this process wrote to lately, and the batching of records.
 */
export class InFlight {
  private readonly claimed = new Set<string>();
  private readonly touched = new Map<string, number>();
  private running = 0;
  private readonly runningTo = new Map<string, number>();
  private readonly waiting: Array<{ endpointId: string; go: () => void }> = [];
  private queued: Array<() => void> = [];
  private timer: NodeJS.Timeout | null = null;
  private soon = false;
  private readonly pending = new Set<Promise<unknown>>();
  /** The log's head when the job started: what earlier runs wrote is in the read model once it is past this. */
  private floor = -1;

  /**
   * At most `concurrency` calls at once in all, and `perEndpoint` to one endpoint: an endpoint that
   * hangs holds its own share, never every slot, so other sellers' webhooks go on.
   */
  constructor(
    readonly concurrency: number,
    readonly perEndpoint: number = concurrency,
  ) {}

  /** Deliveries written before this process started count as written at `position`. */
  startedAt(position: number | null): void {
    this.floor = position ?? -1;
  }

  /** Claims a delivery for one call; false when the other sender has it. */
  claim(id: string): boolean {
    if (this.claimed.has(id)) return false;
    this.claimed.add(id);
    return true;
  }

  release(id: string): void {
    this.claimed.delete(id);
  }

  /** Runs `work` (a call to `endpointId`) once both limits leave room for it. */
  async slot<T>(endpointId: string, work: () => Promise<T>): Promise<T> {
    if (this.hasRoom(endpointId)) this.take(endpointId);
    // A slot handed over by `free` is taken for us before we are woken.
    else await new Promise<void>((go) => this.waiting.push({ endpointId, go }));
    try {
      return await work();
    } finally {
      this.free(endpointId);
    }
  }

  /** Calls to each endpoint under way or waiting for a slot. */
  private held(): Map<string, number> {
    const held = new Map(this.runningTo);
    for (const w of this.waiting) held.set(w.endpointId, (held.get(w.endpointId) ?? 0) + 1);
    return held;
  }

  /**
   * Endpoints with as many calls under way or waiting for a slot as they may have at once: a due
   * delivery of theirs could only wait behind those.
   */
  busyEndpoints(): string[] {
    return [...this.held()].filter(([, held]) => held >= this.perEndpoint).map(([endpointId]) => endpointId);
  }

  /** The calls each endpoint may have at once beyond those under way or waiting for a slot, as they stand now. */
  room(): (endpointId: string) => number {
    const held = this.held();
    return (endpointId) => Math.max(0, this.perEndpoint - (held.get(endpointId) ?? 0));
  }

  private hasRoom(endpointId: string): boolean {
    return this.running < this.concurrency && (this.runningTo.get(endpointId) ?? 0) < this.perEndpoint;
  }

  private take(endpointId: string): void {
    this.running += 1;
    this.runningTo.set(endpointId, (this.runningTo.get(endpointId) ?? 0) + 1);
  }

  /** Gives the freed slot to the first waiter whose endpoint has room (the others keep their place). */
  private free(endpointId: string): void {
    this.running -= 1;
    const left = this.runningTo.get(endpointId)! - 1;
    if (left === 0) this.runningTo.delete(endpointId);
    else this.runningTo.set(endpointId, left);
    const next = this.waiting.findIndex((w) => this.hasRoom(w.endpointId));
    if (next < 0) return;
    const [waiter] = this.waiting.splice(next, 1);
    this.take(waiter!.endpointId);
    waiter!.go();
  }

  /** This process wrote an event of a delivery with `key` at `position`. */
  touch(key: string, position: number | null): void {
    if (position === null) return;
    if ((this.touched.get(key) ?? -1) < position) this.touched.set(key, position);
  }

  /**
   * Resolves true once the webhooks read model shows every delivery event written for `keys`
   * before this call, by this process or an earlier one (then the pending deliveries it finds for
   * them can be trusted), false after `timeoutMs`.
   */
  async applied(services: Services, keys: Iterable<string>, timeoutMs: number): Promise<boolean> {
    let position = this.floor;
    for (const key of keys) position = Math.max(position, this.touched.get(key) ?? -1);
    if (this.touched.size > TOUCHED_PRUNE_AT) {
      const at = services.projections?.checkpointOf('webhooks') ?? null;
      if (at !== null) for (const [key, p] of this.touched) if (p <= at) this.touched.delete(key);
    }
    if (position < 0) return true;
    const ok = await webhooksApplied(services, position, timeoutMs);
    if (ok && this.floor <= position) this.floor = -1;
    return ok;
  }

  /**
   * Runs `write` with the other writes queued within a few milliseconds, all in one turn of the
   * event loop: their appends share one group commit (one transaction, one fsync) instead of one
   * each as the calls' answers trickle in.
   */
  record<T>(write: () => Promise<T>): Promise<T> {
    const done = new Promise<T>((resolve, reject) => {
      this.queued.push(() => void write().then(resolve, reject));
    });
    // Every call under way has its record queued (a lone call above all) and no more wait for a
    // slot: nothing is worth waiting for, so they go at the next turn. Under a backlog (every slot
    // taken) they gather for RECORD_EVERY_MS or RECORD_BATCH records: each commit is an fsync.
    const saturated = this.running >= this.concurrency || this.waiting.length > 0;
    if (this.queued.length >= RECORD_BATCH || (!saturated && this.queued.length >= Math.max(1, this.running))) {
      if (!this.soon) {
        this.soon = true;
        setImmediate(() => this.flush());
      }
    } else if (!this.timer) this.timer = setTimeout(() => this.flush(), RECORD_EVERY_MS);
    const tracked = done.catch(() => undefined);
    this.pending.add(tracked);
    void tracked.then(() => this.pending.delete(tracked));
    return done;
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.soon = false;
    const now = this.queued;
    this.queued = [];
    for (const write of now) write();
  }

  /** Writes every queued record now and waits for all of them. */
  async drain(): Promise<void> {
    this.flush();
    await Promise.all(this.pending);
  }
}
