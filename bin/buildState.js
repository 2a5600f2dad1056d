// Whether dist/ holds a build of the files it was built from as they are now (`npm start` asks).
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * 'missing' without dist/build.json; 'stale' once a file it lists is gone or newer than it;
 * else 'fresh'. scripts/build.ts writes build.json last, so an interrupted build reads as missing.
 * @param {string} root the project folder
 * @returns {{ state: 'missing' | 'stale' | 'fresh', reason?: string }}
 */
export function buildState(root) {
  let builtAt;
  let inputs;
  try {
    const manifest = join(root, 'dist', 'build.json');
    builtAt = statSync(manifest).mtimeMs;
    inputs = JSON.parse(readFileSync(manifest, 'utf8')).inputs;
  } catch {
    return { state: 'missing' };
  }
  for (const input of inputs) {
    let modified;
    try {
      modified = statSync(join(root, input)).mtimeMs;
    } catch {
      return { state: 'stale', reason: `${input} is gone` };
    }
    if (modified > builtAt) return { state: 'stale', reason: `${input} changed` };
  }
  return { state: 'fresh' };
}
