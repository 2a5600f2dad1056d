import type { Decider, DomainEvent } from '../../../platform/domain/index.ts';

/**
 * One Stripe event as this service handled it, on a stream named after its id: Stripe delivers at
 * least once, so a second delivery finds the stream and changes nothing.
 */
export type StripeEventEvent = DomainEvent<'StripeEventHandled', { event_id: string; event_type: string; organization_id: string; outcome: string; handled_at: number }>;
export type StripeEventCommand = { type: 'Handle'; eventId: string; eventType: string; organizationId: string; outcome: string; now: number };
export type StripeEventState = { handled: boolean };

export const stripeEventStream = (organizationId: string, eventId: string) => `stripe_event-${organizationId}-${eventId}`;

export const stripeEventDecider: Decider<StripeEventState, StripeEventCommand, StripeEventEvent> = {
  initialState: () => ({ handled: false }),
  evolve: () => ({ handled: true }),
  decide(command, state) {
    if (state.handled) return [];
    return {
      type: 'StripeEventHandled',
      data: { event_id: command.eventId, event_type: command.eventType, organization_id: command.organizationId, outcome: command.outcome, handled_at: command.now },
    };
  },
};
