import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/serverProcess.ts';

/** `commerce tax …` through the real CLI process, on a fresh data directory with one organization. */
describe('commerce tax', { timeout: 120_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'commerce-cli-tax-'));
  const commerce = (...args: string[]) => runCli(args, { DATA_DIR: dataDir });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('shows and sets the settings, loads the starter table once, lists the rates', async () => {
    const org = await commerce('org', 'create', '--name', 'Seller', '--json');
    expect(org.code, org.stderr).toBe(0);
    const off = await commerce('tax', 'settings');
    expect(off.code, off.stderr).toBe(0);
    expect(off.stdout).toContain('tax collection: off');
    const on = await commerce('tax', 'settings', '--enable', '--behavior', 'inclusive', '--json');
    expect(JSON.parse(on.stdout)).toMatchObject({ enabled: true, default_tax_behavior: 'inclusive', countries: [] });
    const bad = await commerce('tax', 'settings', '--behavior', 'gross');
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain('--behavior must be inclusive or exclusive');
    const starter = await commerce('tax', 'rates', 'starter');
    expect(starter.code, starter.stderr).toBe(0);
    expect(starter.stdout).toContain('27 EU standard rates added (as of 2025-08-01');
    expect((await commerce('tax', 'rates', 'starter')).stdout).toContain('nothing added');
    const list = await commerce('tax', 'rates', 'list', '--json');
    const rates = (JSON.parse(list.stdout) as { data: Array<{ country: string; percentage: number }> }).data;
    expect(rates).toHaveLength(27);
    expect(rates.find((r) => r.country === 'DE')?.percentage).toBe(19);
    expect((await commerce('tax', 'rates', 'list')).stdout).toMatch(/txr_[0-9a-f]{24}\s+HU\s+27%\s+VAT\s+active/);
  });
});
