import { createHash } from 'node:crypto';

/**
 * Keys that seal a person's fields in the event log (crypto-shredding): one live 256-bit key per
 * person of an organization, destroyed on a GDPR erasure so what it sealed can no longer be read.
 * A sealed value names its key by id, not by person: after an erasure the same email gets a new
 * key, and the values sealed under the destroyed one keep opening as the placeholder.
 */
export type VaultKey = { id: string; key: Buffer };

export type KeyLookup =
  | { status: 'live'; key: Buffer }
  /** `redactedAs`: the customer the erasure was for (placeholders name it), null if unknown. */
  | { status: 'destroyed'; redactedAs: string | null };

export interface PersonalDataVault {
  /** The subject's live key, made (random, 32 bytes) on first use; two callers at once get the same one. */
  keyFor(organizationId: string, subject: string): Promise<VaultKey>;
  /**
   * Destroys every key of the subject (the key bytes are erased, the record stays as a tombstone
   * naming the erasure's customer). Returns how many keys it destroyed; 0 when already done.
   */
  destroy(organizationId: string, subject: string, redactedAs: string | null): Promise<number>;
  /** The key of a sealed value by id; null when the vault never had it. */
  lookup(keyId: string): Promise<KeyLookup | null>;
  /**
   * Makes what an erasure destroyed or rewrote leave the store's files, where it can: SQLite
   * checkpoints its WAL and truncates it (freed pages are zeroed by secure_delete). Nothing to do
   * on MongoDB, whose own storage and backups are the operator's.
   */
  purgeFreedPages(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Whose a personal value is: the organization and the person's normalized email (else their
 * signed user id), hashed as the customer key claims are. Without the mode: a checkout's later
 * events and a promo enrolment do not say it, and an erasure is of the person.
 */
export function personalSubject(organizationId: string, person: { email?: string | null; userId?: string | null }): string | null {
  const email = person.email?.trim().toLowerCase();
  const key = email ? `email:${email}` : person.userId ? `user:${person.userId}` : null;
  return key === null ? null : createHash('sha256').update(`${organizationId}|${key}`).digest('hex');
}

/**
 * Remembers keys in memory so reading the log costs no query per event. Another process's
 * erasure is seen once an entry is older than `ttlMs`; this process's own at once.
 */
export function cachedVault(vault: PersonalDataVault, options: { ttlMs?: number; now?: () => number } = {}): PersonalDataVault {
  const ttlMs = options.ttlMs ?? 10_000;
  const now = options.now ?? Date.now;
  const bySubject = new Map<string, { value: VaultKey; at: number }>();
  const byId = new Map<string, { value: KeyLookup; at: number }>();
  const fresh = (at: number) => now() - at < ttlMs;
  return {
    async keyFor(organizationId, subject) {
      const name = `${organizationId}|${subject}`;
      const hit = bySubject.get(name);
      if (hit && fresh(hit.at)) return hit.value;
      const value = await vault.keyFor(organizationId, subject);
      bySubject.set(name, { value, at: now() });
      byId.set(value.id, { value: { status: 'live', key: value.key }, at: now() });
      return value;
    },
    async destroy(organizationId, subject, redactedAs) {
      const name = `${organizationId}|${subject}`;
      const hit = bySubject.get(name);
      bySubject.delete(name);
      if (hit) byId.delete(hit.value.id);
      const destroyed = await vault.destroy(organizationId, subject, redactedAs);
      // Keys of the subject this process only opened (not sealed with) are dropped too.
      byId.clear();
      return destroyed;
    },
    async lookup(keyId) {
      const hit = byId.get(keyId);
      // A destroyed key never comes back: no need to ask again.
      if (hit && (hit.value.status === 'destroyed' || fresh(hit.at))) return hit.value;
      const value = await vault.lookup(keyId);
      if (value) byId.set(keyId, { value, at: now() });
      return value;
    },
    purgeFreedPages: () => vault.purgeFreedPages(),
    close: () => vault.close(),
  };
}
