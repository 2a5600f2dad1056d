import { archiveOffer, publishOffer } from '../../modules/checkout/offerCommands.ts';
import { sessionHistory, stateAt, type HistoryEntry } from '../../modules/checkout/sessionHistory.ts';
import type { SessionView } from '../../modules/checkout/domain/sessionView.ts';
import { notFound } from '../../platform/domain/domainError.ts';
import { formatMoney } from '../../platform/domain/moneyFormat.ts';
import { findOfferByRef } from '../../modules/checkout/checkoutQueries.ts';
import { CliUsageError, isoSeconds as iso, requireArg, table, type CliCommand } from '../command.ts';

type OfferLifecycleResult = { id: string; slug: string; uuid: string; organization_id: string; status: string; changed: boolean };

const offerLifecycle = (verb: 'publish' | 'archive'): CliCommand => ({
  path: ['offer', verb],
  usage: `offer ${verb} ID`,
  maxArgs: 1,
  description:
    verb === 'publish'
      ? 'Publish an offer so the public checkout routes serve it. ID is its slug, route key or UUID.'
      : 'Archive an offer for good (the public routes answer 404). ID is its slug, route key or UUID.',
  async run(ctx): Promise<OfferLifecycleResult> {
    const ref = requireArg(ctx.args, `offer ${verb} needs an offer ID: its slug, route key or UUID`);
    await ctx.catchUp();
    const offer = await findOfferByRef(ctx.services.readStore, ref);
    if (!offer) throw notFound('Offer');
    const act = verb === 'publish' ? publishOffer : archiveOffer;
    const result = await act(ctx.commandContext(offer.organization_id), offer.uuid);
    return { id: offer.route_key, slug: offer.slug, uuid: offer.uuid, organization_id: offer.organization_id, status: result.status, changed: result.changed };
  },
  format: (r: OfferLifecycleResult) =>
    r.changed ? `offer ${r.slug} (${r.id}) ${r.status}` : `offer ${r.slug} (${r.id}) was already ${r.status}`,
});

export const offerPublishCommand = offerLifecycle('publish');
export const offerArchiveCommand = offerLifecycle('archive');

type ReplayResult = { session_id: string; at: number; state: SessionView | null; data: HistoryEntry[] };

const actorText = (actor: HistoryEntry['actor']) =>
  actor.type === 'api_key' ? `api_key ${actor.id}` : actor.type === 'system' ? `system ${actor.name}` : actor.type === 'public' ? `public ${actor.ip ?? ''}`.trim() : actor.type;
/** Minor units in the currency's own decimals (JPY has none, BHD three): the service's one money format. */
export const money = (amount: number, currency: string): string => formatMoney(amount, currency, 'en');

/** The buyer's email as the invoice bills it (the buyer may correct it at payment), else as the session has it. */
const buyerEmail = (state: SessionView): string | null => state.invoice?.customer?.email ?? state.customer?.email ?? null;

export const replaySessionCommand: CliCommand = {
  path: ['replay', 'session'],
  usage: 'replay session ID [--at UNIX]',
  maxArgs: 1,
  description: 'Audit replay of a checkout session: each event of it and its invoice with the state after it (--at: as of that time).',
  options: { at: 'string' },
  async run(ctx): Promise<ReplayResult> {
    const id = requireArg(ctx.args, 'replay session needs a session ID (cs_…)');
    let at = Math.floor(ctx.services.clock() / 1000);
    if (typeof ctx.options.at === 'string') {
      if (!/^\d{1,12}$/.test(ctx.options.at)) throw new CliUsageError('--at takes Unix seconds, e.g. --at 1767225600');
      at = Number(ctx.options.at);
    }
    const history = await sessionHistory(ctx.services.store, id);
    if (history.entries.length === 0) throw notFound('Checkout session');
    return { session_id: id, at, state: stateAt(history, at), data: history.entries.filter((e) => e.occurred_at <= at) };
  },
  format(r: ReplayResult) {
    const rows = r.data.map((e) => [
      String(e.revision),
      iso(e.occurred_at),
      e.type,
      actorText(e.actor),
      e.state.status,
      e.state.invoice ? `#${e.state.invoice.number} ${e.state.invoice.status}` : '-',
      money(e.state.total, e.state.currency),
      buyerEmail(e.state) ?? '-',
      // The decline on the event that records it: card_declined (insufficient_funds), as the provider said.
      e.type === 'CheckoutSessionPaymentDeclined' && e.state.last_decline
        ? `${e.state.last_decline.code}${e.state.last_decline.decline_code ? ` (${e.state.last_decline.decline_code})` : ''}`
        : '',
    ]);
    const header = ['#', 'occurred_at', 'event', 'actor', 'status', 'invoice', 'total', 'email', 'decline'];
    const state = r.state
      ? `state at ${iso(r.at)}: ${r.state.status}, ${money(r.state.total, r.state.currency)}, invoice ${r.state.invoice ? `#${r.state.invoice.number} ${r.state.invoice.status}` : 'none'}, buyer ${buyerEmail(r.state) ?? 'unknown'}`
      : `state at ${iso(r.at)}: the session did not exist yet`;
    return [`checkout session ${r.session_id}`, rows.length === 0 ? header.join('  ') : table(header, rows), '', state].join('\n');
  },
};
