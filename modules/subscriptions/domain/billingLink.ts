import type { Decider, DomainEvent } from '../../../platform/domain/index.ts';

/**
 * A link emailed to a buyer whose renewal failed, to the hosted page where they enter a new card.
 * The link's token is its only credential and never enters the log: its stream is named after the
 * token's SHA-256 (`billing_link-<hex>`), so the page finds the link by hashing what it was given.
 */
export type BillingLinkIssuedData = {
  subscription_id: string;
  /** The invoice whose failed payment the email was about: the link works until it is paid. */
  invoice_id: string;
  organization_id: string;
  issued_at: number;
};

export type BillingLinkEvent = DomainEvent<'BillingLinkIssued', BillingLinkIssuedData>;
export type BillingLinkCommand = { type: 'IssueBillingLink'; link: Omit<BillingLinkIssuedData, 'issued_at'>; now: number };
export type BillingLinkState = { status: 'none' } | ({ status: 'issued' } & BillingLinkIssuedData);

export const billingLinkStream = (tokenHash: string) => `billing_link-${tokenHash}`;

export const billingLinkDecider: Decider<BillingLinkState, BillingLinkCommand, BillingLinkEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve: (_state, event) => ({ status: 'issued', ...event.data }),
  decide(command, state) {
    if (state.status !== 'none') return [];
    return { type: 'BillingLinkIssued', data: { ...command.link, issued_at: command.now } };
  },
};
