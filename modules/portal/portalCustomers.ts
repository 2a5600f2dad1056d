import type { Services } from '../../platform/runtime/index.ts';
import { CUSTOMERS, type CustomerDoc } from '../customers/index.ts';

/** A buyer as the portal knows them: the organization's customer (cus_…), while not redacted. */
export type PortalBuyer = { id: string; email: string; name: string | null; mode: 'test' | 'live' };

const present = (doc: CustomerDoc): PortalBuyer | null =>
  doc.redacted_at === null && doc.email ? { id: doc.id, email: doc.email, name: doc.name, mode: doc.mode } : null;

/**
 * The customer an address signs in as, when it names several of an organization (test and live apart,
 * as Stripe's; a signed identity sharing a guest's address): live before test, then the latest buyer.
 */
export async function buyerByEmail(services: Services, organizationId: string, email: string): Promise<PortalBuyer | null> {
  const docs = await services.readStore.find<CustomerDoc & { [k: string]: unknown }>(CUSTOMERS, { filter: { organization_id: organizationId, email_key: email.trim().toLowerCase() }, limit: 20 });
  const ranked = docs
    .filter((d) => d.redacted_at === null)
    .sort((a, b) => (a.mode === b.mode ? (b.last_purchase_at ?? b.created_at) - (a.last_purchase_at ?? a.created_at) : a.mode === 'live' ? -1 : 1));
  return ranked[0] ? present(ranked[0]) : null;
}

/** The customer of this organization with this id, or null (unknown, another organization's, redacted). */
export async function buyerById(services: Services, organizationId: string, id: string): Promise<PortalBuyer | null> {
  const doc = await services.readStore.get<CustomerDoc>(CUSTOMERS, id);
  if (!doc || doc.organization_id !== organizationId) return null;
  return present(doc);
}
