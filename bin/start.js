#!/usr/bin/env node
// `npm start`: the compiled service (`dist/commerce.js serve`), built first when dist/ is missing
// or older than a file it was built from, so `npm ci && npm start` is all a fresh clone needs.
// The build runs in its own process: this one, the server, never loads esbuild or tsx.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { buildState } from './buildState.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const compiled = new URL('../dist/commerce.js', import.meta.url);
// An install without the sources (the Docker image) runs what it was given.
const canBuild = existsSync(new URL('../scripts/build.ts', import.meta.url));
if (canBuild) {
  const { state, reason } = buildState(root);
  if (state !== 'fresh') {
    console.log(state === 'missing' ? 'building dist/ (first start)…' : `rebuilding dist/ (${reason})…`);
    const built = spawnSync(process.execPath, ['bin/run-ts.js', 'scripts/build.ts'], { cwd: root, stdio: 'inherit' });
    if (built.status !== 0) process.exit(built.status ?? 1);
  }
} else if (!existsSync(compiled)) {
  console.error('commerce: dist/commerce.js is missing and this install has no sources to build it from');
  process.exit(1);
}
process.argv.splice(2, process.argv.length - 2, 'serve', ...process.argv.slice(2));
await import(compiled.href);
