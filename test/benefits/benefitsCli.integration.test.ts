import { rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, tempDataDir } from '../helpers/serverProcess.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** `commerce benefits …` as it ships, one process per run. */
describe('commerce benefits', { timeout: 180_000 }, () => {
  const dataDir = tempDataDir('commerce-benefits-cli-');
  const commerce = (...args: string[]) => runCli(args, { DATA_DIR: dataDir });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('creates file and license key benefits on a product named by key, lists them, and refuses bad flags with the field', async () => {
    const demo = await commerce('demo', '--json');
    expect(demo.code, demo.stderr).toBe(0);
    const products = JSON.parse((await commerce('product', 'list', '--json')).stdout) as Body[];
    const product = products[0]!;

    const file = await commerce('benefits', 'create', product.key, '--description', 'The PDF', '--files', 'file_abc,file_def');
    expect(file.code, file.stderr).toBe(0);
    expect(file.stdout).toMatch(new RegExp(`^benefit created: ben_\\w+ {2}file {2}product ${product.id} {2}The PDF {2}\\(files file_abc, file_def\\)`));
    const key = await commerce('benefits', 'create', product.id, '--description', 'App key', '--license-key', '--prefix', 'APP', '--activation-limit', '3', '--bound-to', 'subscription', '--json');
    expect(key.code, key.stderr).toBe(0);
    expect(JSON.parse(key.stdout)).toMatchObject({ object: 'benefit', type: 'license_key', product_id: product.id, properties: { prefix: 'APP', activation_limit: 3, expires_after_days: null, bound_to: 'subscription' } });

    const list = await commerce('benefits', 'list', '--product', product.key, '--type', 'license_key');
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toContain('license_key');
    expect(list.stdout).toContain('prefix APP, 3 activations, no expiry, subscription');
    expect(list.stdout).not.toContain('The PDF');
    const grants = await commerce('benefits', 'grants', '--json');
    expect(grants.code, grants.stderr).toBe(0);
    expect(JSON.parse(grants.stdout)).toEqual(expect.any(Array));

    const bad = await commerce('benefits', 'create', product.key, '--description', 'x', '--files', 'not-a-file', '--json');
    expect(bad.code).not.toBe(0);
    expect(JSON.parse(bad.stderr)).toMatchObject({ errors: { 'properties.files.0': [expect.any(String)] } });
    const both = await commerce('benefits', 'create', product.key, '--description', 'x', '--files', 'file_a', '--license-key');
    expect(both.code).not.toBe(0);
    expect(both.stderr).toContain('one of them');
    const unknown = await commerce('benefits', 'create', 'no-such-product', '--description', 'x', '--license-key');
    expect(unknown.code).not.toBe(0);
    expect(unknown.stderr).toContain("no product 'no-such-product'");
  });
});
