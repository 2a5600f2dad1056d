import { afterEach, describe, expect, it, vi } from 'vitest';
import { reportedProjections } from '../../app/thread/reportedProjections.ts';

describe('projections known by what the subscriber thread reports', () => {
  afterEach(() => vi.useRealTimers());

  it('knows nothing before the first report, then each projection’s reported position', () => {
    const runner = reportedProjections();
    expect(runner.checkpointOf('catalog')).toBeUndefined();
    expect(runner.checkpoint()).toBeNull();
    runner.report([['catalog', 12], ['identity', null]]);
    expect(runner.checkpointOf('catalog')).toBe(12);
    expect(runner.checkpointOf('identity')).toBeNull();
    // One projection that applied nothing yet holds the lowest back.
    expect(runner.checkpoint()).toBeNull();
    runner.report([['identity', 9]]);
    expect(runner.checkpoint()).toBe(9);
  });

  it('waitFor resolves once every projection reported the position, false at its time-out or on stop', async () => {
    vi.useFakeTimers();
    const runner = reportedProjections();
    runner.report([['a', 1], ['b', 1]]);
    await expect(runner.waitFor(1)).resolves.toBe(true);
    const reached = runner.waitFor(5, 1000);
    runner.report([['a', 7]]);
    runner.report([['b', 5]]);
    await expect(reached).resolves.toBe(true);
    const late = runner.waitFor(50, 1000);
    await vi.advanceTimersByTimeAsync(1000);
    await expect(late).resolves.toBe(false);
    const stopped = runner.waitFor(60, 10_000);
    await runner.stop();
    await expect(stopped).resolves.toBe(false);
    await expect(runner.waitFor(1)).resolves.toBe(false);
  });
});
