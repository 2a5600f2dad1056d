import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openSqlitePersonalDataVault } from '../../platform/privacy/sqlite/sqliteVault.ts';
import { personalDataVaultContract } from './personalDataVaultContract.ts';
import { tempSqliteFile } from './storeFixtures.ts';

personalDataVaultContract('SQLite', async () => {
  const { file, dispose } = tempSqliteFile();
  return { connect: async () => openSqlitePersonalDataVault({ file }), dispose };
});

describe('SQLite vault', () => {
  it('leaves no byte of a destroyed key in the file or its WAL', async () => {
    const { file, dispose } = tempSqliteFile();
    const vault = openSqlitePersonalDataVault({ file });
    try {
      const { key } = await vault.keyFor('org_1', 'subject');
      const files = () => Buffer.concat([file, `${file}-wal`].map((f) => { try { return readFileSync(f); } catch { return Buffer.alloc(0); } }));
      expect(files().includes(key)).toBe(true);
      await vault.destroy('org_1', 'subject', 'cus_1');
      await vault.purgeFreedPages();
      expect(files().includes(key)).toBe(false);
    } finally {
      await vault.close();
      await dispose();
    }
  });
});
