import { createHash } from 'node:crypto';
import { customAlphabet } from 'nanoid';
import { apiKeyDecider, apiKeyStream, type ApiKeyRevokeReason } from './domain/apiKey.ts';
import { organizationDecider, organizationStream } from './domain/organization.ts';
import { normalizeEmail, userDecider, userEmailStream, userStream, type Role } from './domain/user.ts';
import { notFound } from '../../platform/domain/index.ts';
import { WrongExpectedRevisionError } from '../../platform/eventStore/index.ts';
import { handleCommand, toNewEvent, type CommandContext } from '../../platform/es/index.ts';
import { generateApiKey } from './credentials.ts';

const shortId = customAlphabet('0123456789abcdefghijklmnopqrstuvwxyz', 12);
const nowSeconds = (ctx: CommandContext) => ctx.metadata.occurred_at;

export async function createOrganization(
  ctx: CommandContext,
  input: { name: string; timezone: string; id?: string },
): Promise<{ id: string; name: string; timezone: string }> {
  const id = input.id ?? `org_${shortId()}`;
  await handleCommand(ctx, organizationStream(id), organizationDecider, { type: 'CreateOrganization', ...input, id, now: nowSeconds(ctx) });
  return { id, name: input.name, timezone: input.timezone };
}

export async function organizationExists(ctx: CommandContext, id: string): Promise<boolean> {
  return (await ctx.store.readStream(organizationStream(id))).length > 0;
}

/**
 * Creates a user, or adds the organization to the memberships of the user who owns the email. The
 * email is claimed first on its own stream, so two concurrent creations of one email make one user.
 */
export async function createUser(
  ctx: CommandContext,
  input: { email: string; organizationId: string; role?: Role },
): Promise<{ id: string; email: string; created: boolean; joined: boolean }> {
  if (!(await organizationExists(ctx, input.organizationId))) throw notFound('Organization');
  const email = normalizeEmail(input.email);
  const claimStream = userEmailStream(createHash('sha256').update(email).digest('hex'));
  let userId = `usr_${shortId()}`;
  try {
    await ctx.store.append(
      claimStream,
      [toNewEvent({ type: 'UserEmailClaimed', data: { user_id: userId } }, ctx.metadata)],
      'no_stream',
    );
  } catch (error) {
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
    const [claim] = await ctx.store.readStream(claimStream);
    userId = (claim!.data as { user_id: string }).user_id;
  }
  const stream = userStream(userId);
  const existing = await ctx.store.readStream(stream);
  if (existing.length === 0) {
    await handleCommand(ctx, stream, userDecider, {
      type: 'CreateUser',
      id: userId,
      email,
      organizationId: input.organizationId,
      ...(input.role ? { role: input.role } : {}),
      now: nowSeconds(ctx),
    });
    return { id: userId, email, created: true, joined: true };
  }
  const { events } = await handleCommand(ctx, stream, userDecider, {
    type: 'JoinOrganization',
    organizationId: input.organizationId,
    ...(input.role ? { role: input.role } : {}),
    now: nowSeconds(ctx),
  });
  // Joining an organization the user is already in records nothing: joined says which happened.
  return { id: userId, email, created: false, joined: events.length > 0 };
}

/** Returns the token once: only its hash is recorded. */
export async function createApiKey(
  ctx: CommandContext,
  input: { userId: string; organizationId: string; name?: string; expiresAt?: number | null },
): Promise<{ id: string; token: string; expires_at: number | null }> {
  const userEvents = await ctx.store.readStream(userStream(input.userId));
  if (userEvents.length === 0) throw notFound('User');
  const user = userEvents.reduce((s, e) => userDecider.evolve(s, e as never), userDecider.initialState());
  if (!(await organizationExists(ctx, input.organizationId))) throw notFound('Organization');
  const key = generateApiKey();
  await handleCommand(ctx, apiKeyStream(key.id), apiKeyDecider, {
    type: 'CreateApiKey',
    id: key.id,
    userId: input.userId,
    organizationId: input.organizationId,
    name: input.name ?? 'API key',
    secretHash: key.secretHash,
    userIsMember: user.status === 'active' && user.memberships.includes(input.organizationId),
    expiresAt: input.expiresAt ?? null,
    now: nowSeconds(ctx),
  });
  return { id: key.id, token: key.token, expires_at: input.expiresAt ?? null };
}

/** A key's use is recorded at most this often (as a session's activity is): not an event per request. */
export const API_KEY_USE_EVERY_SECONDS = 5 * 60;

/** Records that the key authenticated a request, unless a use was recorded in the last five minutes. */
export async function recordApiKeyUse(ctx: CommandContext, id: string): Promise<{ recorded: boolean }> {
  const result = await handleCommand(ctx, apiKeyStream(id), apiKeyDecider, { type: 'RecordApiKeyUse', now: nowSeconds(ctx), every: API_KEY_USE_EVERY_SECONDS });
  return { recorded: result.events.length > 0 };
}

export async function revokeApiKey(ctx: CommandContext, id: string, reason: ApiKeyRevokeReason = 'manual'): Promise<{ id: string; revoked: boolean }> {
  const result = await handleCommand(ctx, apiKeyStream(id), apiKeyDecider, { type: 'RevokeApiKey', reason, now: nowSeconds(ctx) });
  return { id, revoked: result.events.length > 0 };
}

/**
 * Revokes (`member_removed`) each of `keyIds` the person created in the organization before their
 * removal at log position `removedAt`; a key of someone else, or made after they joined again, stays.
 */
export async function revokeKeysOfRemovedMember(
  ctx: CommandContext,
  input: { userId: string; organizationId: string; removedAt: number; keyIds: readonly string[] },
): Promise<string[]> {
  const revoked: string[] = [];
  for (const id of input.keyIds) {
    const [created] = await ctx.store.readStream(apiKeyStream(id));
    const data = created?.data as { user_id?: string; organization_id?: string } | undefined;
    if (!created || data?.user_id !== input.userId || data.organization_id !== input.organizationId || created.position > input.removedAt) continue;
    if ((await revokeApiKey(ctx, id, 'member_removed')).revoked) revoked.push(id);
  }
  return revoked;
}
