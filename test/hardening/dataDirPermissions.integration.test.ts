import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startServerProcess, type ServerProcess } from '../helpers/serverProcess.ts';

/**
 * commerce.db holds the signing secrets of Send Webhook actions, catch-URL keys and buyers'
 * emails; like jwt-secret beside it, no other user of the machine may read it.
 */
describe('the data directory the server creates', () => {
  const parent = mkdtempSync(join(tmpdir(), 'commerce-perms-'));
  let proc: ServerProcess | undefined;
  afterAll(async () => {
    await proc?.stop();
    rmSync(parent, { recursive: true, force: true });
  });

  it('is the owner’s alone, and so are commerce.db and its -wal and -shm files', async () => {
    const dataDir = join(parent, 'data');
    proc = await startServerProcess({ dataDir });
    const mode = (file: string) => statSync(join(dataDir, file)).mode & 0o777;
    expect(mode('.').toString(8)).toBe('700');
    // While the server runs, WAL mode keeps all three files.
    const files = readdirSync(dataDir).filter((f) => f.startsWith('commerce.db'));
    expect(files.sort()).toEqual(['commerce.db', 'commerce.db-shm', 'commerce.db-wal']);
    for (const file of [...files, 'jwt-secret']) expect(`${file} ${mode(file).toString(8)}`).toBe(`${file} 600`);
  }, 60_000);
});
