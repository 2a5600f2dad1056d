import type { Decider, DomainEvent } from '../shared/decider.ts';
import { conflict, notFound } from '../shared/domainError.ts';

/** Only the hash of the key's secret is ever recorded; the secret is shown once, at creation. */
export type ApiKeyEvent =
  | DomainEvent<
      'ApiKeyCreated',
      { id: string; user_id: string; organization_id: string; name: string; secret_hash: string; created_at: number }
    >
  | DomainEvent<'ApiKeyRevoked', { revoked_at: number }>;

export type ApiKeyCommand =
  | {
      type: 'CreateApiKey';
      id: string;
      userId: string;
      organizationId: string;
      name: string;
      secretHash: string;
      /** Checked by the caller against the user's memberships. */
      userIsMember: boolean;
      now: number;
    }
  | { type: 'RevokeApiKey'; now: number };

export type ApiKeyState =
  | { status: 'none' }
  | { status: 'active' | 'revoked'; id: string; userId: string; organizationId: string };

export const apiKeyStream = (id: string) => `api_key-${id}`;

export const apiKeyDecider: Decider<ApiKeyState, ApiKeyCommand, ApiKeyEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'ApiKeyCreated':
        return { status: 'active', id: event.data.id, userId: event.data.user_id, organizationId: event.data.organization_id };
      case 'ApiKeyRevoked':
        return state.status === 'none' ? state : { ...state, status: 'revoked' };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'CreateApiKey':
        if (state.status !== 'none') throw conflict('api_key_exists', 'The API key already exists.');
        if (!command.userIsMember) throw conflict('not_a_member', 'The user is not a member of that organization.');
        return {
          type: 'ApiKeyCreated',
          data: {
            id: command.id,
            user_id: command.userId,
            organization_id: command.organizationId,
            name: command.name,
            secret_hash: command.secretHash,
            created_at: command.now,
          },
        };
      case 'RevokeApiKey':
        if (state.status === 'none') throw notFound('API key');
        if (state.status === 'revoked') return [];
        return { type: 'ApiKeyRevoked', data: { revoked_at: command.now } };
    }
  },
};
