import { customAlphabet } from 'nanoid';
import { fold } from '../../platform/domain/index.ts';
import { notFound } from '../../platform/domain/index.ts';
import { oauthAppDecider, oauthAppStream, type OAuthAppEvent, type OAuthAppState } from './domain/oauthApp.ts';
import {
  oauthGrantDecider,
  oauthGrantStream,
  type OAuthGrantEvent,
  type OAuthGrantRevokeReason,
  type OAuthGrantState,
} from './domain/oauthGrant.ts';
import type { EventStore } from '../../platform/eventStore/index.ts';
import { handleCommand, type CommandContext } from '../../platform/es/index.ts';
import { hashSecret } from '../identity/index.ts';

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const clientIdPart = customAlphabet(alphabet, 20);
/** 43 characters of 62 symbols: about 256 bits. */
const clientSecretPart = customAlphabet(alphabet, 43);
const grantIdPart = customAlphabet(alphabet, 24);

export type OAuthAppView = {
  client_id: string;
  organization_id: string;
  name: string;
  redirect_uris: string[];
  public: boolean;
  created_at: number;
};

export const appView = (state: Extract<OAuthAppState, { status: 'active' | 'deleted' }>): OAuthAppView => ({
  client_id: state.clientId,
  organization_id: state.organizationId,
  name: state.name,
  redirect_uris: state.redirectUris,
  public: state.public,
  created_at: state.createdAt,
});

/** The app as its stream says now (not a read model): a deletion or URI change counts at once. */
export async function loadOAuthApp(store: EventStore, clientId: string): Promise<OAuthAppState> {
  if (!/^app_[0-9A-Za-z]{20}$/.test(clientId)) return { status: 'none' };
  const events = await store.readStream(oauthAppStream(clientId));
  return fold(oauthAppDecider, events as unknown as OAuthAppEvent[]);
}

export async function loadOAuthGrant(store: EventStore, grantId: string): Promise<OAuthGrantState> {
  const events = await store.readStream(oauthGrantStream(grantId));
  return fold(oauthGrantDecider, events as unknown as OAuthGrantEvent[]);
}

/** The secret is in this answer only; the app's stream records its SHA-256. */
export async function registerOAuthApp(
  ctx: CommandContext,
  input: { organizationId: string; userId: string; name: string; redirectUris: string[]; public: boolean },
): Promise<OAuthAppView & { client_secret: string | null }> {
  const clientId = `app_${clientIdPart()}`;
  const secret = input.public ? null : `cs_${clientSecretPart()}`;
  const secretHash = secret === null ? null : hashSecret(secret);
  const command = { type: 'RegisterOAuthApp' as const, ...input, clientId, secretHash, now: ctx.metadata.occurred_at };
  const result = await handleCommand(ctx, oauthAppStream(clientId), oauthAppDecider, command, { known: [] });
  return { ...appView(result.state as Extract<OAuthAppState, { status: 'active' }>), client_secret: secret };
}

export async function updateOAuthApp(
  ctx: CommandContext,
  clientId: string,
  input: { organizationId: string; name?: string; redirectUris?: string[] },
): Promise<OAuthAppView> {
  if (!/^app_[0-9A-Za-z]{20}$/.test(clientId)) throw notFound('OAuth app');
  const result = await handleCommand(ctx, oauthAppStream(clientId), oauthAppDecider, { type: 'UpdateOAuthApp', ...input, now: ctx.metadata.occurred_at });
  return appView(result.state as Extract<OAuthAppState, { status: 'active' }>);
}

/** Its tokens stop working at once: every bearer check reads the app's stream. */
export async function deleteOAuthApp(ctx: CommandContext, clientId: string, organizationId: string): Promise<void> {
  if (!/^app_[0-9A-Za-z]{20}$/.test(clientId)) throw notFound('OAuth app');
  await handleCommand(ctx, oauthAppStream(clientId), oauthAppDecider, { type: 'DeleteOAuthApp', organizationId, now: ctx.metadata.occurred_at });
}

export const newGrantId = () => `grt_${grantIdPart()}`;

export async function grantConsent(
  ctx: CommandContext,
  input: { grantId: string; clientId: string; userId: string; organizationId: string; scopes: string[] },
): Promise<void> {
  await handleCommand(ctx, oauthGrantStream(input.grantId), oauthGrantDecider, { type: 'GrantConsent', ...input, now: ctx.metadata.occurred_at }, { known: [] });
}

/** A denial has no grant: it gets a stream of its own, so the audit trail holds it too. */
export async function denyConsent(ctx: CommandContext, input: { clientId: string; userId: string; scopes: string[] }): Promise<void> {
  await handleCommand(ctx, oauthGrantStream(newGrantId()), oauthGrantDecider, { type: 'DenyConsent', ...input, now: ctx.metadata.occurred_at }, { known: [] });
}

export async function recordTokensIssued(
  ctx: CommandContext,
  grantId: string,
  input: { grantType: 'authorization_code' | 'refresh_token'; scopes: string[]; refreshToken: boolean },
): Promise<void> {
  await handleCommand(ctx, oauthGrantStream(grantId), oauthGrantDecider, { type: 'RecordTokensIssued', ...input, now: ctx.metadata.occurred_at });
}

export async function recordTokenRevoked(ctx: CommandContext, grantId: string, tokenType: string): Promise<void> {
  await handleCommand(ctx, oauthGrantStream(grantId), oauthGrantDecider, { type: 'RecordTokenRevoked', tokenType, now: ctx.metadata.occurred_at });
}

export async function revokeOAuthGrant(ctx: CommandContext, grantId: string, reason: OAuthGrantRevokeReason, userId?: string): Promise<boolean> {
  if (!/^grt_[0-9A-Za-z]{24}$/.test(grantId)) throw notFound('Connected app');
  const result = await handleCommand(ctx, oauthGrantStream(grantId), oauthGrantDecider, {
    type: 'RevokeGrant',
    reason,
    ...(userId !== undefined ? { userId } : {}),
    now: ctx.metadata.occurred_at,
  });
  return result.events.length > 0;
}
