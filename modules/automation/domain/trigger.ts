import { conflict, type Decider, type DomainEvent, invalid, notFound } from '../../../platform/domain/index.ts';
import { isWebhookEventType, type WebhookEventType } from '../../webhooks/domain/eventTypes.ts';

/**
 * A webhook trigger starts its sequence on a request to its catch URL; an event trigger on each
 * event of its type the organization's log records (a sale, an expiry...), with no URL at all.
 */
export type TriggerType = 'webhook' | 'event';

export type TriggerEvent =
  | DomainEvent<
      'TriggerCreated',
      {
        id: number;
        organization_id: string;
        sequence_id: number;
        key: string | null;
        name: string;
        trigger_type: TriggerType;
        /** The event type an event trigger starts on (absent for webhook triggers). */
        event_type?: WebhookEventType;
        enabled: boolean;
        /** The secret second segment of the catch URL; empty for an event trigger, which has none. */
        route_key: string;
        created_at: number;
      }
    >
  /** Replacing a trigger gives it a new URL; the old one answers 404 from then on. */
  | DomainEvent<'TriggerReplaced', { route_key: string; replaced_at: number }>
  | DomainEvent<'TriggerEnabled', { at: number }>
  | DomainEvent<'TriggerDisabled', { at: number }>
  /** A person chose a received request as the trigger's sample record (a copy: masked headers, as received). */
  | DomainEvent<'TriggerSampleChosen', { sample: TriggerSample; chosen_at: number }>;

export type TriggerSample = {
  method: string;
  payload: Record<string, unknown>;
  query: Record<string, unknown>;
  headers: Record<string, string>;
  received_at: number;
};

export type TriggerCommand =
  | {
      type: 'CreateTrigger';
      id: number;
      organizationId: string;
      sequenceId: number;
      /** Checked by the caller against the sequence stream. */
      sequenceOrganizationId: string | null;
      key: string | null;
      name: string;
      enabled: boolean;
      routeKey: string;
      /** An event trigger's event type; absent for a webhook trigger. */
      eventType?: string;
      now: number;
    }
  | { type: 'ReplaceTrigger'; routeKey: string; now: number }
  | { type: 'SetTriggerEnabled'; enabled: boolean; now: number }
  | { type: 'ChooseSample'; sample: TriggerSample; now: number };

export type TriggerState =
  | { status: 'none' }
  | {
      status: 'created';
      id: number;
      organizationId: string;
      sequenceId: number;
      name: string;
      enabled: boolean;
      routeKey: string;
      triggerType: TriggerType;
      eventType?: WebhookEventType;
      sample?: TriggerSample;
    };

export const triggerStream = (id: number) => `automation_trigger-${id}`;

/** A trigger's import key, claimed once per sequence on its own stream (see sequenceKeyStream). */
export const triggerImportKeyStream = (keyHash: string) => `automation_trigger_import_key-${keyHash}`;
export type TriggerKeyClaimedEvent = DomainEvent<'TriggerKeyClaimed', { organization_id: string; sequence_id: number; key: string; trigger_id: number }>;

export const triggerDecider: Decider<TriggerState, TriggerCommand, TriggerEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'TriggerCreated': {
        const d = event.data;
        return {
          status: 'created',
          id: d.id,
          organizationId: d.organization_id,
          sequenceId: d.sequence_id,
          name: d.name,
          enabled: d.enabled,
          routeKey: d.route_key,
          triggerType: d.trigger_type ?? 'webhook',
          ...(d.event_type ? { eventType: d.event_type } : {}),
        };
      }
      case 'TriggerReplaced':
        return state.status === 'none' ? state : { ...state, routeKey: event.data.route_key };
      case 'TriggerEnabled':
        return state.status === 'none' ? state : { ...state, enabled: true };
      case 'TriggerDisabled':
        return state.status === 'none' ? state : { ...state, enabled: false };
      case 'TriggerSampleChosen':
        return state.status === 'none' ? state : { ...state, sample: event.data.sample };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'CreateTrigger':
        if (state.status !== 'none') throw conflict('trigger_exists', 'The trigger already exists.');
        if (command.sequenceOrganizationId !== command.organizationId) throw notFound('Sequence');
        if (command.name.trim() === '') throw invalid('invalid_name', 'The name field is required.', 'name');
        if (command.eventType !== undefined && !isWebhookEventType(command.eventType)) {
          throw invalid('invalid_event_type', 'The event_type field must be one of the event types of event webhooks.', 'event_type');
        }
        return {
          type: 'TriggerCreated',
          data: {
            id: command.id,
            organization_id: command.organizationId,
            sequence_id: command.sequenceId,
            key: command.key,
            name: command.name,
            trigger_type: command.eventType === undefined ? 'webhook' : 'event',
            ...(command.eventType === undefined ? {} : { event_type: command.eventType }),
            enabled: command.enabled,
            route_key: command.eventType === undefined ? command.routeKey : '',
            created_at: command.now,
          },
        };
      case 'ReplaceTrigger':
        if (state.status === 'none') throw notFound('Trigger');
        if (state.triggerType === 'event') throw conflict('event_trigger', 'An event trigger has no catch URL to replace.');
        return { type: 'TriggerReplaced', data: { route_key: command.routeKey, replaced_at: command.now } };
      case 'SetTriggerEnabled':
        if (state.status === 'none') throw notFound('Trigger');
        if (state.enabled === command.enabled) return [];
        return command.enabled ? { type: 'TriggerEnabled', data: { at: command.now } } : { type: 'TriggerDisabled', data: { at: command.now } };
      case 'ChooseSample':
        if (state.status === 'none') throw notFound('Trigger');
        return { type: 'TriggerSampleChosen', data: { sample: command.sample, chosen_at: command.now } };
    }
  },
};
