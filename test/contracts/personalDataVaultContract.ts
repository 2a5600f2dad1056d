import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { PersonalDataVault } from '../../platform/privacy/index.ts';
import { useStoreFixtures, type StoreFixture } from './storeFixtures.ts';

/** The same tests against any PersonalDataVault adapter; connections of one fixture stand for processes. */
export function personalDataVaultContract(name: string, factory: () => Promise<StoreFixture<PersonalDataVault>>): void {
  describe(`PersonalDataVault contract: ${name}`, () => {
    const { connections, open } = useStoreFixtures(factory);
    const org = () => `org_${randomUUID().slice(0, 8)}`;

    it('gives a subject one random 256-bit key, the same on every call and connection', async () => {
      const [a, b] = await connections(2);
      const o = org();
      const first = await a!.keyFor(o, 'subject-1');
      expect(first.key).toHaveLength(32);
      expect(first.id).toMatch(/^[A-Za-z0-9_-]{8,}$/);
      expect(await a!.keyFor(o, 'subject-1')).toEqual(first);
      expect(await b!.keyFor(o, 'subject-1')).toEqual(first);
      expect(await b!.lookup(first.id)).toEqual({ status: 'live', key: first.key });
      const other = await a!.keyFor(o, 'subject-2');
      const elsewhere = await a!.keyFor(org(), 'subject-1');
      expect(new Set([first.id, other.id, elsewhere.id]).size).toBe(3);
      expect(other.key.equals(first.key) || elsewhere.key.equals(first.key)).toBe(false);
    });

    it('agrees on one key when connections ask for a new subject at once', async () => {
      const stores = await connections(3);
      const o = org();
      const keys = await Promise.all(stores.flatMap((s) => [s.keyFor(o, 'race'), s.keyFor(o, 'race')]));
      expect(new Set(keys.map((k) => k.id)).size).toBe(1);
    });

    it('destroys a subject’s key for good: lookups say destroyed and for whom, the next key is new', async () => {
      const [a, b] = await connections(2);
      const o = org();
      const before = await a!.keyFor(o, 'gone');
      const kept = await a!.keyFor(o, 'kept');
      const erasures = await b!.erasures();
      expect(await a!.destroy(o, 'gone', 'cus_123')).toBe(1);
      // Other processes' caches learn of it by this count.
      expect(await b!.erasures()).not.toBe(erasures);
      const moved = await b!.erasures();
      expect(await b!.lookup(before.id)).toEqual({ status: 'destroyed', redactedAs: 'cus_123' });
      expect(await a!.destroy(o, 'gone', 'cus_123')).toBe(0);
      expect(await b!.erasures()).toBe(moved);
      expect(await b!.lookup(kept.id)).toEqual({ status: 'live', key: kept.key });
      // The same person buying again after the erasure gets a key of their own.
      const after = await b!.keyFor(o, 'gone');
      expect(after.id).not.toBe(before.id);
      expect(await a!.lookup(after.id)).toEqual({ status: 'live', key: after.key });
      expect(await a!.lookup(before.id)).toMatchObject({ status: 'destroyed' });
      await a!.purgeFreedPages();
    });

    it('answers null for a key it never had, and destroys nothing of another organization', async () => {
      const vault = await open();
      expect(await vault.lookup('never-made-key')).toBeNull();
      const o = org();
      const key = await vault.keyFor(o, 'mine');
      expect(await vault.destroy(org(), 'mine', null)).toBe(0);
      expect(await vault.lookup(key.id)).toEqual({ status: 'live', key: key.key });
    });
  });
}
