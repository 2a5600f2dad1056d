import { randomBytes } from 'node:crypto';
import { Binary, MongoClient } from 'mongodb';
import { MONGO_CLIENT_OPTIONS, isDuplicateKey } from '../../readStore/mongodb/mongoMapping.ts';
import type { KeyLookup, PersonalDataVault, VaultKey } from '../personalDataVault.ts';

const COLLECTION = '_personal_data_keys';
const ERASURES = '_personal_data_erasures';

type KeyDoc = {
  _id: string;
  organization_id: string;
  subject: string;
  key: Binary | null;
  /** True until destroyed: the unique index covers live keys only. */
  live: boolean;
  created_at: Date;
  destroyed_at: Date | null;
  redacted_as: string | null;
};

/**
 * The vault of the production profile, in the read store's MongoDB database (EventStoreDB cannot
 * delete one event's bytes, so the keys live where a document can be rewritten). Back it up with
 * the database: events restored without it read as erased.
 */
export async function openMongoPersonalDataVault(url: string, dbName: string): Promise<PersonalDataVault> {
  const client = new MongoClient(url, MONGO_CLIENT_OPTIONS);
  await client.connect();
  const db = client.db(dbName);
  const keys = db.collection<KeyDoc>(COLLECTION);
  const erasures = db.collection<{ _id: string; count: number }>(ERASURES);
  await keys.createIndex({ organization_id: 1, subject: 1 }, { unique: true, partialFilterExpression: { live: true }, name: 'live_subject' });
  const live = (organizationId: string, subject: string) => keys.findOne({ organization_id: organizationId, subject, live: true });
  const toKey = (doc: KeyDoc): VaultKey => ({ id: doc._id, key: Buffer.from(doc.key!.buffer) });
  return {
    async keyFor(organizationId, subject) {
      const existing = await live(organizationId, subject);
      if (existing?.key) return toKey(existing);
      const doc: KeyDoc = {
        _id: randomBytes(12).toString('base64url'),
        organization_id: organizationId,
        subject,
        key: new Binary(randomBytes(32)),
        live: true,
        created_at: new Date(),
        destroyed_at: null,
        redacted_as: null,
      };
      try {
        await keys.insertOne(doc);
        return toKey(doc);
      } catch (error) {
        // Another process made the subject's key first: use theirs.
        if (!isDuplicateKey(error)) throw error;
        return toKey((await live(organizationId, subject))!);
      }
    },
    async destroy(organizationId, subject, redactedAs) {
      const result = await keys.updateMany(
        { organization_id: organizationId, subject, live: true },
        { $set: { key: null, live: false, destroyed_at: new Date(), redacted_as: redactedAs } },
      );
      if (result.modifiedCount > 0) await erasures.updateOne({ _id: 'count' }, { $inc: { count: 1 } }, { upsert: true });
      return result.modifiedCount;
    },
    async erasures() {
      return (await erasures.findOne({ _id: 'count' }))?.count ?? 0;
    },
    async lookup(keyId): Promise<KeyLookup | null> {
      const doc = await keys.findOne({ _id: keyId });
      if (!doc) return null;
      if (!doc.live || !doc.key) return { status: 'destroyed', redactedAs: doc.redacted_as };
      return { status: 'live', key: Buffer.from(doc.key.buffer) };
    },
    async purgeFreedPages() {},
    close: () => client.close(),
  };
}
