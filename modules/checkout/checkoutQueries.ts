import { parseOfferRef } from '../../platform/lib/index.ts';
import type { Filter, ReadStore } from '../../platform/readStore/index.ts';
import { CHECKOUT_SESSIONS, OFFERS, type OfferDoc, type SessionDoc } from './checkoutProjection.ts';

/**
 * An offer by UUID, Sqid route key or slug, told apart by the reference's shape, so an offer's
 * UUID or route key always finds that offer and never a slug another organization chose.
 * A slug stored before such slugs were refused is still found by its slug, but only while no
 * offer has that UUID or route key: it loses to them, and it never shadows an unpublished one.
 */
export async function findOfferByRef(readStore: ReadStore, ref: string): Promise<OfferDoc | null> {
  const parsed = parseOfferRef(ref);
  if (parsed.kind === 'uuid') {
    const byUuid = await readStore.get<OfferDoc>(OFFERS, parsed.uuid);
    if (byUuid) return byUuid;
  } else if (parsed.kind === 'route_key') {
    const [byKey] = await readStore.find<OfferDoc>(OFFERS, { filter: { number: parsed.number }, limit: 1 });
    if (byKey) return byKey;
  }
  const [bySlug] = await readStore.find<OfferDoc>(OFFERS, { filter: { slug: ref }, limit: 1 });
  return bySlug ?? null;
}

export async function findSession(readStore: ReadStore, id: string): Promise<SessionDoc | null> {
  return readStore.get<SessionDoc>(CHECKOUT_SESSIONS, id);
}

export type SessionStatusFilter = 'open' | 'completed' | 'expired' | 'refunded' | 'partially_refunded';

export async function listSessions(
  readStore: ReadStore,
  organizationId: string,
  options: { status?: SessionStatusFilter; now: number; skip: number; limit: number },
): Promise<{ items: SessionDoc[]; total: number }> {
  const filter: Filter =
    options.status === 'open'
      ? { organization_id: organizationId, open_until: { $gt: options.now } }
      : options.status === 'expired'
        ? { organization_id: organizationId, open_until: { $lte: options.now } }
        : options.status === 'completed'
          ? { organization_id: organizationId, status: 'completed' }
          : options.status === 'refunded' || options.status === 'partially_refunded'
            ? { organization_id: organizationId, 'invoice.refund_status': options.status }
            : { organization_id: organizationId };
  const [items, total] = await Promise.all([
    readStore.find<SessionDoc>(CHECKOUT_SESSIONS, {
      filter,
      sort: [['created_at', -1]],
      skip: options.skip,
      limit: options.limit,
    }),
    readStore.count(CHECKOUT_SESSIONS, filter),
  ]);
  return { items, total };
}
