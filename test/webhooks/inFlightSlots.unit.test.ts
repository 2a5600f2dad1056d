import { describe, expect, it } from 'vitest';
import { InFlight } from '../../modules/webhooks/jobs/inFlight.ts';

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

  it('names the endpoints with as many calls under way or waiting as they may have', async () => {
    const slots = new InFlight(3, 2);
    const calls = [call(), call(), call(), call()];
    const under = [slots.slot('A', () => calls[0]!.ended), slots.slot('B', () => calls[1]!.ended)];
    expect(slots.busyEndpoints()).toEqual([]);
    under.push(slots.slot('A', () => calls[2]!.ended));
    expect(slots.busyEndpoints()).toEqual(['A']);
    // C waits for a slot in all: one call held, its limit is two.
    under.push(slots.slot('C', () => calls[3]!.ended));
    expect(slots.busyEndpoints()).toEqual(['A']);
    calls[0]!.end();
    await expect.poll(() => slots.busyEndpoints()).toEqual([]);
    calls.forEach((c) => c.end());
    await Promise.all(under);
  });
});
