import { describe, expect, it } from 'vitest';
import { InFlight } from '../../webhooks/inFlight.ts';

/** A call that ends when the test says so. */
function call() {
  let end!: () => void;
  const ended = new Promise<void>((r) => (end = r));
  return { ended, end };
}

describe('InFlight slots', () => {
  it('runs at most perEndpoint calls to one endpoint and concurrency in all, and gives a freed slot to the first waiter with room', async () => {
    const slots = new InFlight(3, 2);
    const started: string[] = [];
    const calls = new Map<string, ReturnType<typeof call>>();
    const run = (endpoint: string, name: string) =>
      slots.slot(endpoint, () => {
        started.push(name);
        const c = call();
        calls.set(name, c);
        return c.ended;
      });
    const all = [run('A', 'a1'), run('A', 'a2'), run('A', 'a3'), run('B', 'b1'), run('C', 'c1')];
    await Promise.resolve();
    // a3 waits for A's room; b1 takes the third slot; c1 waits for any.
    expect(started).toEqual(['a1', 'a2', 'b1']);
    calls.get('b1')!.end();
    // b1's slot: a3 is first in line but A is full, so c1 gets it.
    await expect.poll(() => started).toEqual(['a1', 'a2', 'b1', 'c1']);
    calls.get('a1')!.end();
    await expect.poll(() => started).toEqual(['a1', 'a2', 'b1', 'c1', 'a3']);
    for (const name of ['a2', 'c1', 'a3']) calls.get(name)!.end();
    await Promise.all(all);
  });

  it('names the endpoints with no room, and claims only what fits in each endpoint’s room', async () => {
    const slots = new InFlight(10, 2);
    const calls = [call(), call(), call()];
    const under = [slots.slot('A', () => calls[0]!.ended), slots.slot('A', () => calls[1]!.ended), slots.slot('B', () => calls[2]!.ended)];
    expect(slots.busyEndpoints()).toEqual(['A']);
    slots.claim('b-held');
    const due = ['a1', 'b1', 'b-held', 'b2', 'c1', 'c2', 'c3'].map((id) => ({ id, endpoint_id: id[0]!.toUpperCase() }));
    // A has no room, B room for one (b-held is claimed elsewhere), C for two.
    expect(slots.claimWithinRoom(due).map((d) => d.id)).toEqual(['b1', 'c1', 'c2']);
    expect(slots.claim('c1')).toBe(false);
    expect(slots.claim('b2')).toBe(true);
    calls.forEach((c) => c.end());
    await Promise.all(under);
    expect(slots.busyEndpoints()).toEqual([]);
  });
});
