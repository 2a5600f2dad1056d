import { type Decider, type DomainEvent, conflict, invalid, notFound } from '../../../platform/domain/index.ts';

/**
 * A test clock, as Stripe's: test-mode subscriptions made on it live in its time, and advancing it
 * makes everything due up to the new time happen. One stream per clock: `test_clock-clock_…`.
 * Advancing is two steps: the advance records the new time (`advancing`), the advance job runs
 * what fell due and records that it is done (`ready`).
 */
export type TestClockEvent =
  | DomainEvent<'TestClockCreated', { id: string; organization_id: string; name: string | null; frozen_time: number; created_at: number }>
  | DomainEvent<'TestClockAdvanceStarted', { frozen_time: number; previous_time: number; started_at: number }>
  | DomainEvent<'TestClockAdvanced', { frozen_time: number; completed_at: number }>
  | DomainEvent<'TestClockDeleted', { deleted_at: number }>;

export type TestClockState =
  | { status: 'none' }
  | { status: 'ready' | 'advancing' | 'deleted'; id: string; organization_id: string; name: string | null; frozen_time: number; created_at: number };

export type TestClockCommand =
  | { type: 'CreateTestClock'; id: string; organizationId: string; name: string | null; frozenTime: number; now: number }
  | { type: 'AdvanceTestClock'; frozenTime: number; now: number }
  /** The advance job ran everything due up to the clock's time. */
  | { type: 'FinishAdvance'; now: number }
  | { type: 'DeleteTestClock'; now: number };

export const testClockStream = (id: string) => `test_clock-${id}`;

/** Unix seconds a clock may show: from 1970 to the end of year 9999. */
export const MAX_FROZEN_TIME = 253_402_300_799;

function assertTime(frozenTime: number): void {
  if (!Number.isInteger(frozenTime) || frozenTime < 0 || frozenTime > MAX_FROZEN_TIME) {
    throw invalid('invalid_frozen_time', `The frozen time must be whole Unix seconds between 0 and ${MAX_FROZEN_TIME}.`, 'frozen_time');
  }
}

export const testClockDecider: Decider<TestClockState, TestClockCommand, TestClockEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    if (event.type === 'TestClockCreated') {
      const d = event.data;
      return { status: 'ready', id: d.id, organization_id: d.organization_id, name: d.name, frozen_time: d.frozen_time, created_at: d.created_at };
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
  decide(command, state) {
    switch (command.type) {
      case 'CreateTestClock':
        if (state.status !== 'none') throw conflict('test_clock_exists', 'The test clock already exists.');
        assertTime(command.frozenTime);
        return {
          type: 'TestClockCreated',
          data: { id: command.id, organization_id: command.organizationId, name: command.name, frozen_time: command.frozenTime, created_at: command.now },
        };
      case 'AdvanceTestClock':
        if (state.status === 'none' || state.status === 'deleted') throw notFound('Test clock');
        // As Stripe: one advance at a time; what the first made due must happen before more falls due.
        if (state.status === 'advancing') throw conflict('test_clock_advancing', 'The test clock is still advancing; advance it again once its status is ready.');
        assertTime(command.frozenTime);
        if (command.frozenTime <= state.frozen_time) {
          throw invalid('test_clock_backwards', `A test clock only moves forward: the frozen time must be after ${state.frozen_time}.`, 'frozen_time');
        }
        return { type: 'TestClockAdvanceStarted', data: { frozen_time: command.frozenTime, previous_time: state.frozen_time, started_at: command.now } };
      case 'FinishAdvance':
        // A repeated or late finish (the clock was deleted meanwhile) decides nothing.
        if (state.status !== 'advancing') return [];
        return { type: 'TestClockAdvanced', data: { frozen_time: state.frozen_time, completed_at: command.now } };
      case 'DeleteTestClock':
        if (state.status === 'none' || state.status === 'deleted') throw notFound('Test clock');
        return { type: 'TestClockDeleted', data: { deleted_at: command.now } };
    }
  },
};
