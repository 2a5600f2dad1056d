import type { Decider, DomainEvent } from '../../../platform/domain/index.ts';

/**
 * A test clock, as Stripe's: test-mode subscriptions made on it live in its time, and advancing it
 * makes everything due up to the new time happen. One stream per clock: `test_clock-clock_…`.
 * The events, commands and rules are written out by the test-clock work; this is their shape.
 */
export type TestClockEvent =
  | DomainEvent<'TestClockCreated', { id: string; organization_id: string; name: string | null; frozen_time: number; created_at: number }>
  | DomainEvent<'TestClockAdvanceStarted', { frozen_time: number; previous_time: number; started_at: number }>
  | DomainEvent<'TestClockAdvanced', { frozen_time: number; completed_at: number }>
  | DomainEvent<'TestClockDeleted', { deleted_at: number }>;

export type TestClockState =
  | { status: 'none' }
  | { status: 'ready' | 'advancing' | 'deleted'; id: string; organization_id: string; name: string | null; frozen_time: number };

export const testClockStream = (id: string) => `test_clock-${id}`;

export const testClockDecider: Pick<Decider<TestClockState, never, TestClockEvent>, 'initialState' | 'evolve'> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    if (event.type === 'TestClockCreated') {
      const d = event.data;
      return { status: 'ready', id: d.id, organization_id: d.organization_id, name: d.name, frozen_time: d.frozen_time };
    }
    if (state.status === 'none') return state;
    switch (event.type) {
      case 'TestClockAdvanceStarted':
        return { ...state, status: 'advancing', frozen_time: event.data.frozen_time };
      case 'TestClockAdvanced':
        return { ...state, status: 'ready' };
      case 'TestClockDeleted':
        return { ...state, status: 'deleted' };
    }
  },
};
