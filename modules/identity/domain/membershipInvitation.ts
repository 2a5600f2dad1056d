import type { Decider, DomainEvent } from '../../../platform/domain/index.ts';
import { DomainError, notFound } from '../../../platform/domain/index.ts';
import { normalizeEmail, type Role } from './user.ts';

/**
 * An organization's invitation of an email, one stream per (organization, email): nothing about the
 * person's account changes until they accept. The token is recorded only as its SHA-256; a new
 * invitation of the same email replaces the last one's token and role.
 */
export type MembershipInvitationEvent =
  | DomainEvent<
      'MembershipInvited',
      {
        id: string;
        organization_id: string;
        email: string;
        role: Role;
        token_hash: string;
        invited_by: string | null;
        invited_at: number;
        expires_at: number;
        /** The id the account gets should the email have none when the invitation is accepted. */
        new_user_id: string;
      }
    >
  | DomainEvent<'MembershipInvitationAccepted', { user_id: string; accepted_at: number; account_created: boolean }>
  | DomainEvent<'MembershipInvitationDeclined', { user_id: string; declined_at: number }>
  | DomainEvent<'MembershipInvitationRevoked', { revoked_by: string | null; revoked_at: number }>;

export type MembershipInvitationCommand =
  | { type: 'Invite'; id: string; organizationId: string; email: string; role: Role; tokenHash: string; invitedBy: string | null; newUserId: string; expiresAt: number; now: number }
  /** `tokenHash` when accepted through the link (it must be the newest), null when from the dashboard. */
  | { type: 'Accept'; userId: string; userEmail: string; tokenHash: string | null; accountCreated: boolean; now: number }
  | { type: 'Decline'; userId: string; userEmail: string; now: number }
  | { type: 'Revoke'; by: string | null; now: number };

export type InvitationStatus = 'pending' | 'accepted' | 'declined' | 'revoked';

export type MembershipInvitationState =
  | { status: 'none' }
  | {
      status: InvitationStatus;
      id: string;
      organizationId: string;
      email: string;
      role: Role;
      tokenHash: string;
      invitedAt: number;
      expiresAt: number;
      newUserId: string;
      acceptedBy: string | null;
    };

export const membershipInvitationStream = (id: string) => `membership_invitation-${id}`;

export const invitationGone = () => new DomainError('gone', 'invitation_invalid', 'The invitation link is invalid or has expired.');

/** Pending and not yet expired at `now`. */
export function invitationOpen(state: MembershipInvitationState, now: number): boolean {
  return state.status === 'pending' && state.expiresAt > now;
}

export const membershipInvitationDecider: Decider<MembershipInvitationState, MembershipInvitationCommand, MembershipInvitationEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'MembershipInvited': {
        const d = event.data;
        return {
          status: 'pending',
          id: d.id,
          organizationId: d.organization_id,
          email: d.email,
          role: d.role,
          tokenHash: d.token_hash,
          invitedAt: d.invited_at,
          expiresAt: d.expires_at,
          newUserId: d.new_user_id,
          acceptedBy: null,
        };
      }
      case 'MembershipInvitationAccepted':
        return state.status === 'none' ? state : { ...state, status: 'accepted', acceptedBy: event.data.user_id };
      case 'MembershipInvitationDeclined':
        return state.status === 'none' ? state : { ...state, status: 'declined' };
      case 'MembershipInvitationRevoked':
        return state.status === 'none' ? state : { ...state, status: 'revoked' };
    }
  },
  decide(command, state) {
    if (command.type === 'Invite') {
      return {
        type: 'MembershipInvited',
        data: {
          id: command.id,
          organization_id: command.organizationId,
          email: normalizeEmail(command.email),
          role: command.role,
          token_hash: command.tokenHash,
          invited_by: command.invitedBy,
          invited_at: command.now,
          expires_at: command.expiresAt,
          new_user_id: command.newUserId,
        },
      };
    }
    if (state.status === 'none') throw notFound('Invitation');
    switch (command.type) {
      case 'Accept':
        // Accepting again (a retry after the membership was recorded) changes nothing.
        if (state.status === 'accepted' && state.acceptedBy === command.userId) return [];
        if (!invitationOpen(state, command.now) || state.email !== normalizeEmail(command.userEmail)) throw invitationGone();
        if (command.tokenHash !== null && command.tokenHash !== state.tokenHash) throw invitationGone();
        return { type: 'MembershipInvitationAccepted', data: { user_id: command.userId, accepted_at: command.now, account_created: command.accountCreated } };
      case 'Decline':
        if (state.status !== 'pending' || state.email !== normalizeEmail(command.userEmail)) throw notFound('Invitation');
        return { type: 'MembershipInvitationDeclined', data: { user_id: command.userId, declined_at: command.now } };
      case 'Revoke':
        if (state.status !== 'pending') throw notFound('Member');
        return { type: 'MembershipInvitationRevoked', data: { revoked_by: command.by, revoked_at: command.now } };
    }
  },
};
