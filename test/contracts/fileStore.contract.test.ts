import { randomUUID } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { MongoClient, ObjectId } from 'mongodb';
import { describe, expect, inject, it } from 'vitest';
import { openDataDirFileStore } from '../../platform/files/dataDir/dataDirFileStore.ts';
import { FILE_BUCKET, gridFsFileStore } from '../../platform/files/mongodb/gridFsFileStore.ts';
import { fileStoreContract } from './fileStoreContract.ts';

fileStoreContract('data directory', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'commerce-files-'));
  return { connect: () => openDataDirFileStore(dir), dispose: async () => rmSync(dir, { recursive: true, force: true }) };
});

describe('data directory file store: incomplete writes', () => {
  it('sweeps what a dead process left, keeps what a live one is writing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'commerce-files-'));
    try {
      const store = await openDataDirFileStore(dir);
      const incomplete = join(dir, 'files', '.incomplete');
      // A process that no longer runs (a pid far above pid_max), and one that does (our parent).
      const { writeFileSync } = await import('node:fs');
      writeFileSync(join(incomplete, 'file_dead.99999999.aaaaaaaaaaaa'), 'half');
      writeFileSync(join(incomplete, `file_alive.${process.ppid}.bbbbbbbbbbbb`), 'half');
      const source = new PassThrough();
      const put = store.put('file_mine', source);
      source.write('under way');
      await expect.poll(() => readdirSync(incomplete).some((n) => n.startsWith('file_mine.')), { timeout: 10_000 }).toBe(true);
      expect(await store.sweep()).toBe(1);
      const left = readdirSync(incomplete);
      expect(left).toHaveLength(2);
      expect(left).toContain(`file_alive.${process.ppid}.bbbbbbbbbbbb`);
      expect(left.some((n) => n.startsWith('file_mine.'))).toBe(true);
      source.end();
      await put;
      expect(readdirSync(incomplete)).toEqual([`file_alive.${process.ppid}.bbbbbbbbbbbb`]);
      expect(readdirSync(join(dir, 'files')).sort()).toEqual(['.incomplete', 'file_mine']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// A MongoDB from test/globalSetup.ts (testcontainers where Docker answers, or MONGODB_URL); without one these skip.
const mongodbUrl = inject('mongodbUrl');

describe.skipIf(!mongodbUrl)('production profile: GridFS', () => {
  const database = async () => {
    const dbName = `files_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    const clients: MongoClient[] = [];
    return {
      dbName,
      client: async () => {
        const client = new MongoClient(mongodbUrl!);
        await client.connect();
        clients.push(client);
        return client;
      },
      dispose: async () => {
        const client = new MongoClient(mongodbUrl!);
        try {
          await client.db(dbName).dropDatabase();
        } finally {
          await client.close();
          await Promise.all(clients.map((c) => c.close()));
        }
      },
    };
  };

  fileStoreContract('GridFS', async () => {
    const db = await database();
    return { connect: async () => gridFsFileStore((await db.client()).db(db.dbName)), dispose: db.dispose };
  });

  it('sweeps the chunks of an upload a killed process left, once older than any upload under way', async () => {
    const db = await database();
    try {
      const mongo = (await db.client()).db(db.dbName);
      const now = Date.now();
      const store = gridFsFileStore(mongo, { now: () => now });
      const old = ObjectId.createFromTime(Math.floor((now - 7 * 3600_000) / 1000));
      const recent = ObjectId.createFromTime(Math.floor((now - 60_000) / 1000));
      await mongo.collection(`${FILE_BUCKET}.chunks`).insertMany([
        { files_id: old, n: 0, data: Buffer.from('half') },
        { files_id: recent, n: 0, data: Buffer.from('under way') },
      ]);
      expect(await store.sweep()).toBe(1);
      expect((await mongo.collection(`${FILE_BUCKET}.chunks`).find({}).toArray()).map((c) => String(c.files_id))).toEqual([String(recent)]);
    } finally {
      await db.dispose();
    }
  });
});
