import type { RecordedEvent } from '../../platform/eventStore/index.ts';
import type { OAuthAppEvent } from './domain/oauthApp.ts';
import type { OAuthGrantEvent } from './domain/oauthGrant.ts';
import type { Projection, ProjectionTx } from '../../platform/es/index.ts';

/** A registered app as its owners list it: never its secret's hash. */
export type OAuthAppDoc = {
  id: string;
  organization_id: string;
  name: string;
  redirect_uris: string[];
  public: boolean;
  created_at: number;
  updated_at: number;
};

/** One consent as the person who gave it lists it. */
export type OAuthConnectionDoc = {
  id: string;
  client_id: string;
  app_name: string;
  user_id: string;
  organization_id: string;
  scopes: string[];
  granted_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
};

export const OAUTH_APPS = 'oauth_apps';
export const OAUTH_CONNECTIONS = 'oauth_connections';

export const oauthProjection: Projection = {
  name: 'oauth',
  collections: [OAUTH_APPS, OAUTH_CONNECTIONS],
  indexes: [
    { collection: OAUTH_APPS, fields: ['organization_id', 'created_at'] },
    { collection: OAUTH_CONNECTIONS, fields: ['user_id', 'granted_at'] },
  ],
  eventTypes: ['OAuthAppRegistered', 'OAuthAppUpdated', 'OAuthAppDeleted', 'OAuthConsentGranted', 'OAuthTokensIssued', 'OAuthGrantRevoked'],
  async apply(recorded: RecordedEvent, tx: ProjectionTx) {
    const event = recorded as unknown as OAuthAppEvent | OAuthGrantEvent;
    const id = recorded.stream.slice(recorded.stream.indexOf('-') + 1);
    switch (event.type) {
      case 'OAuthAppRegistered': {
        const d = event.data;
        tx.upsert(OAUTH_APPS, {
          id: d.client_id,
          organization_id: d.organization_id,
          name: d.name,
          redirect_uris: d.redirect_uris,
          public: d.public,
          created_at: d.created_at,
          updated_at: d.created_at,
        } satisfies OAuthAppDoc);
        return;
      }
      case 'OAuthAppUpdated': {
        const doc = await tx.get<OAuthAppDoc>(OAUTH_APPS, id);
        if (doc) tx.upsert(OAUTH_APPS, { ...doc, name: event.data.name, redirect_uris: event.data.redirect_uris, updated_at: event.data.updated_at });
        return;
      }
      case 'OAuthAppDeleted':
        tx.delete(OAUTH_APPS, id);
        return;
      case 'OAuthConsentGranted': {
        const d = event.data;
        const app = await tx.get<OAuthAppDoc>(OAUTH_APPS, d.client_id);
        tx.upsert(OAUTH_CONNECTIONS, {
          id: d.grant_id,
          client_id: d.client_id,
          app_name: app?.name ?? d.client_id,
          user_id: d.user_id,
          organization_id: d.organization_id,
          scopes: d.scopes,
          granted_at: d.granted_at,
          last_used_at: null,
          revoked_at: null,
        } satisfies OAuthConnectionDoc);
        return;
      }
      case 'OAuthTokensIssued': {
        const doc = await tx.get<OAuthConnectionDoc>(OAUTH_CONNECTIONS, id);
        if (doc) tx.upsert(OAUTH_CONNECTIONS, { ...doc, last_used_at: event.data.issued_at });
        return;
      }
      case 'OAuthGrantRevoked': {
        const doc = await tx.get<OAuthConnectionDoc>(OAUTH_CONNECTIONS, id);
        if (doc) tx.upsert(OAUTH_CONNECTIONS, { ...doc, revoked_at: event.data.revoked_at });
        return;
      }
      default:
        return;
    }
  },
};
