import type { Decider, DomainEvent } from '../../../platform/domain/index.ts';
import { conflict, notFound } from '../../../platform/domain/index.ts';

/**
 * One consent: a person let an app act in one of their organizations with some scopes; its tokens live
 * while the grant does. The events are the audit trail, and no token, code or secret appears in them.
 */
export type OAuthGrantEvent =
  | DomainEvent<
      'OAuthConsentGranted',
      { grant_id: string; client_id: string; user_id: string; organization_id: string; scopes: string[]; granted_at: number }
    >
  | DomainEvent<'OAuthConsentDenied', { client_id: string; user_id: string; scopes: string[]; denied_at: number }>
  | DomainEvent<'OAuthTokensIssued', { grant_type: 'authorization_code' | 'refresh_token'; scopes: string[]; refresh_token: boolean; issued_at: number }>
  | DomainEvent<'OAuthTokenRevoked', { token_type: string; revoked_at: number }>
  | DomainEvent<'OAuthGrantRevoked', { reason: OAuthGrantRevokeReason; revoked_at: number }>;

/**
 * user: from the connected apps list; app: the app revoked its refresh token (RFC 7009);
 * refresh_token_reused: rotation's reuse detection (a stolen token, or a replay).
 */
export type OAuthGrantRevokeReason = 'user' | 'app' | 'refresh_token_reused';

export type OAuthGrantCommand =
  | { type: 'GrantConsent'; grantId: string; clientId: string; userId: string; organizationId: string; scopes: string[]; now: number }
  | { type: 'DenyConsent'; clientId: string; userId: string; scopes: string[]; now: number }
  | { type: 'RecordTokensIssued'; grantType: 'authorization_code' | 'refresh_token'; scopes: string[]; refreshToken: boolean; now: number }
  | { type: 'RecordTokenRevoked'; tokenType: string; now: number }
  | { type: 'RevokeGrant'; reason: OAuthGrantRevokeReason; /** Set when a person revokes: only their own grant. */ userId?: string; now: number };

export type OAuthGrantState =
  | { status: 'none' }
  | { status: 'denied' }
  | { status: 'granted' | 'revoked'; grantId: string; clientId: string; userId: string; organizationId: string; scopes: string[]; grantedAt: number };

export const oauthGrantStream = (grantId: string) => `oauth_grant-${grantId}`;

export const oauthGrantDecider: Decider<OAuthGrantState, OAuthGrantCommand, OAuthGrantEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'OAuthConsentGranted': {
        const d = event.data;
        return {
          status: 'granted',
          grantId: d.grant_id,
          clientId: d.client_id,
          userId: d.user_id,
          organizationId: d.organization_id,
          scopes: d.scopes,
          grantedAt: d.granted_at,
        };
      }
      case 'OAuthConsentDenied':
        return { status: 'denied' };
      case 'OAuthGrantRevoked':
        return state.status === 'granted' ? { ...state, status: 'revoked' } : state;
      case 'OAuthTokensIssued':
      case 'OAuthTokenRevoked':
        return state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'GrantConsent':
        if (state.status !== 'none') throw conflict('oauth_grant_exists', 'The grant already exists.');
        return {
          type: 'OAuthConsentGranted',
          data: {
            grant_id: command.grantId,
            client_id: command.clientId,
            user_id: command.userId,
            organization_id: command.organizationId,
            scopes: command.scopes,
            granted_at: command.now,
          },
        };
      case 'DenyConsent':
        if (state.status !== 'none') throw conflict('oauth_grant_exists', 'The grant already exists.');
        return { type: 'OAuthConsentDenied', data: { client_id: command.clientId, user_id: command.userId, scopes: command.scopes, denied_at: command.now } };
      case 'RecordTokensIssued':
        // Tokens of a revoked grant die with it: nothing to record.
        if (state.status !== 'granted') return [];
        return {
          type: 'OAuthTokensIssued',
          data: { grant_type: command.grantType, scopes: command.scopes, refresh_token: command.refreshToken, issued_at: command.now },
        };
      case 'RecordTokenRevoked':
        if (state.status !== 'granted') return [];
        return { type: 'OAuthTokenRevoked', data: { token_type: command.tokenType, revoked_at: command.now } };
      case 'RevokeGrant':
        if (state.status === 'none' || state.status === 'denied') throw notFound('Connected app');
        if (command.userId !== undefined && state.userId !== command.userId) throw notFound('Connected app');
        if (state.status === 'revoked') return [];
        return { type: 'OAuthGrantRevoked', data: { reason: command.reason, revoked_at: command.now } };
    }
  },
};
