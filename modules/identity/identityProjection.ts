import type { RecordedEvent } from '../../platform/eventStore/index.ts';
import type { Doc } from '../../platform/readStore/index.ts';
import type { ApiKeyEvent } from './domain/apiKey.ts';
import type { OrganizationEvent } from './domain/organization.ts';
import type { MembershipInvitationEvent } from './domain/membershipInvitation.ts';
import type { Role, UserEvent } from './domain/user.ts';
import type { UserSessionEvent } from './domain/userSession.ts';
import type { Projection, ProjectionTx } from '../../platform/es/index.ts';

export type OrganizationDoc = { id: string; name: string; timezone: string; created_at: number; updated_at: number };
export type UserDoc = {
  id: string;
  email: string;
  memberships: string[];
  /** null once removed from every organization. */
  current_organization_id: string | null;
  created_at: number;
  /** Role per organization id (absent on documents built before roles: read as owner). */
  roles?: Record<string, Role>;
  has_password?: boolean;
  /** Passkeys by id and name (their public keys stay in the user's stream). */
  passkeys?: Array<{ credential_id: string; name: string; registered_at: number; last_used_at: number | null }>;
};
/** One per (organization, user): what the members list reads. */
export type MemberDoc = { id: string; organization_id: string; user_id: string; email: string; role: Role; joined_at: number };
/**
 * A membership invitation not yet settled: `pending` (the members list shows it as invited, the
 * invitee's dashboard offers it), or `accepted` until the membership it made is recorded.
 */
export type InvitationDoc = {
  id: string;
  organization_id: string;
  email: string;
  role: Role;
  status: 'pending' | 'accepted';
  invited_at: number;
  expires_at: number;
};
/** A sign-in session as its owner lists it: never its secret's hash. */
export type UserSessionDoc = {
  id: string;
  user_id: string;
  method: string;
  ip: string | null;
  user_agent: string | null;
  signed_in_at: number;
  last_seen_at: number;
  absolute_expires_at: number;
  idle_timeout: number;
  ended_at: number | null;
  end_reason: string | null;
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
  /** When a request last authenticated with it (to within five minutes); absent from keys never used. */
  last_used_at?: number | null;
};

export const ORGANIZATIONS = 'organizations';
export const USERS = 'users';
export const API_KEYS = 'api_keys';
export const MEMBERS = 'members';
export const USER_SESSIONS = 'user_sessions';
export const INVITATIONS = 'membership_invitations';

type IdentityEvent = OrganizationEvent | UserEvent | ApiKeyEvent | UserSessionEvent | MembershipInvitationEvent;

/** Changes a document the projection holds; an event for one it never saw changes nothing. */
async function patch<T extends Doc>(tx: ProjectionTx, collection: string, id: string, change: (doc: T) => Partial<T>): Promise<void> {
  const doc = await tx.get<T>(collection, id);
  if (doc) tx.upsert(collection, { ...doc, ...change(doc) });
}

const memberId = (organizationId: string, userId: string) => `${organizationId}:${userId}`;

/** Organizations, users and API keys (hashes only), as the auth hook and /api/users/me read them. */
export const identityProjection: Projection = {
  name: 'identity',
  version: 3,
  collections: [ORGANIZATIONS, USERS, API_KEYS, MEMBERS, USER_SESSIONS, INVITATIONS],
  indexes: [
    { collection: INVITATIONS, fields: ['organization_id', 'email'] },
    { collection: INVITATIONS, fields: ['email', 'invited_at'] },
    { collection: MEMBERS, fields: ['organization_id', 'email'] },
    { collection: USER_SESSIONS, fields: ['user_id', 'signed_in_at'] },
    { collection: API_KEYS, fields: ['organization_id', 'created_at'] },
  ],
  eventTypes: [
    'OrganizationCreated',
    'OrganizationUpdated',
    'UserCreated',
    'UserJoinedOrganization',
    'UserSwitchedOrganization',
    'ApiKeyCreated',
    'ApiKeyRevoked',
    'ApiKeyUsed',
    'UserPasswordSet',
    'PasskeyRegistered',
    'PasskeyUsed',
    'PasskeyRemoved',
    'MemberRoleChanged',
    'MemberRemoved',
    'SignedIn',
    'SessionTouched',
    'SignedOut',
    'MembershipInvited',
    'MembershipInvitationAccepted',
    'MembershipInvitationDeclined',
    'MembershipInvitationRevoked',
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
      case 'OrganizationUpdated':
        await patch<OrganizationDoc>(tx, ORGANIZATIONS, id, () => event.data);
        return;
      case 'UserCreated': {
        const { id: userId, email, organization_id, created_at } = event.data;
        const role = event.data.role ?? 'owner';
        const doc: UserDoc = {
          id: userId,
          email,
          memberships: [organization_id],
          current_organization_id: organization_id,
          created_at,
          roles: { [organization_id]: role },
          has_password: false,
          passkeys: [],
        };
        tx.upsert(USERS, doc);
        tx.upsert(MEMBERS, { id: memberId(organization_id, userId), organization_id, user_id: userId, email, role, joined_at: created_at } satisfies MemberDoc);
        if (event.data.invitation_id) tx.delete(INVITATIONS, event.data.invitation_id);
        return;
      }
      case 'UserJoinedOrganization': {
        const user = await tx.get<UserDoc>(USERS, id);
        const org = event.data.organization_id;
        if (user && !user.memberships.includes(org)) {
          const role = event.data.role ?? 'owner';
          tx.upsert(USERS, {
            ...user,
            memberships: [...user.memberships, org],
            roles: { ...user.roles, [org]: role },
            current_organization_id: user.current_organization_id ?? org,
          });
          tx.upsert(MEMBERS, { id: memberId(org, id), organization_id: org, user_id: id, email: user.email, role, joined_at: event.data.joined_at } satisfies MemberDoc);
        }
        if (event.data.invitation_id) tx.delete(INVITATIONS, event.data.invitation_id);
        return;
      }
      case 'MemberRoleChanged': {
        const org = event.data.organization_id;
        await patch<UserDoc>(tx, USERS, id, (user) => ({ roles: { ...user.roles, [org]: event.data.role } }));
        await patch<MemberDoc>(tx, MEMBERS, memberId(org, id), () => ({ role: event.data.role }));
        return;
      }
      case 'MemberRemoved': {
        const user = await tx.get<UserDoc>(USERS, id);
        const org = event.data.organization_id;
        if (user) {
          const memberships = user.memberships.filter((m) => m !== org);
          const { [org]: _gone, ...roles } = user.roles ?? {};
          const current = user.current_organization_id === org ? (memberships[0] ?? null) : user.current_organization_id;
          tx.upsert(USERS, { ...user, memberships, roles, current_organization_id: current });
        }
        tx.delete(MEMBERS, memberId(org, id));
        return;
      }
      case 'UserPasswordSet':
        await patch<UserDoc>(tx, USERS, id, () => ({ has_password: true }));
        return;
      case 'PasskeyRegistered': {
        const { credential_id, name, registered_at } = event.data;
        await patch<UserDoc>(tx, USERS, id, (user) => ({ passkeys: [...(user.passkeys ?? []), { credential_id, name, registered_at, last_used_at: null }] }));
        return;
      }
      case 'PasskeyRemoved':
        await patch<UserDoc>(tx, USERS, id, (user) => ({ passkeys: (user.passkeys ?? []).filter((p) => p.credential_id !== event.data.credential_id) }));
        return;
      case 'PasskeyUsed': {
        const { credential_id, used_at } = event.data;
        await patch<UserDoc>(tx, USERS, id, (user) => ({ passkeys: (user.passkeys ?? []).map((p) => (p.credential_id === credential_id ? { ...p, last_used_at: used_at } : p)) }));
        return;
      }
      case 'SignedIn': {
        const d = event.data;
        tx.upsert(USER_SESSIONS, {
          id: d.session_id,
          user_id: d.user_id,
          method: d.method,
          ip: d.ip,
          user_agent: d.user_agent,
          signed_in_at: d.signed_in_at,
          last_seen_at: d.signed_in_at,
          absolute_expires_at: d.absolute_expires_at,
          idle_timeout: d.idle_timeout,
          ended_at: null,
          end_reason: null,
        } satisfies UserSessionDoc);
        return;
      }
      case 'SessionTouched':
        await patch<UserSessionDoc>(tx, USER_SESSIONS, id, () => ({ last_seen_at: event.data.at }));
        return;
      case 'SignedOut':
        await patch<UserSessionDoc>(tx, USER_SESSIONS, id, () => ({ ended_at: event.data.at, end_reason: event.data.reason }));
        return;
      case 'UserSwitchedOrganization':
        await patch<UserDoc>(tx, USERS, id, () => ({ current_organization_id: event.data.organization_id }));
        return;
      case 'MembershipInvited': {
        const d = event.data;
        tx.upsert(INVITATIONS, {
          id: d.id,
          organization_id: d.organization_id,
          email: d.email,
          role: d.role,
          status: 'pending',
          invited_at: d.invited_at,
          expires_at: d.expires_at,
        } satisfies InvitationDoc);
        return;
      }
      case 'MembershipInvitationAccepted':
        await patch<InvitationDoc>(tx, INVITATIONS, id, () => ({ status: 'accepted' }));
        return;
      case 'MembershipInvitationDeclined':
      case 'MembershipInvitationRevoked':
        tx.delete(INVITATIONS, id);
        return;
      case 'ApiKeyCreated':
        tx.upsert(API_KEYS, { ...event.data, expires_at: event.data.expires_at ?? null, revoked_at: null } satisfies ApiKeyDoc);
        return;
      case 'ApiKeyRevoked':
        await patch<ApiKeyDoc>(tx, API_KEYS, id, () => ({ revoked_at: event.data.revoked_at }));
        return;
      case 'ApiKeyUsed':
        await patch<ApiKeyDoc>(tx, API_KEYS, id, () => ({ last_used_at: event.data.used_at }));
        return;
    }
  },
};
