import type { RecordedEvent } from '../../platform/eventStore/index.ts';
import type { Projection, ProjectionTx } from '../../platform/es/index.ts';
import { BENEFIT_GRANTS, type BenefitData, type BenefitGrantDoc, type BenefitGrantEvent, type ProductBenefitsEvent } from './domain/benefitTypes.ts';

export const BENEFITS = 'benefits';
/** One document per (benefit, file) a file benefit lists, so a download finds the benefits of a file. */
export const BENEFIT_FILES = 'benefit_files';

export type BenefitDoc = BenefitData & { deleted: boolean; updated_at: number };
export type BenefitFileDoc = { id: string; organization_id: string; benefit_id: string; file_id: string };

const fileDocId = (benefitId: string, fileId: string) => `${benefitId}:${fileId}`;
const filesOf = (b: Pick<BenefitData, 'properties'>): string[] => ('files' in b.properties ? b.properties.files : []);

function syncFiles(tx: ProjectionTx, before: BenefitDoc | null, after: BenefitDoc): void {
  const now = after.deleted ? [] : filesOf(after);
  for (const f of before ? filesOf(before) : []) if (!now.includes(f)) tx.delete(BENEFIT_FILES, fileDocId(after.id, f));
  for (const f of now) tx.upsert(BENEFIT_FILES, { id: fileDocId(after.id, f), organization_id: after.organization_id, benefit_id: after.id, file_id: f } satisfies BenefitFileDoc);
}

async function apply(event: ProductBenefitsEvent | BenefitGrantEvent, tx: ProjectionTx): Promise<void> {
  switch (event.type) {
    case 'BenefitCreated': {
      const doc: BenefitDoc = { ...event.data, deleted: false, updated_at: event.data.created_at };
      tx.upsert(BENEFITS, doc);
      syncFiles(tx, null, doc);
      return;
    }
    case 'BenefitUpdated':
    case 'BenefitDeleted': {
      const before = await tx.get<BenefitDoc>(BENEFITS, event.data.id);
      if (!before) return;
      const after: BenefitDoc =
        event.type === 'BenefitUpdated'
          ? { ...before, description: event.data.description, properties: event.data.properties, updated_at: event.data.updated_at }
          : { ...before, deleted: true, updated_at: event.data.deleted_at };
      tx.upsert(BENEFITS, after);
      syncFiles(tx, before, after);
      return;
    }
    case 'BenefitGranted': {
      const d = event.data;
      tx.upsert(BENEFIT_GRANTS, {
        id: d.grant_id,
        organization_id: d.organization_id,
        mode: d.mode,
        benefit_id: d.benefit_id,
        benefit_type: d.benefit_type,
        product_id: d.product_id,
        customer_id: d.customer_id,
        source: d.source,
        status: 'granted',
        granted_at: d.granted_at,
        revoked_at: null,
        revoke_cause: null,
      } satisfies BenefitGrantDoc);
      return;
    }
    case 'BenefitRevoked': {
      const grant = await tx.get<BenefitGrantDoc>(BENEFIT_GRANTS, event.data.grant_id);
      if (grant) tx.upsert(BENEFIT_GRANTS, { ...grant, status: 'revoked', revoked_at: event.data.revoked_at, revoke_cause: event.data.cause } satisfies BenefitGrantDoc);
      return;
    }
  }
}

/** Products' benefits (and the files they list) and the grants of benefits to customers. */
export const benefitProjection: Projection = {
  name: 'benefits',
  collections: [BENEFITS, BENEFIT_FILES, BENEFIT_GRANTS],
  indexes: [
    { collection: BENEFITS, fields: ['organization_id', 'deleted', 'created_at'] },
    { collection: BENEFITS, fields: ['organization_id', 'product_id', 'deleted'] },
    { collection: BENEFIT_FILES, fields: ['organization_id', 'file_id'] },
    { collection: BENEFIT_GRANTS, fields: ['organization_id', 'customer_id', 'status'] },
    { collection: BENEFIT_GRANTS, fields: ['organization_id', 'benefit_id'] },
    { collection: BENEFIT_GRANTS, fields: ['organization_id', 'source.type', 'source.id'] },
    { collection: BENEFIT_GRANTS, fields: ['organization_id', 'granted_at'] },
  ],
  eventTypes: ['BenefitCreated', 'BenefitUpdated', 'BenefitDeleted', 'BenefitGranted', 'BenefitRevoked'],
  apply: (recorded: RecordedEvent, tx) => apply(recorded as unknown as ProductBenefitsEvent | BenefitGrantEvent, tx),
};
