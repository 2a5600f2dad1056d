import { decodeRouteKey } from '../../commands/routeKeys.ts';
import type { Filter, ReadStore } from '../readStore.ts';
import { CHECKOUT_SESSIONS, OFFERS, type OfferDoc, type SessionDoc } from './checkoutProjection.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An offer by slug, Sqid route key or UUID, in that order (a slug may look like a route key). */
export async function findOfferByRef(readStore: ReadStore, ref: string): Promise<OfferDoc | null> {
  const [bySlug] = await readStore.find<OfferDoc>(OFFERS, { filter: { slug: ref }, limit: 1 });
  if (bySlug) return bySlug;
  if (UUID.test(ref)) return readStore.get<OfferDoc>(OFFERS, ref.toLowerCase());
  const number = decodeRouteKey(ref);
  if (number === null) return null;
  const [byKey] = await readStore.find<OfferDoc>(OFFERS, { filter: { number }, limit: 1 });
  return byKey ?? null;
}

export async function findSession(readStore: ReadStore, id: string): Promise<SessionDoc | null> {
  return readStore.get<SessionDoc>(CHECKOUT_SESSIONS, id);
}

export type SessionStatusFilter = 'open' | 'completed' | 'expired';

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
