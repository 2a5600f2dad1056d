/** Deliveries of one resource to one endpoint go in order: this is what they share. */
export const orderKey = (endpointId: string, resource: string) => `${endpointId}|${resource}`;

/** The dispatcher's claimed deliveries, and how many calls run at once, in all and per endpoint. */
export class InFlight {
  private readonly claimed = new Set<string>();
  private running = 0;
  private readonly runningTo = new Map<string, number>();
  private readonly waiting: Array<{ endpointId: string; go: () => void }> = [];
  /** Calls under way or waiting for a slot, by endpoint. */
  private readonly heldBy = new Map<string, number>();

  /** A hanging endpoint holds its own `perEndpoint` share, never every slot. */
  constructor(
    readonly concurrency: number,
    readonly perEndpoint: number = concurrency,
  ) {}

  /** Claims a delivery for one call; false when it is claimed already. */
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
    this.heldBy.set(endpointId, this.held(endpointId) + 1);
    if (this.hasRoom(endpointId)) this.take(endpointId);
    // A slot handed over by `free` is taken for us before we are woken.
    else await new Promise<void>((go) => this.waiting.push({ endpointId, go }));
    try {
      return await work();
    } finally {
      const held = this.held(endpointId) - 1;
      if (held === 0) this.heldBy.delete(endpointId);
      else this.heldBy.set(endpointId, held);
      this.free(endpointId);
    }
  }

  /** Calls waiting for a slot, to any endpoint. */
  queued(): number {
    return this.waiting.length;
  }

  /** Calls to `endpointId` under way or waiting for a slot. */
  held(endpointId: string): number {
    return this.heldBy.get(endpointId) ?? 0;
  }

  /** Endpoints holding as many calls as they may run at once: more of theirs could only wait. */
  busyEndpoints(): string[] {
    return [...this.heldBy].filter(([, n]) => n >= this.perEndpoint).map(([endpointId]) => endpointId);
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
}
