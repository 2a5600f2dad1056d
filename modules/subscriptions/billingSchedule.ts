import type { RecordedEvent } from '../../platform/eventStore/index.ts';
import type { Projection, ProjectionTx } from '../../platform/es/index.ts';
import { nextDueAt, subscriptionDecider, type SubscriptionEvent, type SubscriptionState } from './domain/subscription.ts';

export const SUBSCRIPTION_SCHEDULE = 'subscription_schedule';

/** When each subscription next has something due, on which clock (`''`: real time). */
export type ScheduleDoc = { id: string; organization_id: string; clock: string; due_at: number | null; state: SubscriptionState };

/**
 * The billing process's index: it finds what is due here, then decides on the subscription's
 * stream. Keeps the folded state, so each event costs one fold step.
 */
export const billingScheduleProjection: Projection = {
  name: 'subscription-schedule',
  collections: [SUBSCRIPTION_SCHEDULE],
  indexes: [{ collection: SUBSCRIPTION_SCHEDULE, fields: ['clock', 'due_at'] }],
  eventTypes: 'all',
  async apply(recorded: RecordedEvent, tx: ProjectionTx) {
    if (!recorded.stream.startsWith('subscription-') || !recorded.type.startsWith('Subscription')) return;
    const id = recorded.stream.slice('subscription-'.length);
    const current = await tx.get<ScheduleDoc>(SUBSCRIPTION_SCHEDULE, id);
    const state = subscriptionDecider.evolve(current?.state ?? subscriptionDecider.initialState(), recorded as unknown as SubscriptionEvent);
    if (state.status === 'none') return;
    tx.upsert(SUBSCRIPTION_SCHEDULE, { id, organization_id: state.sub.organization_id, clock: state.sub.test_clock ?? '', due_at: nextDueAt(state), state });
  },
};
