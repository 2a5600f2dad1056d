import { describe, expect, it } from 'vitest';
import type { EventStore } from '../../platform/eventStore/eventStore.ts';
import { CheckpointAheadError, assertCheckpointInLog } from '../../platform/es/assertCheckpointInLog.ts';

/**
 * An EventStoreDB log as the check sees it: our last event at 5_000, the server's own records
 * (stats, `$`-streams) after it up to 9_000. A filtered subscription's checkpoints may name those.
 */
const esdbLike = { headPosition: async () => 5_000, endPosition: async () => 9_000 } as unknown as EventStore;
const empty = { headPosition: async () => null, endPosition: async () => 120 } as unknown as EventStore;

describe('assertCheckpointInLog against the log\'s true end', () => {
  it('takes a checkpoint on a server record past our last event, or at (0, 0) of a log without events of ours', async () => {
    await expect(assertCheckpointInLog(esdbLike, 'automation', 7_500, 'rebuild')).resolves.toBeUndefined();
    await expect(assertCheckpointInLog(esdbLike, 'automation', 9_000, 'rebuild')).resolves.toBeUndefined();
    await expect(assertCheckpointInLog(empty, 'automation', 0, 'rebuild')).resolves.toBeUndefined();
  });

  it('refuses one past the last record of any kind', async () => {
    await expect(assertCheckpointInLog(esdbLike, 'automation', 9_001, 'rebuild')).rejects.toBeInstanceOf(CheckpointAheadError);
    await expect(assertCheckpointInLog(empty, 'automation', 121, 'rebuild')).rejects.toThrow(/past the end of the event log \(head 120\)/);
  });
});
