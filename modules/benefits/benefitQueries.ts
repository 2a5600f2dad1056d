import type { Filter, ReadStore } from '../../platform/readStore/index.ts';
import { BENEFIT_FILES, BENEFITS, type BenefitDoc, type BenefitFileDoc } from './benefitProjection.ts';
import { BENEFIT_GRANTS, type BenefitGrantDoc, type GrantSource } from './domain/benefitTypes.ts';
import type { BenefitGrantObject, BenefitObject } from './http/benefitSchemas.ts';

export function presentBenefit(doc: BenefitDoc): BenefitObject {
  return { id: doc.id, object: 'benefit', type: doc.type, description: doc.description, product_id: doc.product_id, properties: doc.properties, created: doc.created_at };
}

export function presentGrant(doc: BenefitGrantDoc): BenefitGrantObject {
  return {
    id: doc.id,
    object: 'benefit_grant',
    benefit_id: doc.benefit_id,
    benefit_type: doc.benefit_type,
    product_id: doc.product_id,
    customer_id: doc.customer_id,
    source: doc.source,
    status: doc.status,
    granted_at: doc.granted_at,
    revoked_at: doc.revoked_at,
    revoke_cause: doc.revoke_cause,
  };
}

/** The organization's benefit, not deleted; null for another's, a deleted or an unknown one. */
export async function findBenefit(readStore: ReadStore, organizationId: string, benefitId: string): Promise<BenefitDoc | null> {
  const doc = await readStore.get<BenefitDoc>(BENEFITS, benefitId);
  return doc && doc.organization_id === organizationId && !doc.deleted ? doc : null;
}

export async function listBenefits(
  readStore: ReadStore,
  organizationId: string,
  q: { product?: string | undefined; type?: 'file' | 'license_key' | undefined; skip: number; limit: number },
): Promise<{ items: BenefitDoc[]; total: number }> {
  const filter: Filter = { organization_id: organizationId, deleted: false };
  if (q.product !== undefined) filter.product_id = q.product;
  if (q.type !== undefined) filter.type = q.type;
  const [items, total] = await Promise.all([
    readStore.find<BenefitDoc>(BENEFITS, { filter, sort: [['created_at', -1], ['id', -1]], skip: q.skip, limit: q.limit }),
    readStore.count(BENEFITS, filter),
  ]);
  return { items, total };
}

export async function listGrants(
  readStore: ReadStore,
  organizationId: string,
  q: { customer?: string | undefined; benefit?: string | undefined; status?: 'granted' | 'revoked' | undefined; skip: number; limit: number },
): Promise<{ items: BenefitGrantDoc[]; total: number }> {
  const filter: Filter = { organization_id: organizationId };
  if (q.customer !== undefined) filter.customer_id = q.customer;
  if (q.benefit !== undefined) filter.benefit_id = q.benefit;
  if (q.status !== undefined) filter.status = q.status;
  const [items, total] = await Promise.all([
    readStore.find<BenefitGrantDoc>(BENEFIT_GRANTS, { filter, sort: [['granted_at', -1], ['id', -1]], skip: q.skip, limit: q.limit }),
    readStore.count(BENEFIT_GRANTS, filter),
  ]);
  return { items, total };
}

/** The customer's grants in force, oldest first. */
export function activeGrantsForCustomer(readStore: ReadStore, organizationId: string, customerId: string): Promise<BenefitGrantDoc[]> {
  return readStore.find<BenefitGrantDoc>(BENEFIT_GRANTS, { filter: { organization_id: organizationId, customer_id: customerId, status: 'granted' }, sort: [['granted_at', 1], ['id', 1]] });
}

/** The grants a checkout session or a subscription made, revoked ones included, oldest first. */
export function grantsForSource(readStore: ReadStore, organizationId: string, source: GrantSource): Promise<BenefitGrantDoc[]> {
  return readStore.find<BenefitGrantDoc>(BENEFIT_GRANTS, {
    filter: { organization_id: organizationId, 'source.type': source.type, 'source.id': source.id },
    sort: [['granted_at', 1], ['id', 1]],
  });
}

/** A grant in force to this customer of a benefit that lists the file now; null when there is none. */
export async function activeFileGrant(readStore: ReadStore, q: { organizationId: string; customerId: string; fileId: string }): Promise<BenefitGrantDoc | null> {
  const listing = await readStore.find<BenefitFileDoc>(BENEFIT_FILES, { filter: { organization_id: q.organizationId, file_id: q.fileId } });
  if (listing.length === 0) return null;
  const [grant] = await readStore.find<BenefitGrantDoc>(BENEFIT_GRANTS, {
    filter: { organization_id: q.organizationId, customer_id: q.customerId, status: 'granted', benefit_id: { $in: listing.map((l) => l.benefit_id) } },
    sort: [['granted_at', 1], ['id', 1]],
    limit: 1,
  });
  return grant ?? null;
}

/** The organization's benefits of these ids, deleted ones included (a grant may outlive its benefit), in the order asked. */
export async function benefitsByIds(readStore: ReadStore, organizationId: string, ids: string[]): Promise<BenefitObject[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const docs = await readStore.find<BenefitDoc>(BENEFITS, { filter: { organization_id: organizationId, id: { $in: unique } } });
  const byId = new Map(docs.map((d) => [d.id, d]));
  return unique.flatMap((id) => {
    const d = byId.get(id);
    return d ? [presentBenefit(d)] : [];
  });
}
