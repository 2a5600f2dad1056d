import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { uploadFile } from '../../modules/files/fileCommands.ts';
import { filesByIds } from '../../modules/files/index.ts';
import { runCli, seedIdentity, tempDataDir, withServices } from '../helpers/serverProcess.ts';
import { bytesOf } from './fileHarness.ts';

describe('commerce backup: the uploaded files too', () => {
  const dataDir = tempDataDir('commerce-files-backup-');
  const to = join(tempDataDir('commerce-files-backup-to-'), 'copy');
  afterAll(() => {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(join(to, '..'), { recursive: true, force: true });
  });

  it('copies every stored file beside the database snapshot, and no incomplete write', async () => {
    const { organizationId } = await seedIdentity(dataDir);
    const bytes = bytesOf(2 * 1024 * 1024 + 5, 'backup');
    const file = await withServices(dataDir, (services, ctx) =>
      uploadFile(ctx(organizationId), services.files, { organizationId, filename: 'zine.pdf', type: 'application/pdf', source: Readable.from([bytes]) }),
    );
    // What a process killed mid-upload leaves (a pid no process has).
    mkdirSync(join(dataDir, 'files', '.incomplete'), { recursive: true });
    writeFileSync(join(dataDir, 'files', '.incomplete', 'file_cut.99999999.aaaaaaaaaaaa'), 'half');

    const run = await runCli(['backup', to, '--json'], { DATA_DIR: dataDir });
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ to, files: 1, file_bytes: bytes.length });
    expect(readdirSync(join(to, 'files'))).toEqual([file.id]);
    expect(createHash('sha256').update(readFileSync(join(to, 'files', file.id))).digest('hex')).toBe(file.sha256);

    // The copy serves as a data directory: the file is known and its bytes are there.
    const restored = await withServices(to, async (services) => {
      const [known] = await filesByIds(services.readStore, organizationId, [file.id]);
      const stat = await services.files.stat(file.id);
      return { known, stat };
    });
    expect(restored).toEqual({ known: expect.objectContaining({ id: file.id, sha256: file.sha256, size: bytes.length }), stat: { size: bytes.length, storedAt: expect.any(Number) } });
  }, 60_000);
});
