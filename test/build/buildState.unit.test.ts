import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { buildState } from '../../bin/buildState.js';

/** When `npm start` rebuilds dist/: a stand-in project whose files' times the tests set. */

const root = mkdtempSync(join(tmpdir(), 'build-state-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const at = (path: string, seconds: number) => utimesSync(join(root, path), seconds, seconds);

test('missing, fresh, stale when a file it was built from is newer, stale when one is gone', () => {
  expect(buildState(root)).toEqual({ state: 'missing' });

  mkdirSync(join(root, 'cli'));
  mkdirSync(join(root, 'dist'));
  writeFileSync(join(root, 'cli', 'main.ts'), '');
  writeFileSync(join(root, 'package.json'), '{}');
  writeFileSync(join(root, 'dist', 'build.json'), JSON.stringify({ builtAt: '', inputs: ['cli/main.ts', 'package.json'] }));
  at('cli/main.ts', 1_000);
  at('package.json', 1_000);
  at('dist/build.json', 2_000);
  expect(buildState(root)).toEqual({ state: 'fresh' });

  at('package.json', 3_000);
  expect(buildState(root)).toEqual({ state: 'stale', reason: 'package.json changed' });
  at('package.json', 1_000);

  rmSync(join(root, 'cli', 'main.ts'));
  expect(buildState(root)).toEqual({ state: 'stale', reason: 'cli/main.ts is gone' });
});

test('a build.json that is not JSON reads as missing (a build cut short is rebuilt)', () => {
  writeFileSync(join(root, 'dist', 'build.json'), '{"inputs": [');
  expect(buildState(root)).toEqual({ state: 'missing' });
});
