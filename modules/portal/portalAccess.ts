import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { fold } from '../../platform/domain/index.ts';
import type { EventStore } from '../../platform/eventStore/index.ts';
import { handleCommand, type CommandContext } from '../../platform/es/index.ts';
import {
  portalLinkDecider,
  portalLinkStream,
  portalVisitDecider,
  portalVisitStream,
  linkUnusable,
  visitLive,
  type PortalCustomer,
  type IssuedPortalLink,
  type OpenPortalVisit,
  type PortalLinkIssuedData,
} from './domain/portalAccess.ts';

/** A portal session's link opens the portal for 5 minutes after it is made (Stripe's portal sessions last 5 minutes too). */
export const PORTAL_SESSION_LINK_SECONDS = 5 * 60;
/** An emailed sign-in link works for 15 minutes. */
export const MAGIC_LINK_SECONDS = 15 * 60;
/** A visit opened by either lasts an hour, then the buyer asks for a new link. */
export const VISIT_SECONDS = 60 * 60;

/** 24 random bytes (192 bits) in base64url: 32 characters. */
const TOKEN = /^[A-Za-z0-9_-]{32}$/;
const newToken = () => randomBytes(24).toString('base64url');
const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

export const portalPath = (organizationId: string) => `/portal/${encodeURIComponent(organizationId)}`;
export const portalLinkPath = (organizationId: string, token: string) => `${portalPath(organizationId)}/session/${token}`;

/**
 * Makes a one-time link into the portal and records only its hash: the token is in the answer (or
 * the email) alone.
 */
export async function issuePortalLink(ctx: CommandContext, link: Omit<PortalLinkIssuedData, 'issued_at' | 'expires_at'>, ttlSeconds: number): Promise<{ token: string; expiresAt: number; createdAt: number }> {
  const token = newToken();
  const now = ctx.metadata.occurred_at;
  const result = await handleCommand(ctx, portalLinkStream(hashOf(token)), portalLinkDecider, { type: 'IssuePortalLink', link, now, ttlSeconds }, { known: [] });
  if (result.state.status === 'none') throw new Error('portal link not issued');
  return { token, expiresAt: result.state.expires_at, createdAt: result.state.issued_at };
}

/** The organization a well-formed, issued link belongs to, or null: read before redeeming so the page can name the seller. */
export async function peekPortalLink(store: Pick<EventStore, 'readStream'>, token: string): Promise<IssuedPortalLink | null> {
  if (!TOKEN.test(token)) return null;
  const state = fold(portalLinkDecider, (await store.readStream(portalLinkStream(hashOf(token)))) as never);
  return state.status === 'none' ? null : state;
}

/**
 * Spends the link (once, before it expires; else the decider's `gone` error) and opens a visit whose
 * cookie value only the browser holds. A crash between the two appends leaves the link spent and no
 * visit: the buyer asks for another link.
 */
export async function redeemPortalLink(ctx: CommandContext, organizationId: string, token: string): Promise<{ cookie: string; visit: OpenPortalVisit }> {
  const now = ctx.metadata.occurred_at;
  const visitId = `pv_${randomBytes(12).toString('base64url')}`;
  const linkStream = TOKEN.test(token) ? portalLinkStream(hashOf(token)) : portalLinkStream('none');
  const redeemed = await handleCommand(ctx, linkStream, portalLinkDecider, { type: 'RedeemPortalLink', visitId, now });
  const link = redeemed.state;
  // A link of another organization's portal spends itself here too: it was never meant for this page.
  if (link.status === 'none' || link.organization_id !== organizationId) throw linkUnusable('portal_link_unknown');
  const cookie = newToken();
  const started = await handleCommand(
    ctx,
    portalVisitStream(hashOf(cookie)),
    portalVisitDecider,
    { type: 'StartPortalVisit', visit: { id: visitId, organization_id: link.organization_id, customer: link.customer, return_url: link.return_url }, now, ttlSeconds: VISIT_SECONDS },
    { known: [] },
  );
  if (started.state.status !== 'open') throw new Error('portal visit not started');
  return { cookie, visit: started.state };
}

export type OpenVisit = OpenPortalVisit & { cookie: string };

/** The visit a cookie holds while it lasts, in the organization of the page, or null. Read from its stream: a sign-out counts at once. */
export async function visitOfCookie(store: Pick<EventStore, 'readStream'>, organizationId: string, cookie: string | null, now: number): Promise<OpenVisit | null> {
  if (!cookie || !TOKEN.test(cookie)) return null;
  const state = fold(portalVisitDecider, (await store.readStream(portalVisitStream(hashOf(cookie)))) as never);
  if (!visitLive(state, now) || state.organization_id !== organizationId) return null;
  return { ...state, cookie };
}

export async function endVisit(ctx: CommandContext, cookie: string): Promise<void> {
  if (!TOKEN.test(cookie)) return;
  await handleCommand(ctx, portalVisitStream(hashOf(cookie)), portalVisitDecider, { type: 'EndPortalVisit', now: ctx.metadata.occurred_at });
}

/**
 * The CSRF token of a visit's forms: derived from its cookie with the service's secret, so it is
 * stored nowhere and no one without the cookie can make it.
 */
export const csrfTokenOfVisit = (secret: Uint8Array, cookie: string) => createHmac('sha256', secret).update(`portal csrf ${cookie}`).digest('base64url');

export function csrfMatches(secret: Uint8Array, cookie: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const expected = Buffer.from(csrfTokenOfVisit(secret, cookie));
  const actual = Buffer.from(given);
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

export type { PortalCustomer };
