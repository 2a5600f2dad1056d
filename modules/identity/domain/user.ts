import type { Decider, DomainEvent } from '../../../platform/domain/index.ts';
import { conflict, DomainError, notFound } from '../../../platform/domain/index.ts';

/** `owner` manages members and API keys; `member` does everything else. */
export type Role = 'owner' | 'member';

/** A registered passkey as stored: its public key and counter are not secrets. */
export type Passkey = {
  credential_id: string;
  /** base64url of the COSE public key. */
  public_key: string;
  counter: number;
  transports: string[];
  name: string;
  registered_at: number;
};

/**
 * The user's stream. Secrets never appear here: an invitation's token only as its SHA-256, a
 * password only as its argon2id hash (a credential hashed at rest, as the spec asks). Events
 * recorded before roles existed carry none: those memberships were made by the CLI, whose users
 * own their organization, so an absent role reads as `owner`.
 */
export type UserEvent =
  | DomainEvent<'UserCreated', { id: string; email: string; organization_id: string; created_at: number; role?: Role; invitation_id?: string }>
  /** `invitation_id`: the membership invitation the person accepted (absent: added by the operator's CLI). */
  | DomainEvent<'UserJoinedOrganization', { organization_id: string; joined_at: number; role?: Role; invitation_id?: string }>
  | DomainEvent<'UserSwitchedOrganization', { organization_id: string }>
  | DomainEvent<'UserInvited', { token_hash: string; expires_at: number; invited_at: number }>
  | DomainEvent<'UserPasswordSet', { password_hash: string; set_at: number; via: 'invitation' }>
  | DomainEvent<'PasskeyRegistered', Passkey & { via: 'invitation' | 'settings' }>
  | DomainEvent<'PasskeyRemoved', { credential_id: string; removed_at: number }>
  | DomainEvent<'PasskeyUsed', { credential_id: string; counter: number; used_at: number }>
  | DomainEvent<'MemberRoleChanged', { organization_id: string; role: Role; changed_at: number }>
  | DomainEvent<'MemberRemoved', { organization_id: string; removed_at: number }>;

export type UserCommand =
  | {
      type: 'CreateUser';
      id: string;
      email: string;
      organizationId: string;
      role?: Role;
      /** The account made by accepting a membership invitation, with the way in its person chose. */
      invitationId?: string;
      credential?: { passwordHash: string } | { passkey: Omit<Passkey, 'registered_at'> };
      now: number;
    }
  | { type: 'JoinOrganization'; organizationId: string; role?: Role; invitationId?: string; now: number }
  | { type: 'SwitchOrganization'; organizationId: string }
  | { type: 'InviteUser'; tokenHash: string; expiresAt: number; now: number }
  /** The caller checked the invitation token against `tokenHash` (the hash of what was presented). */
  | { type: 'AcceptInvitationWithPassword'; tokenHash: string; passwordHash: string; now: number }
  | { type: 'AcceptInvitationWithPasskey'; tokenHash: string; passkey: Omit<Passkey, 'registered_at'>; now: number }
  | { type: 'RecordPasskeyUse'; credentialId: string; counter: number; now: number }
  | { type: 'AddPasskey'; passkey: Omit<Passkey, 'registered_at'>; now: number }
  | { type: 'RemovePasskey'; credentialId: string; now: number }
  | { type: 'ChangeRole'; organizationId: string; role: Role; now: number }
  | { type: 'RemoveMember'; organizationId: string; now: number };

export type UserState =
  | { status: 'none' }
  | {
      status: 'active';
      id: string;
      email: string;
      memberships: string[];
      roles: Record<string, Role>;
      /** null once the user was removed from every organization. */
      currentOrganizationId: string | null;
      invitation: { tokenHash: string; expiresAt: number } | null;
      passwordHash: string | null;
      passkeys: Passkey[];
    };

export const userStream = (id: string) => `user-${id}`;

/** Emails are unique across users: a stream per normalised email can only be created once. */
export const userEmailStream = (emailKey: string) => `user_email-${emailKey}`;

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

const invitationInvalid = () => new DomainError('gone', 'invitation_invalid', 'The invitation link is invalid or has expired.');

export const userDecider: Decider<UserState, UserCommand, UserEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    if (event.type === 'UserCreated') {
      const org = event.data.organization_id;
      return {
        status: 'active',
        id: event.data.id,
        email: event.data.email,
        memberships: [org],
        roles: { [org]: event.data.role ?? 'owner' },
        currentOrganizationId: org,
        invitation: null,
        passwordHash: null,
        passkeys: [],
      };
    }
    if (state.status === 'none') return state;
    switch (event.type) {
      case 'UserJoinedOrganization': {
        const org = event.data.organization_id;
        return {
          ...state,
          memberships: [...state.memberships, org],
          roles: { ...state.roles, [org]: event.data.role ?? 'owner' },
          currentOrganizationId: state.currentOrganizationId ?? org,
        };
      }
      case 'UserSwitchedOrganization':
        return { ...state, currentOrganizationId: event.data.organization_id };
      case 'UserInvited':
        return { ...state, invitation: { tokenHash: event.data.token_hash, expiresAt: event.data.expires_at } };
      case 'UserPasswordSet':
        return { ...state, passwordHash: event.data.password_hash, invitation: null };
      case 'PasskeyRegistered': {
        const { via: _via, ...passkey } = event.data;
        return { ...state, passkeys: [...state.passkeys, passkey], invitation: null };
      }
      case 'PasskeyRemoved':
        return { ...state, passkeys: state.passkeys.filter((p) => p.credential_id !== event.data.credential_id) };
      case 'PasskeyUsed':
        return {
          ...state,
          passkeys: state.passkeys.map((p) => (p.credential_id === event.data.credential_id ? { ...p, counter: event.data.counter } : p)),
        };
      case 'MemberRoleChanged':
        return { ...state, roles: { ...state.roles, [event.data.organization_id]: event.data.role } };
      case 'MemberRemoved': {
        const memberships = state.memberships.filter((id) => id !== event.data.organization_id);
        const { [event.data.organization_id]: _removed, ...roles } = state.roles;
        const current = state.currentOrganizationId === event.data.organization_id ? (memberships[0] ?? null) : state.currentOrganizationId;
        return { ...state, memberships, roles, currentOrganizationId: current };
      }
    }
    return state;
  },
  decide(command, state) {
    if (command.type === 'CreateUser') {
      if (state.status !== 'none') throw conflict('user_exists', 'The user already exists.');
      const created: UserEvent = {
        type: 'UserCreated',
        data: {
          id: command.id,
          email: normalizeEmail(command.email),
          organization_id: command.organizationId,
          created_at: command.now,
          ...(command.role ? { role: command.role } : {}),
          ...(command.invitationId ? { invitation_id: command.invitationId } : {}),
        },
      };
      const credential = command.credential;
      if (!credential) return created;
      return [
        created,
        'passwordHash' in credential
          ? { type: 'UserPasswordSet', data: { password_hash: credential.passwordHash, set_at: command.now, via: 'invitation' } }
          : { type: 'PasskeyRegistered', data: { ...credential.passkey, registered_at: command.now, via: 'invitation' } },
      ];
    }
    if (state.status === 'none') throw notFound('User');
    switch (command.type) {
      case 'JoinOrganization':
        if (state.memberships.includes(command.organizationId)) return [];
        return {
          type: 'UserJoinedOrganization',
          data: {
            organization_id: command.organizationId,
            joined_at: command.now,
            ...(command.role ? { role: command.role } : {}),
            ...(command.invitationId ? { invitation_id: command.invitationId } : {}),
          },
        };
      case 'SwitchOrganization':
        if (!state.memberships.includes(command.organizationId)) {
          throw conflict('not_a_member', 'The user is not a member of that organization.');
        }
        if (state.currentOrganizationId === command.organizationId) return [];
        return { type: 'UserSwitchedOrganization', data: { organization_id: command.organizationId } };
      case 'InviteUser':
        // A new invitation replaces the last one: only the newest link works.
        return { type: 'UserInvited', data: { token_hash: command.tokenHash, expires_at: command.expiresAt, invited_at: command.now } };
      case 'AcceptInvitationWithPassword':
        assertInvitation(state, command.tokenHash, command.now);
        return { type: 'UserPasswordSet', data: { password_hash: command.passwordHash, set_at: command.now, via: 'invitation' } };
      case 'AcceptInvitationWithPasskey':
      case 'AddPasskey': {
        const invited = command.type === 'AcceptInvitationWithPasskey';
        if (invited) assertInvitation(state, command.tokenHash, command.now);
        if (state.passkeys.some((p) => p.credential_id === command.passkey.credential_id)) {
          throw conflict('passkey_exists', 'That passkey is already registered.');
        }
        return { type: 'PasskeyRegistered', data: { ...command.passkey, registered_at: command.now, via: invited ? 'invitation' : 'settings' } };
      }
      case 'RemovePasskey':
        if (!state.passkeys.some((p) => p.credential_id === command.credentialId)) throw notFound('Passkey');
        // Removing the only way in would lock the person out until someone sends a new link.
        if (state.passwordHash === null && state.passkeys.length === 1) {
          throw conflict('last_credential', 'This is your only way to sign in: add another passkey first.');
        }
        return { type: 'PasskeyRemoved', data: { credential_id: command.credentialId, removed_at: command.now } };
      case 'RecordPasskeyUse':
        if (!state.passkeys.some((p) => p.credential_id === command.credentialId)) throw notFound('Passkey');
        return { type: 'PasskeyUsed', data: { credential_id: command.credentialId, counter: command.counter, used_at: command.now } };
      case 'ChangeRole':
        if (!state.memberships.includes(command.organizationId)) throw notFound('Member');
        if (state.roles[command.organizationId] === command.role) return [];
        return { type: 'MemberRoleChanged', data: { organization_id: command.organizationId, role: command.role, changed_at: command.now } };
      case 'RemoveMember':
        if (!state.memberships.includes(command.organizationId)) throw notFound('Member');
        return { type: 'MemberRemoved', data: { organization_id: command.organizationId, removed_at: command.now } };
    }
  },
};

/** Used once (accepting clears it), unexpired, and the newest one issued. */
function assertInvitation(state: Extract<UserState, { status: 'active' }>, tokenHash: string, now: number): void {
  const invitation = state.invitation;
  if (!invitation || invitation.tokenHash !== tokenHash || invitation.expiresAt <= now) throw invitationInvalid();
}
