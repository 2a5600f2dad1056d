import { randomBytes } from 'node:crypto';
import { openDatabase } from '../../sqlite/openDatabase.ts';
import type { KeyLookup, PersonalDataVault, VaultKey } from '../personalDataVault.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS personal_data_keys (
  id TEXT PRIMARY KEY,
  organization_id TEXT NOT NULL,
  subject TEXT NOT NULL,
  key BLOB,
  created_at INTEGER NOT NULL,
  destroyed_at INTEGER,
  redacted_as TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS personal_data_keys_live ON personal_data_keys (organization_id, subject) WHERE destroyed_at IS NULL;
CREATE TABLE IF NOT EXISTS personal_data_erasures (id INTEGER PRIMARY KEY CHECK (id = 1), count INTEGER NOT NULL);`;

type Row = { id: string; key: Buffer | null; destroyed_at: number | null; redacted_as: string | null };

/**
 * The vault in the embedded profile's database file, beside the events: one backup holds both,
 * and restoring an older backup brings back only keys that backup's events need. The file is
 * opened with secure_delete, so a destroyed key's bytes are overwritten, not left in a free page.
 */
export function openSqlitePersonalDataVault(options: { file: string; busyTimeoutMs?: number }): PersonalDataVault {
  // NORMAL: a new key is not synced on its own. Every event sealed with it is appended after it to
  // the same WAL, whose sync (synchronous=FULL on the event store's connection) makes the key
  // durable with the event; a key lost with no event naming it is lost to no one.
  const db = openDatabase(options.file, { synchronous: 'NORMAL', busyTimeoutMs: options.busyTimeoutMs });
  db.exec(SCHEMA);
  const liveStmt = db.prepare<[string, string], Row>('SELECT id, key, destroyed_at, redacted_as FROM personal_data_keys WHERE organization_id = ? AND subject = ? AND destroyed_at IS NULL');
  const insertStmt = db.prepare('INSERT OR IGNORE INTO personal_data_keys (id, organization_id, subject, key, created_at) VALUES (?, ?, ?, ?, ?)');
  const destroyStmt = db.prepare("UPDATE personal_data_keys SET key = NULL, destroyed_at = ?, redacted_as = ? WHERE organization_id = ? AND subject = ? AND destroyed_at IS NULL");
  const countStmt = db.prepare('INSERT INTO personal_data_erasures (id, count) VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET count = count + 1');
  const erasuresStmt = db.prepare<[], { count: number }>('SELECT count FROM personal_data_erasures WHERE id = 1');
  const destroy = db.transaction((organizationId: string, subject: string, redactedAs: string | null) => {
    const changes = destroyStmt.run(Math.floor(Date.now() / 1000), redactedAs, organizationId, subject).changes;
    if (changes > 0) countStmt.run();
    return changes;
  });
  const byIdStmt = db.prepare<[string], Row>('SELECT id, key, destroyed_at, redacted_as FROM personal_data_keys WHERE id = ?');
  return {
    async keyFor(organizationId, subject): Promise<VaultKey> {
      const existing = liveStmt.get(organizationId, subject);
      if (existing?.key) return { id: existing.id, key: existing.key };
      // Another process may make one at the same moment: the unique index keeps theirs.
      insertStmt.run(randomBytes(12).toString('base64url'), organizationId, subject, randomBytes(32), Math.floor(Date.now() / 1000));
      const row = liveStmt.get(organizationId, subject)!;
      return { id: row.id, key: row.key! };
    },
    async destroy(organizationId, subject, redactedAs) {
      return destroy(organizationId, subject, redactedAs);
    },
    async lookup(keyId): Promise<KeyLookup | null> {
      const row = byIdStmt.get(keyId);
      if (!row) return null;
      if (row.destroyed_at !== null || !row.key) return { status: 'destroyed', redactedAs: row.redacted_as };
      return { status: 'live', key: row.key };
    },
    async erasures() {
      return erasuresStmt.get()?.count ?? 0;
    },
    async purgeFreedPages() {
      // The WAL still holds the pages as they were before the erasure: copied into the file (where
      // secure_delete zeroed what was freed), then cut to nothing. A reader in the middle of a
      // transaction keeps the frames it reads; the next erasure or checkpoint takes them.
      db.pragma('wal_checkpoint(TRUNCATE)');
    },
    async close() {
      db.close();
    },
  };
}
