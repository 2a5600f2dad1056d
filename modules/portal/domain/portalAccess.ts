import type { Decider, DomainEvent } from '../../../platform/domain/index.ts';
import { DomainError } from '../../../platform/domain/index.ts';

/**
 * How a buyer gets into the hosted portal: a one-time link (made by the seller's app through a
 * portal session, or emailed after the buyer typed their address), which opens a visit held by a
 * cookie. Neither secret enters the log: each stream is named after its secret's SHA-256
 * (`portal_link-<hex>`, `portal_visit-<hex>`), so the page finds it by hashing what it was given.
 */

/** Who the portal shows: the organization's customer, by id (the email stays out of these events). */
export type PortalCustomer = { id: string };

export type PortalLinkIssuedData = {
  organization_id: string;
  customer: PortalCustomer;
  /** `portal_session`: the seller's app asked (`bps_…` is its id); `magic_link`: the buyer asked by email. */
  source: 'portal_session' | 'magic_link';
  portal_session_id: string | null;
  return_url: string | null;
  issued_at: number;
  expires_at: number;
};

export type PortalLinkEvent =
  | DomainEvent<'PortalLinkIssued', PortalLinkIssuedData>
  /** `visit_id` names the visit it opened (not its cookie, which only the browser holds). */
  | DomainEvent<'PortalLinkRedeemed', { visit_id: string; redeemed_at: number }>;

export type PortalLinkCommand =
  | { type: 'IssuePortalLink'; link: Omit<PortalLinkIssuedData, 'issued_at' | 'expires_at'>; now: number; ttlSeconds: number }
  | { type: 'RedeemPortalLink'; visitId: string; now: number };

export type IssuedPortalLink = { status: 'issued' | 'redeemed' } & PortalLinkIssuedData;
export type PortalLinkState = { status: 'none' } | IssuedPortalLink;

export const portalLinkStream = (tokenHash: string) => `portal_link-${tokenHash}`;

/** A link that cannot open the portal (unknown, used or expired), told apart for the log only: the page says the same for each. */
export const linkUnusable = (code: 'portal_link_unknown' | 'portal_link_used' | 'portal_link_expired') =>
  new DomainError('gone', code, 'This link has expired or was already used.');

export const portalLinkDecider: Decider<PortalLinkState, PortalLinkCommand, PortalLinkEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'PortalLinkIssued':
        return { status: 'issued', ...event.data };
      case 'PortalLinkRedeemed':
        return state.status === 'none' ? state : { ...state, status: 'redeemed' };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'IssuePortalLink':
        if (state.status !== 'none') return [];
        return { type: 'PortalLinkIssued', data: { ...command.link, issued_at: command.now, expires_at: command.now + command.ttlSeconds } };
      case 'RedeemPortalLink':
        if (state.status === 'none') throw linkUnusable('portal_link_unknown');
        if (state.status === 'redeemed') throw linkUnusable('portal_link_used');
        if (command.now >= state.expires_at) throw linkUnusable('portal_link_expired');
        return { type: 'PortalLinkRedeemed', data: { visit_id: command.visitId, redeemed_at: command.now } };
    }
  },
};

export type PortalVisitStartedData = {
  id: string;
  organization_id: string;
  customer: PortalCustomer;
  return_url: string | null;
  started_at: number;
  expires_at: number;
};

export type PortalVisitEvent = DomainEvent<'PortalVisitStarted', PortalVisitStartedData> | DomainEvent<'PortalVisitEnded', { ended_at: number }>;

export type PortalVisitCommand =
  | { type: 'StartPortalVisit'; visit: Omit<PortalVisitStartedData, 'started_at' | 'expires_at'>; now: number; ttlSeconds: number }
  | { type: 'EndPortalVisit'; now: number };

export type OpenPortalVisit = { status: 'open' } & PortalVisitStartedData;
export type PortalVisitState = { status: 'none' } | OpenPortalVisit | ({ status: 'ended' } & PortalVisitStartedData);

export const portalVisitStream = (cookieHash: string) => `portal_visit-${cookieHash}`;

/** Whether a visit still lets its cookie in at `now`. */
export const visitLive = (state: PortalVisitState, now: number): state is OpenPortalVisit => state.status === 'open' && now < state.expires_at;

export const portalVisitDecider: Decider<PortalVisitState, PortalVisitCommand, PortalVisitEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'PortalVisitStarted':
        return { status: 'open', ...event.data };
      case 'PortalVisitEnded':
        return state.status === 'none' ? state : { ...state, status: 'ended' };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'StartPortalVisit':
        if (state.status !== 'none') return [];
        return { type: 'PortalVisitStarted', data: { ...command.visit, started_at: command.now, expires_at: command.now + command.ttlSeconds } };
      case 'EndPortalVisit':
        if (state.status !== 'open') return [];
        return { type: 'PortalVisitEnded', data: { ended_at: command.now } };
    }
  },
};
