import type { Decider, DomainEvent } from '../../../platform/domain/index.ts';
import { conflict, invalid, notFound } from '../../../platform/domain/index.ts';

/**
 * Only the hash of the key's secret is ever recorded; the secret is shown once, at creation.
 * `expires_at` (Unix seconds) is absent from keys recorded before keys could expire: read as null.
 */
export type ApiKeyEvent =
  | DomainEvent<
      'ApiKeyCreated',
      {
        id: string;
        user_id: string;
        organization_id: string;
        name: string;
        secret_hash: string;
        created_at: number;
        expires_at?: number | null;
      }
    >
  /** `reason` is absent from revocations recorded before reasons were. */
  | DomainEvent<'ApiKeyRevoked', { revoked_at: number; reason?: ApiKeyRevokeReason }>
  /** The key authenticated a request: recorded at most once per `every` seconds, not per request. */
  | DomainEvent<'ApiKeyUsed', { used_at: number }>;

/**
 * manual: an owner (dashboard, management route) or the CLI revoked it; member_removed: its
 * creator left the organization, and a key acts with its creator's rights.
 */
export type ApiKeyRevokeReason = 'manual' | 'member_removed';

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
      /** Unix seconds from which the key answers 401, as Sanctum's token expiry; null never expires. */
      expiresAt: number | null;
      now: number;
    }
  | { type: 'RevokeApiKey'; reason: ApiKeyRevokeReason; now: number }
  /** Records a use unless one was recorded less than `every` seconds before `now`. */
  | { type: 'RecordApiKeyUse'; now: number; every: number };

export type ApiKeyState =
  | { status: 'none' }
  | { status: 'active' | 'revoked'; id: string; userId: string; organizationId: string; lastUsedAt: number | null };

export const apiKeyStream = (id: string) => `api_key-${id}`;

export const apiKeyDecider: Decider<ApiKeyState, ApiKeyCommand, ApiKeyEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'ApiKeyCreated':
        return { status: 'active', id: event.data.id, userId: event.data.user_id, organizationId: event.data.organization_id, lastUsedAt: null };
      case 'ApiKeyRevoked':
        return state.status === 'none' ? state : { ...state, status: 'revoked' };
      case 'ApiKeyUsed':
        return state.status === 'none' ? state : { ...state, lastUsedAt: event.data.used_at };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'CreateApiKey':
        if (state.status !== 'none') throw conflict('api_key_exists', 'The API key already exists.');
        if (!command.userIsMember) throw conflict('not_a_member', 'The user is not a member of that organization.');
        // A key dead on arrival is a typo (seconds for milliseconds, a past date), not a wish.
        if (command.expiresAt !== null && command.expiresAt <= command.now) {
          throw invalid('expires_at_past', 'The expires_at field must be a time in the future.', 'expires_at');
        }
        return {
          type: 'ApiKeyCreated',
          data: {
            id: command.id,
            user_id: command.userId,
            organization_id: command.organizationId,
            name: command.name,
            secret_hash: command.secretHash,
            created_at: command.now,
            expires_at: command.expiresAt,
          },
        };
      case 'RevokeApiKey':
        if (state.status === 'none') throw notFound('API key');
        if (state.status === 'revoked') return [];
        return { type: 'ApiKeyRevoked', data: { revoked_at: command.now, reason: command.reason } };
      case 'RecordApiKeyUse':
        // A use that raced a revocation, or one too soon after the last, records nothing.
        if (state.status !== 'active') return [];
        if (state.lastUsedAt !== null && command.now - state.lastUsedAt < command.every) return [];
        return { type: 'ApiKeyUsed', data: { used_at: command.now } };
    }
  },
};
