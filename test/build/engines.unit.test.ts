import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import semver from 'semver';
import { expect, test } from 'vitest';

/**
 * Every package npm installs runs on the Node versions we support: without this, `npm ci` on
 * Node 20 warned EBADENGINE for cookie@2.0.2 (Node >=22), which fastify's light-my-request
 * pulls in; an override in package.json keeps it at cookie 1.x.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const read = (file: string) => JSON.parse(readFileSync(join(ROOT, file), 'utf8')) as Record<string, unknown>;

test('package.json supports Node 20.19 and later', () => {
  expect((read('package.json').engines as { node: string }).node).toBe('>=20.19.0');
});

test('no package in the lockfile refuses Node 20.19.0, 22.13.0 or 24.0.0', () => {
  const packages = read('package-lock.json').packages as Record<string, { version?: string; engines?: { node?: string } | string[] }>;
  const refusals: string[] = [];
  for (const [path, entry] of Object.entries(packages)) {
    const range = !Array.isArray(entry.engines) ? entry.engines?.node : undefined;
    if (!path || !range) continue;
    for (const node of ['20.19.0', '22.13.0', '24.0.0']) {
      if (!semver.satisfies(node, range)) refusals.push(`${path.replace(/^.*node_modules\//, '')}@${entry.version} requires node ${range} (not ${node})`);
    }
  }
  expect(refusals).toEqual([]);
});
