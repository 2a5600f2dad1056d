import type { TestClockEvent } from './domain/testClock.ts';
import type { Projection } from '../../platform/es/index.ts';

export const TEST_CLOCKS = 'test_clocks';

export type TestClockDoc = {
  id: string;
  organization_id: string;
  name: string | null;
  frozen_time: number;
  status: 'ready' | 'advancing';
  created_at: number;
};

const CLOCK_PREFIX = 'test_clock-';

/** The organization's test clocks as the routes list them; a deleted clock leaves the read model. */
export const testClockProjection: Projection = {
  name: 'test_clocks',
  collections: [TEST_CLOCKS],
  indexes: [{ collection: TEST_CLOCKS, fields: ['organization_id', 'created_at'] }],
  eventTypes: ['TestClockCreated', 'TestClockAdvanceStarted', 'TestClockAdvanced', 'TestClockDeleted'],
  async apply(recorded, tx) {
    if (!recorded.stream.startsWith(CLOCK_PREFIX)) return;
    const id = recorded.stream.slice(CLOCK_PREFIX.length);
    const event = recorded as unknown as TestClockEvent;
    if (event.type === 'TestClockCreated') {
      const d = event.data;
      const doc: TestClockDoc = { id: d.id, organization_id: d.organization_id, name: d.name, frozen_time: d.frozen_time, status: 'ready', created_at: d.created_at };
      tx.upsert(TEST_CLOCKS, doc);
      return;
    }
    if (event.type === 'TestClockDeleted') {
      tx.delete(TEST_CLOCKS, id);
      return;
    }
    const doc = await tx.get<TestClockDoc>(TEST_CLOCKS, id);
    if (!doc) return;
    if (event.type === 'TestClockAdvanceStarted') tx.upsert(TEST_CLOCKS, { ...doc, status: 'advancing', frozen_time: event.data.frozen_time });
    else tx.upsert(TEST_CLOCKS, { ...doc, status: 'ready', frozen_time: event.data.frozen_time });
  },
};
