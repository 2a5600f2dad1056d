import { apiKeyDecider, apiKeyStream } from './domain/apiKey.ts';
import { organizationDecider, organizationStream, type OrganizationEvent, type OrganizationLogo, type OrganizationState } from './domain/organization.ts';
import { normalizeEmail, userDecider, userEmailStream, userStream, type Passkey, type Role, type UserState } from './domain/user.ts';
import {
  signInAttemptsStream,
  userSessionDecider,
  userSessionStream,
  type SignInFailedEvent,
  type KnownSession,
  type SignInMethod,
  type UserSessionState,
} from './domain/userSession.ts';
import { fold } from '../../platform/domain/index.ts';
import { DomainError, notFound } from '../../platform/domain/index.ts';
import { WrongExpectedRevisionError, type EventStore } from '../../platform/eventStore/index.ts';
import { handleCommand, toNewEvent, type CommandContext } from '../../platform/es/index.ts';
import {
  dummyPasswordHash,
  generateInvitationToken,
  generateSessionCredential,
  hashPassword,
  parseInvitationToken,
  passwordMatches,
  secretHashMatches,
  sha256Hex,
} from './accountSecrets.ts';

/** An invitation (or password reset) link works for 24 hours, once. */
export const INVITATION_TTL_SECONDS = 24 * 3600;
/** A session ends after 2 hours without a request, and 12 hours after sign-in whatever happens. */
export const SESSION_IDLE_SECONDS = 2 * 3600;
export const SESSION_ABSOLUTE_SECONDS = 12 * 3600;
/** Activity is recorded at most this often, so a busy session does not write on every request. */
export const SESSION_TOUCH_EVERY_SECONDS = 5 * 60;

export type ActiveUser = Extract<UserState, { status: 'active' }>;

const now = (ctx: CommandContext) => ctx.metadata.occurred_at;

export async function loadUser(store: EventStore, userId: string): Promise<ActiveUser | null> {
  const state = fold(userDecider, (await store.readStream(userStream(userId))) as never[]);
  return state.status === 'active' ? state : null;
}

export async function userIdByEmail(store: EventStore, email: string): Promise<string | null> {
  const [claim] = await store.readStream(userEmailStream(sha256Hex(normalizeEmail(email))));
  return claim ? (claim.data as { user_id: string }).user_id : null;
}

export async function loadOrganization(store: EventStore, organizationId: string) {
  const state = fold(organizationDecider, (await store.readStream(organizationStream(organizationId))) as never[]);
  return state.status === 'active' ? state : null;
}

/**
 * A logo the organization has had, by the start of its hash (the public URL's name), from any
 * point of its stream: a receipt or email of last year still shows the logo it was sent with.
 */
export async function organizationLogo(store: EventStore, organizationId: string, sha256Prefix: string): Promise<OrganizationLogo | null> {
  if (!/^[0-9a-f]{16,64}$/.test(sha256Prefix)) return null;
  const events = (await store.readStream(organizationStream(organizationId))) as unknown as OrganizationEvent[];
  for (const event of events) {
    if (event.type === 'OrganizationLogoChanged' && event.data.logo?.sha256.startsWith(sha256Prefix)) return event.data.logo;
  }
  return null;
}

/** A new one-time link for the user: the token is returned once, only its hash recorded. */
export async function inviteUser(ctx: CommandContext, userId: string): Promise<{ user_id: string; token: string; expires_at: number }> {
  const { token, tokenHash } = generateInvitationToken(userId);
  const expiresAt = now(ctx) + INVITATION_TTL_SECONDS;
  await handleCommand(ctx, userStream(userId), userDecider, { type: 'InviteUser', tokenHash, expiresAt, now: now(ctx) });
  return { user_id: userId, token, expires_at: expiresAt };
}

/** The user an invitation token names if it is still usable (for the page that shows it), else null. */
export async function readInvitation(store: EventStore, token: string, at: number): Promise<ActiveUser | null> {
  const parsed = parseInvitationToken(token);
  if (!parsed) return null;
  const user = await loadUser(store, parsed.userId);
  const inv = user?.invitation;
  return user && inv && inv.tokenHash === parsed.tokenHash && inv.expiresAt > at ? user : null;
}

const invitationInvalid = () => new DomainError('gone', 'invitation_invalid', 'The invitation link is invalid or has expired.');

export async function acceptInvitationWithPassword(ctx: CommandContext, token: string, password: string): Promise<ActiveUser> {
  const parsed = parseInvitationToken(token);
  if (!parsed) throw invitationInvalid();
  // Checked before the (slow) hash, so a stale link costs nothing.
  if (!(await readInvitation(ctx.store, token, now(ctx)))) throw invitationInvalid();
  const passwordHash = await hashPassword(password);
  const result = await handleCommand(ctx, userStream(parsed.userId), userDecider, {
    type: 'AcceptInvitationWithPassword',
    tokenHash: parsed.tokenHash,
    passwordHash,
    now: now(ctx),
  });
  return result.state as ActiveUser;
}

/** Registers a passkey whose attestation the caller verified with the WebAuthn library. */
export async function acceptInvitationWithPasskey(
  ctx: CommandContext,
  token: string,
  passkey: Omit<Passkey, 'registered_at'>,
): Promise<ActiveUser> {
  const parsed = parseInvitationToken(token);
  if (!parsed || !(await readInvitation(ctx.store, token, now(ctx)))) throw invitationInvalid();
  await claimPasskey(ctx, passkey.credential_id, parsed.userId, false);
  const result = await handleCommand(ctx, userStream(parsed.userId), userDecider, {
    type: 'AcceptInvitationWithPasskey',
    tokenHash: parsed.tokenHash,
    passkey,
    now: now(ctx),
  });
  return result.state as ActiveUser;
}

const passkeyClaimStream = (credentialId: string) => `passkey-${sha256Hex(credentialId)}`;

/** Claims the credential for the user on its own stream, so one credential names one user; `mayReclaim`: theirs already is fine. */
export async function claimPasskey(ctx: CommandContext, credentialId: string, userId: string, mayReclaim: boolean): Promise<void> {
  try {
    await ctx.store.append(passkeyClaimStream(credentialId), [toNewEvent({ type: 'PasskeyClaimed', data: { user_id: userId } }, ctx.metadata)], 'no_stream');
  } catch (error) {
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
    if (!mayReclaim || (await userIdByPasskey(ctx.store, credentialId)) !== userId) throw new DomainError('conflict', 'passkey_exists', 'That passkey is already registered.');
  }
}

/** A verified passkey added by a signed-in person (Settings); they may add back one they removed. */
export async function addPasskey(ctx: CommandContext, userId: string, passkey: Omit<Passkey, 'registered_at'>): Promise<Passkey> {
  await claimPasskey(ctx, passkey.credential_id, userId, true);
  const result = await handleCommand(ctx, userStream(userId), userDecider, { type: 'AddPasskey', passkey, now: now(ctx) });
  return (result.state as ActiveUser).passkeys.find((p) => p.credential_id === passkey.credential_id)!;
}

export async function removePasskey(ctx: CommandContext, userId: string, credentialId: string): Promise<void> {
  await handleCommand(ctx, userStream(userId), userDecider, { type: 'RemovePasskey', credentialId, now: now(ctx) });
}

export async function userIdByPasskey(store: EventStore, credentialId: string): Promise<string | null> {
  const [claim] = await store.readStream(passkeyClaimStream(credentialId));
  return claim ? (claim.data as { user_id: string }).user_id : null;
}

export async function recordPasskeyUse(ctx: CommandContext, userId: string, credentialId: string, counter: number): Promise<void> {
  await handleCommand(ctx, userStream(userId), userDecider, { type: 'RecordPasskeyUse', credentialId, counter, now: now(ctx) });
}

export async function recordSignInFailure(
  ctx: CommandContext,
  email: string,
  failure: Omit<SignInFailedEvent['data'], 'at' | 'ip'>,
): Promise<void> {
  const actor = ctx.metadata.actor;
  const ip = actor.type === 'public' ? (actor.ip ?? null) : null;
  const event: SignInFailedEvent = { type: 'SignInFailed', data: { ...failure, ip, at: now(ctx) } };
  await ctx.store.append(signInAttemptsStream(sha256Hex(normalizeEmail(email))), [toNewEvent(event, ctx.metadata)], 'any');
}

/**
 * The user whose password this is, or null. An unknown email, a user without a password and a
 * wrong password all cost one argon2 verification and answer the same (the reason is recorded).
 */
export async function verifyPassword(ctx: CommandContext, email: string, password: string): Promise<ActiveUser | null> {
  const userId = await userIdByEmail(ctx.store, email);
  const user = userId ? await loadUser(ctx.store, userId) : null;
  const matches = await passwordMatches(user?.passwordHash ?? (await dummyPasswordHash()), password);
  if (user && user.passwordHash && matches) return user;
  const reason = !user ? 'unknown_email' : !user.passwordHash ? 'no_password' : 'wrong_password';
  await recordSignInFailure(ctx, email, { user_id: user?.id ?? null, method: 'password', reason });
  return null;
}

export type StartedSession = { sessionId: string; cookieValue: string; state: KnownSession };

/**
 * A new session for the user. A session the request already carried is ended first (rotation),
 * but only when the cookie's secret verifies: a cookie naming someone else's session id with a
 * made-up secret must not sign that person out. A planted id is worthless after sign-in either
 * way, since the new session has a new id.
 */
export async function startSession(
  ctx: CommandContext,
  input: { userId: string; method: SignInMethod; ip: string | null; userAgent: string | null; previous: { sessionId: string; secret: string } | null },
): Promise<StartedSession> {
  if (input.previous) {
    const previous = await loadSession(ctx.store, input.previous.sessionId);
    if (previous.status === 'active' && secretHashMatches(input.previous.secret, previous.secretHash)) {
      await endSession(ctx, input.previous.sessionId, 'rotated', input.userId).catch(() => undefined);
    }
  }
  const credential = generateSessionCredential();
  const result = await handleCommand(
    ctx,
    userSessionStream(credential.sessionId),
    userSessionDecider,
    {
      type: 'SignIn',
      sessionId: credential.sessionId,
      userId: input.userId,
      secretHash: credential.secretHash,
      method: input.method,
      ip: input.ip,
      userAgent: input.userAgent,
      absoluteTtl: SESSION_ABSOLUTE_SECONDS,
      idleTimeout: SESSION_IDLE_SECONDS,
      now: now(ctx),
    },
    { known: [] },
  );
  return { sessionId: credential.sessionId, cookieValue: credential.cookieValue, state: result.state as StartedSession['state'] };
}

export async function loadSession(store: EventStore, sessionId: string): Promise<UserSessionState> {
  return fold(userSessionDecider, (await store.readStream(userSessionStream(sessionId))) as never[]);
}

export async function touchSession(ctx: CommandContext, sessionId: string): Promise<void> {
  await handleCommand(ctx, userSessionStream(sessionId), userSessionDecider, { type: 'Touch', now: now(ctx) });
}

export async function endSession(
  ctx: CommandContext,
  sessionId: string,
  reason: 'sign_out' | 'rotated' | 'revoked',
  by: string | null,
): Promise<{ changed: boolean }> {
  const result = await handleCommand(ctx, userSessionStream(sessionId), userSessionDecider, { type: 'SignOut', reason, by, now: now(ctx) });
  return { changed: result.events.length > 0 };
}

/** A session of this user, or not found (another user's id answers as an unknown one). */
export async function revokeOwnSession(ctx: CommandContext, userId: string, sessionId: string): Promise<{ changed: boolean }> {
  const state = await loadSession(ctx.store, sessionId);
  if (state.status === 'none' || state.userId !== userId) throw notFound('Session');
  return endSession(ctx, sessionId, 'revoked', userId);
}

export async function switchOrganization(ctx: CommandContext, userId: string, organizationId: string): Promise<ActiveUser> {
  const user = await loadUser(ctx.store, userId);
  // Another organization's id answers as an unknown one: not "not a member".
  if (!user || !user.memberships.includes(organizationId)) throw notFound('Organization');
  const result = await handleCommand(ctx, userStream(userId), userDecider, { type: 'SwitchOrganization', organizationId });
  return result.state as ActiveUser;
}

export async function changeMemberRole(ctx: CommandContext, organizationId: string, userId: string, role: Role): Promise<ActiveUser> {
  const result = await handleCommand(ctx, userStream(userId), userDecider, { type: 'ChangeRole', organizationId, role, now: now(ctx) });
  return result.state as ActiveUser;
}

export async function removeMember(ctx: CommandContext, organizationId: string, userId: string): Promise<void> {
  await handleCommand(ctx, userStream(userId), userDecider, { type: 'RemoveMember', organizationId, now: now(ctx) });
}

export type OrganizationSettings = Omit<Extract<OrganizationState, { status: 'active' }>, 'status'>;

export async function updateOrganization(
  ctx: CommandContext,
  organizationId: string,
  changes: Partial<Omit<OrganizationSettings, 'id'>>,
): Promise<OrganizationSettings> {
  const current = await loadOrganization(ctx.store, organizationId);
  if (!current) throw notFound('Organization');
  const result = await handleCommand(ctx, organizationStream(organizationId), organizationDecider, {
    type: 'UpdateOrganization',
    name: changes.name ?? current.name,
    timezone: changes.timezone ?? current.timezone,
    // Left out: kept; null: removed.
    address: changes.address === undefined ? current.address : changes.address,
    ...(changes.vat_number !== undefined ? { vat_number: changes.vat_number } : {}),
    ...(changes.brand_color !== undefined ? { brand_color: changes.brand_color } : {}),
    ...(changes.logo !== undefined ? { logo: changes.logo } : {}),
    ...(changes.allowed_redirect_origins ? { allowed_redirect_origins: changes.allowed_redirect_origins } : {}),
    now: now(ctx),
  });
  const state = result.state as Exclude<typeof result.state, { status: 'none' }>;
  const { id, name, timezone, address, vat_number, brand_color, logo, allowed_redirect_origins } = state;
  return { id, name, timezone, address, vat_number, brand_color, logo, allowed_redirect_origins };
}

/** An API key of the organization, as its stream says (another organization's answers as unknown). */
export async function apiKeyOfOrganization(store: EventStore, organizationId: string, keyId: string): Promise<boolean> {
  const state = fold(apiKeyDecider, (await store.readStream(apiKeyStream(keyId))) as never[]);
  return state.status !== 'none' && state.organizationId === organizationId;
}

/**
 * The dashboard page where the person sets a password or registers a passkey. The token travels
 * in the fragment, which browsers never send, so it stays out of access logs and Referer headers.
 */
export const invitationPath = (token: string) => `/dashboard/invitation#token=${token}`;

/** A one-time invitation for a user who has no way to sign in yet (none for one who has). */
export async function inviteIfNeeded(ctx: CommandContext, userId: string): Promise<{ token: string; expires_at: number } | null> {
  const user = await loadUser(ctx.store, userId);
  if (!user || user.passwordHash !== null || user.passkeys.length > 0) return null;
  return inviteUser(ctx, userId);
}
