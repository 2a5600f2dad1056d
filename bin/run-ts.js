#!/usr/bin/env node
// Runs a TypeScript entry file (benchmarks, scripts) through tsx: `node bin/run-ts.js bench/run.ts`.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

register();
const entry = process.argv[2];
if (!entry) {
  console.error('usage: node bin/run-ts.js FILE.ts [args…]');
  process.exit(2);
}
process.argv.splice(1, 1);
await import(pathToFileURL(resolve(entry)).href);
