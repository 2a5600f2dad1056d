import { relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildDashboardAssets } from '../../dashboard/build.ts';

const root = resolve(import.meta.dirname, '../..');

describe("the dashboard's bundle", () => {
  it('is made of dashboard code and packages only (and the shared money and size formats): the types it takes from modules are erased', async () => {
    const inputs = new Set<string>();
    await buildDashboardAssets(inputs);
    const files = [...inputs].map((f) => relative(root, f));
    expect(files.some((f) => f.startsWith('dashboard/src/'))).toBe(true);
    // But the money and size formats the service shares with it: pure code, no server part comes along.
    expect(files.filter((f) => !f.startsWith('dashboard/src/') && !f.startsWith('node_modules/')).sort()).toEqual(['platform/domain/byteSize.ts', 'platform/domain/moneyFormat.ts']);
  });
});
