import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { openDatabase } from '../../platform/sqlite/openDatabase.ts';
import { tempSqliteFile } from '../contracts/storeFixtures.ts';

it('zeroes what a connection deletes, so a checkpointed file keeps no copy of it', async () => {
  const { file, dispose } = tempSqliteFile();
  const db = openDatabase(file, { synchronous: 'FULL' });
  try {
    db.exec('CREATE TABLE docs (id TEXT PRIMARY KEY, doc TEXT)');
    const insert = db.prepare('INSERT INTO docs VALUES (?, ?)');
    for (let i = 0; i < 20; i++) insert.run(`d${i}`, JSON.stringify({ email: `buyer${i}@example.com`, note: 'x'.repeat(200) }));
    db.pragma('wal_checkpoint(TRUNCATE)');
    expect(readFileSync(file).includes('buyer7@example.com')).toBe(true);
    db.prepare('DELETE FROM docs WHERE id = ?').run('d7');
    db.pragma('wal_checkpoint(TRUNCATE)');
    expect(readFileSync(file).includes('buyer7@example.com')).toBe(false);
    expect(readFileSync(file).includes('buyer8@example.com')).toBe(true);
  } finally {
    db.close();
    await dispose();
  }
});
