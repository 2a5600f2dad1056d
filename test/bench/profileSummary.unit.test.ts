import { describe, expect, it } from 'vitest';
import { summarize, type CpuProfile } from '../../bench/profileSummary.ts';

const frame = (id: number, functionName: string, url: string, children: number[] = []) => ({ id, callFrame: { functionName, url }, children });

/**
 * A profile as V8's inspector writes it: a tree of frames, and samples naming the frame each was
 * taken in, with the µs since the one before.
 */
const profile: CpuProfile = {
  nodes: [
    frame(1, '(root)', '', [2, 5, 8, 9, 10]),
    frame(2, 'processTicksAndRejections', 'node:internal/process/task_queues', [3]),
    frame(3, 'writeH1', 'file:///app/node_modules/undici/lib/dispatcher/client-h1.js', [4]),
    frame(4, 'writev', '', []),
    frame(5, 'appendOne', 'file:///app/eventStore/sqlite/sqliteEventStore.ts', [6]),
    frame(6, 'stringify', '', []),
    frame(8, '(idle)', ''),
    frame(9, '(garbage collector)', ''),
    frame(10, 'dispatch', 'node:inspector'),
  ],
  samples: [4, 4, 6, 8, 9, 10, 2],
  timeDeltas: [1000, 1000, 2000, 50_000, 500, 7000, 300],
};

describe('profileSummary', () => {
  it('charges a native frame to the first part up its callers, Node internals to none, and leaves idle and the profiler out', () => {
    const { total, parts } = summarize(profile);
    expect(Object.fromEntries(parts)).toEqual({
      'the HTTP call, client side (undici, the guarded client)': 2,
      'the event log (reads, appends, commits)': 2,
      'garbage collection (main thread)': 0.5,
      'other (Node internals, timers, microtasks)': 0.3,
    });
    expect(total).toBeCloseTo(4.8);
  });
});
