import { customAlphabet } from 'nanoid';
import {
  invitationGone,
  invitationOpen,
  membershipInvitationDecider,
  membershipInvitationStream,
  type MembershipInvitationState,
} from './domain/membershipInvitation.ts';
import { normalizeEmail, userDecider, userEmailStream, userStream, type Passkey, type Role } from './domain/user.ts';
import { fold } from '../../platform/domain/index.ts';
import { DomainError, notFound } from '../../platform/domain/index.ts';
import { WrongExpectedRevisionError, type EventStore } from '../../platform/eventStore/index.ts';
import { handleCommand, toNewEvent, type CommandContext } from '../../platform/es/index.ts';
import { claimPasskey, INVITATION_TTL_SECONDS, loadUser, userIdByEmail, type ActiveUser } from './accountCommands.ts';
import { generateMembershipInvitationToken, hashPassword, parseMembershipInvitationToken, sha256Hex } from './accountSecrets.ts';

const shortId = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 12);
const now = (ctx: CommandContext) => ctx.metadata.occurred_at;

export type KnownInvitation = Exclude<MembershipInvitationState, { status: 'none' }>;

/** One invitation stream per (organization, email): inviting again replaces the pending one. */
export const invitationIdFor = (organizationId: string, email: string) => `inv_${sha256Hex(`${organizationId}\n${normalizeEmail(email)}`).slice(0, 24)}`;

export async function loadMembershipInvitation(store: EventStore, invitationId: string): Promise<MembershipInvitationState> {
  return fold(membershipInvitationDecider, (await store.readStream(membershipInvitationStream(invitationId))) as never[]);
}

const accountExists = () =>
  new DomainError('conflict', 'account_exists', 'This email already has an account: sign in as that person to accept the invitation.');

/**
 * Invites an email as a pending membership. No user stream is written, so the answer is the same
 * whether the email has an account. A person already a member answers 409.
 */
export async function inviteMember(
  ctx: CommandContext,
  input: { organizationId: string; email: string; role: Role; invitedBy: string | null },
): Promise<{ id: string; email: string; role: Role; token: string; invited_at: number; expires_at: number }> {
  const email = normalizeEmail(input.email);
  const userId = await userIdByEmail(ctx.store, email);
  const user = userId ? await loadUser(ctx.store, userId) : null;
  if (user?.memberships.includes(input.organizationId)) throw new DomainError('conflict', 'already_a_member', 'That person is already a member.');
  const id = invitationIdFor(input.organizationId, email);
  const { token, tokenHash } = generateMembershipInvitationToken(id);
  const expiresAt = now(ctx) + INVITATION_TTL_SECONDS;
  await handleCommand(ctx, membershipInvitationStream(id), membershipInvitationDecider, {
    type: 'Invite',
    ...input,
    id,
    email,
    tokenHash,
    newUserId: `usr_${shortId()}`,
    expiresAt,
    now: now(ctx),
  });
  return { id, email, role: input.role, token, invited_at: now(ctx), expires_at: expiresAt };
}

/** The open invitation a membership token names (the newest token of a pending, unexpired invitation), else null. */
export async function readMembershipInvitation(store: EventStore, token: string, at: number): Promise<KnownInvitation | null> {
  const parsed = parseMembershipInvitationToken(token);
  if (!parsed) return null;
  const state = await loadMembershipInvitation(store, parsed.invitationId);
  return state.status !== 'none' && invitationOpen(state, at) && state.tokenHash === parsed.tokenHash ? state : null;
}

/** An owner withdraws a pending invitation of their organization (another's answers as unknown). */
export async function revokeMembershipInvitation(ctx: CommandContext, organizationId: string, invitationId: string, by: string | null): Promise<void> {
  const state = await loadMembershipInvitation(ctx.store, invitationId);
  if (state.status === 'none' || state.organizationId !== organizationId) throw notFound('Member');
  await handleCommand(ctx, membershipInvitationStream(invitationId), membershipInvitationDecider, { type: 'Revoke', by, now: now(ctx) });
}

/**
 * The signed-in person accepts an invitation of their own email (from the dashboard, or through
 * the link when `tokenHash` is given). Consent is recorded first, then the membership: accepting
 * again finishes a membership a crash left unrecorded. The person then works in that organization.
 */
export async function acceptMembershipInvitation(
  ctx: CommandContext,
  userId: string,
  invitationId: string,
  tokenHash: string | null = null,
): Promise<ActiveUser> {
  const user = await loadUser(ctx.store, userId);
  if (!user) throw notFound('User');
  const state = await loadMembershipInvitation(ctx.store, invitationId);
  // Someone else's invitation answers as an unknown one.
  if (state.status === 'none' || state.email !== user.email) throw notFound('Invitation');
  // Accepted already: only a membership a crash left unrecorded may be finished, never one its
  // person has since left or been removed from.
  if (state.status === 'accepted' && (await joinedThrough(ctx.store, userId, invitationId, state.invitedAt))) throw invitationGone();
  await handleCommand(ctx, membershipInvitationStream(invitationId), membershipInvitationDecider, {
    type: 'Accept',
    userId,
    userEmail: user.email,
    tokenHash,
    accountCreated: false,
    now: now(ctx),
  });
  await join(ctx, userId, invitationId, state);
  const switched = await handleCommand(ctx, userStream(userId), userDecider, { type: 'SwitchOrganization', organizationId: state.organizationId });
  return switched.state as ActiveUser;
}

/** The membership the invitation gives, on the user's stream. */
const join = (ctx: CommandContext, userId: string, invitationId: string, invitation: { organizationId: string; role: Role }) =>
  handleCommand(ctx, userStream(userId), userDecider, { type: 'JoinOrganization', organizationId: invitation.organizationId, role: invitation.role, invitationId, now: now(ctx) });

async function joinedThrough(store: EventStore, userId: string, invitationId: string, since: number): Promise<boolean> {
  return (await store.readStream(userStream(userId))).some((e) => {
    const data = e.data as { invitation_id?: string; joined_at?: number; created_at?: number };
    return data.invitation_id === invitationId && (data.joined_at ?? data.created_at ?? 0) >= since;
  });
}

/**
 * Records the membership an accepted invitation gives, if its acceptance was recorded and the
 * membership was not (a crash between the two appends). A person who joined through it and has
 * since left or been removed is not added back; an account that was never made is left to its link.
 */
export async function finishAcceptedMembership(ctx: CommandContext, invitationId: string): Promise<boolean> {
  const state = await loadMembershipInvitation(ctx.store, invitationId);
  if (state.status !== 'accepted' || state.acceptedBy === null) return false;
  const userId = state.acceptedBy;
  if (!(await loadUser(ctx.store, userId))) return false;
  if (await joinedThrough(ctx.store, userId, invitationId, state.invitedAt)) return false;
  return (await join(ctx, userId, invitationId, state)).events.length > 0;
}

export async function declineMembershipInvitation(ctx: CommandContext, userId: string, invitationId: string): Promise<void> {
  const user = await loadUser(ctx.store, userId);
  if (!user) throw notFound('User');
  await handleCommand(ctx, membershipInvitationStream(invitationId), membershipInvitationDecider, { type: 'Decline', userId, userEmail: user.email, now: now(ctx) });
}

/**
 * The invitation a token names, for making the account of an email that has none. An email with
 * an account answers 409 `account_exists` (its person signs in and accepts); a token that was
 * used, replaced or expired answers 410. The account's id is the one the invitation reserved, or
 * that of an email claim a crash left without a user.
 */
async function invitationForNewAccount(store: EventStore, token: string, at: number): Promise<{ invitation: KnownInvitation; tokenHash: string; userId: string }> {
  const parsed = parseMembershipInvitationToken(token);
  if (!parsed) throw invitationGone();
  const invitation = await loadMembershipInvitation(store, parsed.invitationId);
  if (invitation.status === 'none' || invitation.tokenHash !== parsed.tokenHash) throw invitationGone();
  const claimedId = await userIdByEmail(store, invitation.email);
  const existing = claimedId ? await loadUser(store, claimedId) : null;
  // Accepted by the account this link reserved, whose creation a crash interrupted: finish it.
  const resuming = invitation.status === 'accepted' && !existing && invitation.acceptedBy === (claimedId ?? invitation.newUserId);
  if (!resuming && !invitationOpen(invitation, at)) throw invitationGone();
  if (existing) throw accountExists();
  return { invitation, tokenHash: parsed.tokenHash, userId: claimedId ?? invitation.newUserId };
}

/** Whether a membership token may still make an account (for the passkey ceremony's options). */
export async function newAccountInvitation(store: EventStore, token: string, at: number): Promise<{ userId: string; email: string }> {
  const { invitation, userId } = await invitationForNewAccount(store, token, at);
  return { userId, email: invitation.email };
}

/**
 * Makes the account of an invited email that has none, as a member. The email is claimed first, so
 * an account made meanwhile by another link wins and this one answers 409.
 */
export async function acceptMembershipInvitationWithNewAccount(
  ctx: CommandContext,
  token: string,
  credential: { password: string } | { passkey: Omit<Passkey, 'registered_at'> },
): Promise<ActiveUser> {
  const { invitation, tokenHash, userId } = await invitationForNewAccount(ctx.store, token, now(ctx));
  // The link is checked before the (slow) hash, so a stale one costs nothing.
  const made: { passwordHash: string } | { passkey: Omit<Passkey, 'registered_at'> } =
    'password' in credential ? { passwordHash: await hashPassword(credential.password) } : { passkey: credential.passkey };
  try {
    await ctx.store.append(userEmailStream(sha256Hex(invitation.email)), [toNewEvent({ type: 'UserEmailClaimed', data: { user_id: userId } }, ctx.metadata)], 'no_stream');
  } catch (error) {
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
    if ((await userIdByEmail(ctx.store, invitation.email)) !== userId) throw accountExists();
  }
  if ('passkey' in made) await claimPasskey(ctx, made.passkey.credential_id, userId, true);
  await handleCommand(ctx, membershipInvitationStream(invitation.id), membershipInvitationDecider, {
    type: 'Accept',
    userId,
    userEmail: invitation.email,
    tokenHash,
    accountCreated: true,
    now: now(ctx),
  });
  const created = await handleCommand(ctx, userStream(userId), userDecider, {
    type: 'CreateUser',
    id: userId,
    email: invitation.email,
    organizationId: invitation.organizationId,
    role: invitation.role,
    invitationId: invitation.id,
    credential: made,
    now: now(ctx),
  });
  return created.state as ActiveUser;
}
