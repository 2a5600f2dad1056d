import type { Decider, DomainEvent } from '../shared/decider.ts';
import { conflict, invalid, notFound } from '../shared/domainError.ts';

export type OrganizationEvent =
  | DomainEvent<'OrganizationCreated', { id: string; name: string; timezone: string; created_at: number }>
  | DomainEvent<'OrganizationUpdated', { name: string; timezone: string; updated_at: number }>;

export type OrganizationCommand =
  | { type: 'CreateOrganization'; id: string; name: string; timezone: string; now: number }
  | { type: 'UpdateOrganization'; name: string; timezone: string; now: number };

export type OrganizationState =
  | { status: 'none' }
  | { status: 'active'; id: string; name: string; timezone: string };

export const organizationStream = (id: string) => `organization-${id}`;

export const organizationDecider: Decider<OrganizationState, OrganizationCommand, OrganizationEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'OrganizationCreated':
        return { status: 'active', id: event.data.id, name: event.data.name, timezone: event.data.timezone };
      case 'OrganizationUpdated':
        return state.status === 'active' ? { ...state, name: event.data.name, timezone: event.data.timezone } : state;
    }
  },
  decide(command, state) {
    if (command.name.trim() === '') throw invalid('invalid_name', 'The name field is required.', 'name');
    switch (command.type) {
      case 'CreateOrganization':
        if (state.status !== 'none') throw conflict('organization_exists', 'The organization already exists.');
        return {
          type: 'OrganizationCreated',
          data: { id: command.id, name: command.name, timezone: command.timezone, created_at: command.now },
        };
      case 'UpdateOrganization':
        if (state.status === 'none') throw notFound('Organization');
        if (state.name === command.name && state.timezone === command.timezone) return [];
        return { type: 'OrganizationUpdated', data: { name: command.name, timezone: command.timezone, updated_at: command.now } };
    }
  },
};
