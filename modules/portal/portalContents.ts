import type { Services } from '../../platform/runtime/index.ts';
import { CHECKOUT_SESSIONS, type SessionView } from '../checkout/index.ts';
import { formatDay, formatMoney, pricingSummary, receiptLinksOf } from '../receipts/index.ts';
import { CUSTOMER_LINKS, type LinkDoc } from '../customers/index.ts';
import { isEnded, listInvoices, loadSubscription, subscriptionPlans, type Active } from '../subscriptions/index.ts';
import { activeGrantsForCustomer } from '../benefits/index.ts';
import { deliverGrants, type DeliveredBenefit } from '../delivery/index.ts';
import type { PortalSettings } from './domain/portalSettings.ts';
import type { PortalPurchase, PortalSubscription } from './http/renderPortal.ts';
import type { PortalBuyer } from './portalCustomers.ts';

/** At most this many of each list: a portal shows a buyer's recent business, the seller's dashboard the rest. */
const LIMIT = 50;

const INTERVAL_WORDS: Record<string, string> = { P1D: 'a day', P1W: 'a week', P1M: 'a month', P3M: 'every 3 months', P6M: 'every 6 months', P1Y: 'a year' };

/** What the customers module links to the customer, newest first. */
async function linked(services: Services, organizationId: string, buyer: PortalBuyer, kind: LinkDoc['kind']): Promise<string[]> {
  const links = await services.readStore.find<LinkDoc & { [k: string]: unknown }>(CUSTOMER_LINKS, { filter: { customer_id: buyer.id }, sort: [['at', -1]], limit: 500 });
  return links.filter((l) => l.kind === kind && l.organization_id === organizationId).slice(0, LIMIT).map((l) => l.object_id);
}

/** The buyer's subscriptions, each as its own stream has it now (a buyer's action shows at once), with its invoices. */
export async function portalSubscriptions(services: Services, organizationId: string, buyer: PortalBuyer, settings: PortalSettings): Promise<PortalSubscription[]> {
  const out: PortalSubscription[] = [];
  for (const id of await linked(services, organizationId, buyer, 'subscription')) {
    const state = await loadSubscription(services, id);
    if (state.status === 'none' || state.status === 'incomplete' || state.status === 'incomplete_expired' || !ownedBy(state, organizationId, buyer)) continue;
    out.push(await portalSubscription(services, state, settings));
  }
  return out;
}

/** Whether the subscription is this buyer's in this organization: its customer is theirs. */
export function ownedBy(state: Active, organizationId: string, buyer: PortalBuyer): boolean {
  return state.sub.organization_id === organizationId && state.sub.customer_id === buyer.id;
}

/** The subscription's coupon as the buyer reads it: "20% off until 30 April 2027", "€5.00 off", or null. */
export function discountWords(state: Active): string | null {
  const d = state.discount;
  if (!d) return null;
  const c = d.coupon;
  const off = c.percent_off !== null ? `${c.percent_off}% off` : `${formatMoney(c.amount_off ?? 0, c.currency ?? state.sub.currency)} off`;
  if (c.duration === 'once') return `${off} your next invoice`;
  return d.end === null ? off : `${off} until ${formatDay(d.end)}`;
}

export async function portalSubscription(services: Services, state: Active, settings: PortalSettings): Promise<PortalSubscription> {
  const ended = isEnded(state.status);
  const { current, switchable } = await subscriptionPlans(services, state, settings.subscription_update_products);
  const plans = settings.subscription_update && !ended && state.status !== 'paused' ? switchable : [];
  const { items: invoices } = await listInvoices(services.readStore, state.sub.organization_id, { subscription: state.sub.id, skip: 0, limit: LIMIT });
  const planName = current ? current.display_name || current.name : state.plan.plan_name;
  const product = planName && planName !== state.sub.offer.name ? `${state.sub.offer.name}: ${planName}` : state.sub.offer.name;
  return {
    id: state.sub.id,
    product,
    status: state.status,
    entitled: state.entitled,
    mode: state.sub.mode,
    amount: state.amount,
    currency: state.sub.currency,
    interval: INTERVAL_WORDS[state.plan.invoice_interval] ?? `every ${state.plan.invoice_interval}`,
    currentPeriodEnd: state.current_period_end,
    cancelAt: ended ? null : state.cancel_at,
    ended,
    card: state.payment_method?.card ?? null,
    discount: discountWords(state),
    plans: plans.map(({ plan: p, own, productName, choice }) => ({
      id: choice,
      label: `${own ? '' : `${productName}, `}${p.display_name || p.name}: ${formatMoney(p.charges.reduce((sum, c) => sum + c.amount, 0), state.sub.currency)} ${INTERVAL_WORDS[p.invoice_interval] ?? ''}`.trim(),
    })),
    invoices: await Promise.all(
      invoices
        .filter((i) => i.status !== 'draft')
        .map(async (i) => ({
          number: i.number,
          date: i.paid_at ?? i.created_at,
          amount: i.total,
          currency: i.currency,
          status: i.status,
          receipt: i.status === 'paid' ? await receiptLinksOf(services.readStore, state.sub.organization_id, i.id) : null,
          pricing: pricingSummary(i.pricing, i.currency),
        })),
    ),
  };
}

/** The buyer's completed checkouts, newest first, with their receipts. */
export async function portalPurchases(services: Services, organizationId: string, buyer: PortalBuyer): Promise<PortalPurchase[]> {
  const ids = await linked(services, organizationId, buyer, 'session');
  const found = await Promise.all(ids.map((id) => services.readStore.get<SessionView>(CHECKOUT_SESSIONS, id)));
  const sessions = found.filter((s): s is SessionView => s !== null && s.organization_id === organizationId && s.status === 'completed');
  return Promise.all(
    sessions.map(async (s) => ({
      id: s.id,
      name: s.offer.name,
      total: s.invoice?.total ?? s.total,
      currency: s.currency,
      date: s.completed_at ?? s.created_at,
      invoiceNumber: s.invoice?.number ?? null,
      receipt: s.invoice ? await receiptLinksOf(services.readStore, organizationId, s.invoice.id) : null,
      pricing: pricingSummary(s.invoice?.pricing ?? s.pricing, s.currency),
    })),
  );
}

/**
 * The buyer's benefits in force (every purchase and subscription): files with links made for this
 * view (15 minutes; the portal makes new ones each visit) and license keys with their standing.
 */
export async function portalBenefits(services: Services, organizationId: string, buyer: PortalBuyer): Promise<DeliveredBenefit[]> {
  return deliverGrants(services, organizationId, await activeGrantsForCustomer(services.readStore, organizationId, buyer.id));
}
