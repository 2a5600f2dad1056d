import type { Decider, DomainEvent } from '../../../platform/domain/index.ts';
import { conflict, notFound } from '../../../platform/domain/index.ts';

/**
 * A third-party app an organization's owner registered: its client id, redirect URIs (matched
 * exactly) and, for a confidential client, only the SHA-256 of its secret (shown once). A public
 * client (a single-page or native app) has no secret and proves itself with PKCE alone.
 */
export type OAuthAppEvent =
  | DomainEvent<
      'OAuthAppRegistered',
      {
        client_id: string;
        organization_id: string;
        name: string;
        redirect_uris: string[];
        public: boolean;
        secret_hash: string | null;
        created_by: string;
        created_at: number;
      }
    >
  | DomainEvent<'OAuthAppUpdated', { name: string; redirect_uris: string[]; updated_at: number }>
  | DomainEvent<'OAuthAppDeleted', { deleted_at: number }>;

export type OAuthAppCommand =
  | {
      type: 'RegisterOAuthApp';
      clientId: string;
      organizationId: string;
      name: string;
      redirectUris: string[];
      public: boolean;
      secretHash: string | null;
      userId: string;
      now: number;
    }
  | { type: 'UpdateOAuthApp'; organizationId: string; name?: string; redirectUris?: string[]; now: number }
  | { type: 'DeleteOAuthApp'; organizationId: string; now: number };

export type OAuthAppState =
  | { status: 'none' }
  | {
      status: 'active' | 'deleted';
      clientId: string;
      organizationId: string;
      name: string;
      redirectUris: string[];
      public: boolean;
      secretHash: string | null;
      createdAt: number;
    };

export const oauthAppStream = (clientId: string) => `oauth_app-${clientId}`;

/** Another organization's app answers exactly like one that does not exist. */
const mustBeOwn = (state: OAuthAppState, organizationId: string) => {
  if (state.status !== 'active' || state.organizationId !== organizationId) throw notFound('OAuth app');
  return state;
};

export const oauthAppDecider: Decider<OAuthAppState, OAuthAppCommand, OAuthAppEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'OAuthAppRegistered': {
        const d = event.data;
        return {
          status: 'active',
          clientId: d.client_id,
          organizationId: d.organization_id,
          name: d.name,
          redirectUris: d.redirect_uris,
          public: d.public,
          secretHash: d.secret_hash,
          createdAt: d.created_at,
        };
      }
      case 'OAuthAppUpdated':
        return state.status === 'none' ? state : { ...state, name: event.data.name, redirectUris: event.data.redirect_uris };
      case 'OAuthAppDeleted':
        return state.status === 'none' ? state : { ...state, status: 'deleted' };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'RegisterOAuthApp':
        if (state.status !== 'none') throw conflict('oauth_app_exists', 'The OAuth app already exists.');
        return {
          type: 'OAuthAppRegistered',
          data: {
            client_id: command.clientId,
            organization_id: command.organizationId,
            name: command.name,
            redirect_uris: command.redirectUris,
            public: command.public,
            secret_hash: command.public ? null : command.secretHash,
            created_by: command.userId,
            created_at: command.now,
          },
        };
      case 'UpdateOAuthApp': {
        const app = mustBeOwn(state, command.organizationId);
        const name = command.name ?? app.name;
        const redirectUris = command.redirectUris ?? app.redirectUris;
        if (name === app.name && redirectUris.join('\n') === app.redirectUris.join('\n')) return [];
        return { type: 'OAuthAppUpdated', data: { name, redirect_uris: redirectUris, updated_at: command.now } };
      }
      case 'DeleteOAuthApp':
        mustBeOwn(state, command.organizationId);
        return { type: 'OAuthAppDeleted', data: { deleted_at: command.now } };
    }
  },
};
