import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, startServerProcess, type ServerProcess } from '../helpers/serverProcess.ts';

/**
 * commerce.db holds the signing secrets of Send Webhook actions, catch-URL keys and buyers'
 * emails; like jwt-secret beside it, no other user of the machine may read it.
 */
describe('the data directory', () => {
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

  it('refuses a damaged jwt-secret instead of signing with what is left of it', async () => {
    // Buffer.from('abcd…', 'hex') stops at the first character that is not hex: a 2-byte key.
    const dataDir = join(parent, 'damaged');
    mkdirSync(dataDir, { mode: 0o700 });
    writeFileSync(join(dataDir, 'jwt-secret'), 'abcd-not-a-secret', { mode: 0o600 });
    for (const args of [['org', 'create', '--name', 'Damaged'], ['serve']]) {
      const { code, stderr } = await runCli(args, { DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1' });
      expect(code, stderr).toBe(2);
      expect(stderr).toBe(
        `commerce: invalid configuration: ${join(dataDir, 'jwt-secret')} does not hold a generated secret (64 or more hex digits); remove it to have a new one generated (service_jwt tokens issued before stop working), or set JWT_SECRET\n`,
      );
    }
  }, 60_000);
});
