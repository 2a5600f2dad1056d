import { createHash, randomBytes } from 'node:crypto';
import { fold } from '../../platform/domain/index.ts';
import type { EventMetadata } from '../../platform/eventStore/index.ts';
import { handleCommand } from '../../platform/es/index.ts';
import type { Services } from '../../platform/runtime/index.ts';
import { invoiceDecider, invoiceStream, type InvoiceState } from '../checkout/index.ts';
import { billingLinkDecider, billingLinkStream, type BillingLinkIssuedData, type BillingLinkState } from './domain/billingLink.ts';
import { isEnded, subscriptionDecider, subscriptionStream, type Active, type SubscriptionEvent } from './domain/subscription.ts';

/** 24 random bytes (192 bits) in base64url: 32 characters. */
const TOKEN = /^[A-Za-z0-9_-]{32}$/;

export const billingLinkPath = (token: string) => `/billing/${token}`;

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Makes a new link to the hosted card page of a subscription and records only its hash. Called
 * when the email is sent, so the token lives in that email and nowhere else; a send retried makes
 * another link (the lost one was never seen by anybody).
 */
export async function issueBillingLink(services: Pick<Services, 'store' | 'clock'>, link: Omit<BillingLinkIssuedData, 'issued_at'>, correlation: string): Promise<string> {
  const token = randomBytes(24).toString('base64url');
  const now = Math.floor(services.clock() / 1000);
  const metadata: EventMetadata = { correlation_id: correlation, actor: { type: 'system', name: 'dunning' }, organization_id: link.organization_id, occurred_at: now };
  await handleCommand({ store: services.store, metadata }, billingLinkStream(hashOf(token)), billingLinkDecider, { type: 'IssueBillingLink', link, now });
  return token;
}

export type UsableBillingLink = {
  token: string;
  link: Extract<BillingLinkState, { status: 'issued' }>;
  subscription: Active;
  events: SubscriptionEvent[];
  invoice: Exclude<InvoiceState, { status: 'none' }>;
};

/**
 * The link a token names, while it may still be used: until its invoice is paid (or voided) or
 * the subscription ends. An invoice given up on (the last retry failed) keeps its link while the
 * subscription stays `unpaid`, so the buyer can still give a card for what comes next.
 */
export async function usableBillingLink(services: Pick<Services, 'store'>, token: string): Promise<UsableBillingLink | null> {
  if (!TOKEN.test(token)) return null;
  const link = fold(billingLinkDecider, (await services.store.readStream(billingLinkStream(hashOf(token)))) as never);
  if (link.status === 'none') return null;
  const events = (await services.store.readStream(subscriptionStream(link.subscription_id))) as unknown as SubscriptionEvent[];
  const subscription = fold(subscriptionDecider, events);
  if (subscription.status === 'none' || isEnded(subscription.status) || subscription.sub.organization_id !== link.organization_id) return null;
  const invoice = fold(invoiceDecider, (await services.store.readStream(invoiceStream(link.invoice_id))) as never) as InvoiceState;
  if (invoice.status === 'none' || invoice.status === 'paid' || invoice.status === 'void') return null;
  if (invoice.status === 'uncollectible' && subscription.status !== 'unpaid') return null;
  return { token, link, subscription, events, invoice };
}

/**
 * The subscription of a link whose invoice is paid, while the subscription goes on: the hosted
 * page's answer to a confirmation that arrives after the payment was recorded.
 */
export async function settledBillingLink(services: Pick<Services, 'store'>, token: string): Promise<{ subscription: Active; events: SubscriptionEvent[] } | null> {
  if (!TOKEN.test(token)) return null;
  const link = fold(billingLinkDecider, (await services.store.readStream(billingLinkStream(hashOf(token)))) as never);
  if (link.status === 'none') return null;
  const events = (await services.store.readStream(subscriptionStream(link.subscription_id))) as unknown as SubscriptionEvent[];
  const subscription = fold(subscriptionDecider, events);
  if (subscription.status === 'none' || isEnded(subscription.status) || subscription.sub.organization_id !== link.organization_id) return null;
  const paid = events.some((e) => e.type === 'SubscriptionInvoicePaid' && e.data.invoice_id === link.invoice_id);
  return paid ? { subscription, events } : null;
}
