import type { Decider, DomainEvent } from '../shared/decider.ts';
import { conflict, notFound } from '../shared/domainError.ts';

export type UserEvent =
  | DomainEvent<'UserCreated', { id: string; email: string; organization_id: string; created_at: number }>
  | DomainEvent<'UserJoinedOrganization', { organization_id: string; joined_at: number }>
  | DomainEvent<'UserSwitchedOrganization', { organization_id: string }>;

export type UserCommand =
  | { type: 'CreateUser'; id: string; email: string; organizationId: string; now: number }
  | { type: 'JoinOrganization'; organizationId: string; now: number }
  | { type: 'SwitchOrganization'; organizationId: string };

export type UserState =
  | { status: 'none' }
  | { status: 'active'; id: string; email: string; memberships: string[]; currentOrganizationId: string };

export const userStream = (id: string) => `user-${id}`;

/** Emails are unique across users: a stream per normalised email can only be created once. */
export const userEmailStream = (emailKey: string) => `user_email-${emailKey}`;

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'UserCreated':
        return {
          status: 'active',
          id: event.data.id,
          email: event.data.email,
          memberships: [event.data.organization_id],
          currentOrganizationId: event.data.organization_id,
        };
      case 'UserJoinedOrganization':
        return state.status === 'active'
          ? { ...state, memberships: [...state.memberships, event.data.organization_id] }
          : state;
      case 'UserSwitchedOrganization':
        return state.status === 'active' ? { ...state, currentOrganizationId: event.data.organization_id } : state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'CreateUser':
        if (state.status !== 'none') throw conflict('user_exists', 'The user already exists.');
        return {
          type: 'UserCreated',
          data: {
            id: command.id,
            email: normalizeEmail(command.email),
            organization_id: command.organizationId,
            created_at: command.now,
          },
        };
      case 'JoinOrganization':
        if (state.status === 'none') throw notFound('User');
        if (state.memberships.includes(command.organizationId)) return [];
        return { type: 'UserJoinedOrganization', data: { organization_id: command.organizationId, joined_at: command.now } };
      case 'SwitchOrganization':
        if (state.status === 'none') throw notFound('User');
        if (!state.memberships.includes(command.organizationId)) {
          throw conflict('not_a_member', 'The user is not a member of that organization.');
        }
        if (state.currentOrganizationId === command.organizationId) return [];
        return { type: 'UserSwitchedOrganization', data: { organization_id: command.organizationId } };
    }
  },
};
