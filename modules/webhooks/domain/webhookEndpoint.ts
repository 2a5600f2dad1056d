import { type Decider, DomainError, type DomainEvent, notFound } from '../../../platform/domain/index.ts';
import type { WebhookEventType } from './eventTypes.ts';

/**
 * A signing secret, recorded sealed (never in plain text). After a rotation the previous one keeps
 * signing until its `expires_at`, so receivers can roll over.
 */
export type SealedSecret = { sealed: string; expires_at: number | null };

export type DisabledReason = 'manual' | 'failing';

export type WebhookEndpointEvent =
  | DomainEvent<
      'WebhookEndpointCreated',
      { id: string; organization_id: string; url: string; event_types: WebhookEventType[]; enabled: boolean; secret: string; created_at: number }
    >
  | DomainEvent<'WebhookEndpointUpdated', { url?: string; event_types?: WebhookEventType[]; enabled?: boolean; updated_at: number }>
  | DomainEvent<'WebhookEndpointSecretRotated', { secret: string; previous_expires_at: number; rotated_at: number }>
  | DomainEvent<'WebhookEndpointDisabled', { reason: DisabledReason; failing_since: number | null; disabled_at: number }>
  | DomainEvent<'WebhookEndpointDeleted', { deleted_at: number }>;

export type WebhookEndpointCommand =
  | { type: 'Create'; id: string; organizationId: string; url: string; eventTypes: WebhookEventType[]; enabled: boolean; sealedSecret: string; now: number }
  | { type: 'Update'; organizationId: string; url?: string; eventTypes?: WebhookEventType[]; enabled?: boolean; now: number }
  | { type: 'RotateSecret'; organizationId: string; sealedSecret: string; overlapSeconds: number; now: number }
  | { type: 'DisableFailing'; failingSince: number; now: number }
  | { type: 'Delete'; organizationId: string; now: number };

export type WebhookEndpointState = {
  id: string | null;
  organization_id: string | null;
  deleted: boolean;
  url: string;
  event_types: WebhookEventType[];
  enabled: boolean;
  disabled_reason: DisabledReason | null;
  /** Newest first: the current secret, then rotated ones until they expire. */
  secrets: SealedSecret[];
  created_at: number;
  updated_at: number;
};

export const webhookEndpointStream = (id: string) => `webhook_endpoint-${id}`;

/** The secrets that sign at `now`: the current one and any rotated one still in its overlap. */
export const signingSecrets = (state: WebhookEndpointState, now: number): string[] =>
  state.secrets.filter((s) => s.expires_at === null || s.expires_at > now).map((s) => s.sealed);

const gone = () => notFound('Webhook endpoint', 'webhook_endpoint_not_found');

export const webhookEndpointDecider: Decider<WebhookEndpointState, WebhookEndpointCommand, WebhookEndpointEvent> = {
  initialState: () => ({
    id: null,
    organization_id: null,
    deleted: false,
    url: '',
    event_types: [],
    enabled: false,
    disabled_reason: null,
    secrets: [],
    created_at: 0,
    updated_at: 0,
  }),
  evolve(state, event) {
    switch (event.type) {
      case 'WebhookEndpointCreated': {
        const { secret, ...d } = event.data;
        return { ...state, ...d, disabled_reason: d.enabled ? null : 'manual', secrets: [{ sealed: secret, expires_at: null }], updated_at: d.created_at };
      }
      case 'WebhookEndpointUpdated': {
        const d = event.data;
        const enabled = d.enabled ?? state.enabled;
        return {
          ...state,
          url: d.url ?? state.url,
          event_types: d.event_types ?? state.event_types,
          enabled,
          disabled_reason: enabled ? null : d.enabled === false ? 'manual' : state.disabled_reason,
          updated_at: d.updated_at,
        };
      }
      case 'WebhookEndpointSecretRotated': {
        const d = event.data;
        const kept = state.secrets
          .map((s, i) => (i === 0 ? { ...s, expires_at: d.previous_expires_at } : s))
          .filter((s) => s.expires_at === null || s.expires_at > d.rotated_at);
        return { ...state, secrets: [{ sealed: d.secret, expires_at: null }, ...kept], updated_at: d.rotated_at };
      }
      case 'WebhookEndpointDisabled':
        return { ...state, enabled: false, disabled_reason: event.data.reason, updated_at: event.data.disabled_at };
      case 'WebhookEndpointDeleted':
        return { ...state, deleted: true, enabled: false, updated_at: event.data.deleted_at };
    }
  },
  decide(command, state) {
    if (command.type === 'Create') {
      if (state.id !== null) throw new DomainError('conflict', 'webhook_endpoint_exists', 'The webhook endpoint already exists.');
      const { id, organizationId: organization_id, url, eventTypes: event_types, enabled, sealedSecret: secret, now: created_at } = command;
      return { type: 'WebhookEndpointCreated', data: { id, organization_id, url, event_types, enabled, secret, created_at } };
    }
    if (state.id === null || state.deleted) throw gone();
    // Another organization's endpoint answers exactly like one that does not exist.
    if (command.type !== 'DisableFailing' && command.organizationId !== state.organization_id) throw gone();
    switch (command.type) {
      case 'Update': {
        const data: Extract<WebhookEndpointEvent, { type: 'WebhookEndpointUpdated' }>['data'] = { updated_at: command.now };
        if (command.url !== undefined && command.url !== state.url) data.url = command.url;
        if (command.eventTypes !== undefined && command.eventTypes.join() !== state.event_types.join()) data.event_types = command.eventTypes;
        if (command.enabled !== undefined && command.enabled !== state.enabled) data.enabled = command.enabled;
        return Object.keys(data).length === 1 ? [] : { type: 'WebhookEndpointUpdated', data };
      }
      case 'RotateSecret':
        return {
          type: 'WebhookEndpointSecretRotated',
          data: { secret: command.sealedSecret, previous_expires_at: command.now + command.overlapSeconds, rotated_at: command.now },
        };
      case 'DisableFailing':
        if (!state.enabled) return [];
        return { type: 'WebhookEndpointDisabled', data: { reason: 'failing', failing_since: command.failingSince, disabled_at: command.now } };
      case 'Delete':
        return { type: 'WebhookEndpointDeleted', data: { deleted_at: command.now } };
    }
  },
};
