import type { SealedStripeCredentials, StripeCredentialRecords } from './stripeCredentialRecords.ts';
import type { ReadStore } from '../../platform/readStore/index.ts';

/**
 * Sealed Stripe credentials, in the read store beside the read models but owned by no projection
 * (as the OAuth server's oauth_records): `projections rebuild` drops only the collections a
 * projection lists, so it never drops this one, and `events copy` does not carry it.
 */
export const STRIPE_CREDENTIALS = 'stripe_credentials';

type RecordDoc = SealedStripeCredentials & { id: string };

/** A record's id holds both: another organization's id with a known credentials id finds nothing. */
const idOf = (organizationId: string, credentialsId: string) => `${organizationId}:${credentialsId}`;

export function readStoreStripeCredentials(readStore: ReadStore): StripeCredentialRecords {
  return {
    async put(record) {
      await readStore.upsert(STRIPE_CREDENTIALS, { id: idOf(record.organization_id, record.credentials_id), ...record });
    },
    async get(organizationId, credentialsId) {
      const doc = await readStore.get<RecordDoc>(STRIPE_CREDENTIALS, idOf(organizationId, credentialsId));
      if (!doc || doc.organization_id !== organizationId || doc.credentials_id !== credentialsId) return null;
      const { id: _id, ...record } = doc;
      return record;
    },
    async delete(organizationId, credentialsId) {
      await readStore.delete(STRIPE_CREDENTIALS, idOf(organizationId, credentialsId));
    },
  };
}
