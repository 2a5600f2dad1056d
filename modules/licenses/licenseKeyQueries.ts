import type { Filter, ReadStore } from '../../platform/readStore/index.ts';
import type { Services } from '../../platform/runtime/index.ts';
import type { LicenseStatus } from './domain/licenseKey.ts';
import type { LicenseKey, LicenseKeyView } from './http/licenseSchemas.ts';
import { licenseKeyBox, licenseKeyIdFor } from './licenseKeyCodec.ts';
import { LICENSE_KEYS, type LicenseKeyDoc } from './licenseKeyProjection.ts';

export function docStatus(doc: LicenseKeyDoc, now: number): LicenseStatus {
  if (doc.disabled) return 'disabled';
  if (doc.expires_at !== null && now >= doc.expires_at) return 'expired';
  return doc.activation_usage > 0 ? 'active' : 'inactive';
}

export function presentLicenseKey(doc: LicenseKeyDoc, now: number, key?: string): LicenseKey {
  return {
    id: doc.id,
    object: 'license_key',
    livemode: doc.mode === 'live',
    grant_id: doc.grant_id,
    benefit_id: doc.benefit_id,
    product_id: doc.product_id,
    customer_id: doc.customer_id,
    display_key: doc.display_key,
    ...(key !== undefined ? { key } : {}),
    status: docStatus(doc, now),
    disabled_by_seller: doc.disabled_by_seller,
    revoked: doc.revoked,
    activation_limit: doc.activation_limit,
    activation_usage: doc.activation_usage,
    activations: doc.activations,
    expires_at: doc.expires_at,
    created: doc.created,
  };
}

export async function findLicenseKey(readStore: ReadStore, organizationId: string, id: string): Promise<LicenseKeyDoc | null> {
  const doc = await readStore.get<LicenseKeyDoc>(LICENSE_KEYS, id);
  return doc && doc.organization_id === organizationId ? doc : null;
}

/** The status filter as ranges over stored fields (a status depends on the time for expiry). */
function statusFilter(status: LicenseStatus, now: number): Filter {
  switch (status) {
    case 'disabled':
      return { disabled: true };
    case 'expired':
      return { disabled: false, expires_sort: { $lte: now } };
    case 'active':
      return { disabled: false, expires_sort: { $gt: now }, activation_usage: { $gt: 0 } };
    case 'inactive':
      return { disabled: false, expires_sort: { $gt: now }, activation_usage: 0 };
  }
}

export async function listLicenseKeys(
  readStore: ReadStore,
  organizationId: string,
  q: { benefit?: string | undefined; customer?: string | undefined; status?: LicenseStatus | undefined; now: number; skip: number; limit: number },
): Promise<{ items: LicenseKeyDoc[]; total: number }> {
  const filter: Filter = { organization_id: organizationId, ...(q.status ? statusFilter(q.status, q.now) : {}) };
  if (q.benefit !== undefined) filter.benefit_id = q.benefit;
  if (q.customer !== undefined) filter.customer_id = q.customer;
  const [items, total] = await Promise.all([
    readStore.find<LicenseKeyDoc>(LICENSE_KEYS, { filter, sort: [['created', -1], ['id', -1]], skip: q.skip, limit: q.limit }),
    readStore.count(LICENSE_KEYS, filter),
  ]);
  return { items, total };
}

export const openLicenseKey = (services: Pick<Services, 'secrets'>, doc: Pick<LicenseKeyDoc, 'sealed_key'>) => licenseKeyBox(services.secrets.data).open(doc.sealed_key);

/**
 * The keys of these grants, in plain, for the buyer's pages (thank-you page, receipt, portal):
 * one per license_key grant whose key is in the read model; other grants have none.
 */
export async function licenseKeysForGrants(services: Pick<Services, 'readStore' | 'secrets' | 'clock'>, organizationId: string, grantIds: string[]): Promise<LicenseKeyView[]> {
  const now = Math.floor(services.clock() / 1000);
  const views: LicenseKeyView[] = [];
  for (const grantId of grantIds) {
    const doc = await findLicenseKey(services.readStore, organizationId, licenseKeyIdFor(grantId));
    if (!doc) continue;
    views.push({
      id: doc.id,
      grant_id: doc.grant_id,
      key: openLicenseKey(services, doc),
      status: docStatus(doc, now),
      activation_limit: doc.activation_limit,
      activation_usage: doc.activation_usage,
      expires_at: doc.expires_at,
    });
  }
  return views;
}
