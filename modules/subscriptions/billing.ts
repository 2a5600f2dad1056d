import type { Services } from '../../platform/runtime/index.ts';

/**
 * Makes everything due on the clock's subscriptions up to `frozenTime` happen: trial ends,
 * renewals, retries, cancellations at period end. Called by the test-clock advance job before it
 * marks the clock ready; must be idempotent (a crash runs it again for the same time).
 */
export async function advanceClock(_services: Services, _clock: { id: string; organization_id: string }, _frozenTime: number): Promise<void> {
  return;
}

/** Ends every subscription on a deleted test clock, at `now` (the clock's time). Idempotent. */
export async function endClockSubscriptions(_services: Services, _clockId: string, _now: number): Promise<void> {
  return;
}
