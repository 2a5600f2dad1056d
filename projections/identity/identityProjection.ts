import type { RecordedEvent } from '../../eventStore/eventStore.ts';
import type { ApiKeyEvent } from '../../domain/identity/apiKey.ts';
import type { OrganizationEvent } from '../../domain/identity/organization.ts';
import type { UserEvent } from '../../domain/identity/user.ts';
import type { Projection, ProjectionTx } from '../projection.ts';

export type OrganizationDoc = { id: string; name: string; timezone: string; created_at: number; updated_at: number };
export type UserDoc = {
  id: string;
  email: string;
  memberships: string[];
  current_organization_id: string;
  created_at: number;
};
export type ApiKeyDoc = {
  id: string;
  user_id: string;
  organization_id: string;
  name: string;
  secret_hash: string;
  created_at: number;
  /** Unix seconds from which the key answers 401; null never expires. */
  expires_at: number | null;
  revoked_at: number | null;
};

export const ORGANIZATIONS = 'organizations';
export const USERS = 'users';
export const API_KEYS = 'api_keys';

type IdentityEvent = OrganizationEvent | UserEvent | ApiKeyEvent;

/** Organizations, users and API keys (hashes only), as the auth hook and /api/users/me read them. */
export const identityProjection: Projection = {
  name: 'identity',
  collections: [ORGANIZATIONS, USERS, API_KEYS],
  eventTypes: [
    'OrganizationCreated',
    'OrganizationUpdated',
    'UserCreated',
    'UserJoinedOrganization',
    'UserSwitchedOrganization',
    'ApiKeyCreated',
    'ApiKeyRevoked',
  ],
  async apply(recorded: RecordedEvent, tx: ProjectionTx) {
    const event = recorded as unknown as IdentityEvent;
    const id = recorded.stream.slice(recorded.stream.indexOf('-') + 1);
    switch (event.type) {
      case 'OrganizationCreated': {
        const { id: orgId, name, timezone, created_at } = event.data;
        tx.upsert(ORGANIZATIONS, { id: orgId, name, timezone, created_at, updated_at: created_at });
        return;
      }
      case 'OrganizationUpdated': {
        const org = await tx.get<OrganizationDoc>(ORGANIZATIONS, id);
        if (org) tx.upsert(ORGANIZATIONS, { ...org, ...event.data });
        return;
      }
      case 'UserCreated': {
        const { id: userId, email, organization_id, created_at } = event.data;
        const doc: UserDoc = { id: userId, email, memberships: [organization_id], current_organization_id: organization_id, created_at };
        tx.upsert(USERS, doc);
        return;
      }
      case 'UserJoinedOrganization': {
        const user = await tx.get<UserDoc>(USERS, id);
        if (user && !user.memberships.includes(event.data.organization_id)) {
          tx.upsert(USERS, { ...user, memberships: [...user.memberships, event.data.organization_id] });
        }
        return;
      }
      case 'UserSwitchedOrganization': {
        const user = await tx.get<UserDoc>(USERS, id);
        if (user) tx.upsert(USERS, { ...user, current_organization_id: event.data.organization_id });
        return;
      }
      case 'ApiKeyCreated':
        tx.upsert(API_KEYS, { ...event.data, expires_at: event.data.expires_at ?? null, revoked_at: null } satisfies ApiKeyDoc);
        return;
      case 'ApiKeyRevoked': {
        const key = await tx.get<ApiKeyDoc>(API_KEYS, id);
        if (key) tx.upsert(API_KEYS, { ...key, revoked_at: event.data.revoked_at });
        return;
      }
    }
  },
};
