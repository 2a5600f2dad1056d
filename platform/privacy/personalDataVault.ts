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
  /** A count every destroy that destroyed something moves, in any process: caches compare it. */
  erasures(): Promise<number>;
  /**
   * Caches only: a number that changes whenever this cache forgets its keys (an erasure here or,
   * as last checked, elsewhere). What was opened under another generation must be opened again.
   */
  generation?(): Promise<number>;
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
 * Remembers keys in memory so reading the log costs no query per event. Every `checkMs` at most,
 * it asks the vault whether any process destroyed a key since, and forgets everything if so: this
 * process's own erasure is seen at once, another's (the subscriber thread, a worker) within that
 * time.
 */
export function cachedVault(vault: PersonalDataVault, options: { checkMs?: number; now?: () => number } = {}): PersonalDataVault {
  const checkMs = options.checkMs ?? 250;
  const now = options.now ?? Date.now;
  const bySubject = new Map<string, VaultKey>();
  const byId = new Map<string, KeyLookup>();
  let seen: number | null = null;
  let checkedAt = -Infinity;
  let checking: Promise<void> | null = null;
  let generation = 0;
  const forget = () => {
    bySubject.clear();
    byId.clear();
    generation += 1;
  };
  async function current(): Promise<void> {
    if (now() - checkedAt < checkMs) return;
    checking ??= vault
      .erasures()
      .then((count) => {
        if (seen !== null && count !== seen) forget();
        seen = count;
        checkedAt = now();
      })
      .finally(() => {
        checking = null;
      });
    await checking;
  }
  return {
    async keyFor(organizationId, subject) {
      await current();
      const name = `${organizationId}|${subject}`;
      const hit = bySubject.get(name);
      if (hit) return hit;
      const value = await vault.keyFor(organizationId, subject);
      bySubject.set(name, value);
      byId.set(value.id, { status: 'live', key: value.key });
      return value;
    },
    async destroy(organizationId, subject, redactedAs) {
      const destroyed = await vault.destroy(organizationId, subject, redactedAs);
      forget();
      return destroyed;
    },
    async lookup(keyId) {
      await current();
      const hit = byId.get(keyId);
      if (hit) return hit;
      const value = await vault.lookup(keyId);
      if (value) byId.set(keyId, value);
      return value;
    },
    erasures: () => vault.erasures(),
    async generation() {
      await current();
      return generation;
    },
    purgeFreedPages: () => vault.purgeFreedPages(),
    close: () => vault.close(),
  };
}
