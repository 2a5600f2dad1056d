#!/usr/bin/env node
// `commerce …`. In a development checkout (tsx installed) it runs from the TypeScript source, so
// what you edit is what runs, with no build step. In a production install (`npm ci --omit=dev`,
// the Docker image) it runs the compiled dist/commerce.js that `npm run build` wrote.
import { existsSync } from 'node:fs';

const source = new URL('../cli/main.ts', import.meta.url);
const compiled = new URL('../dist/commerce.js', import.meta.url);

let tsx = null;
try {
  tsx = await import('tsx/esm/api');
} catch (error) {
  if (error?.code !== 'ERR_MODULE_NOT_FOUND') throw error;
}
if (tsx && existsSync(source)) {
  tsx.register();
  await import(source.href);
} else if (existsSync(compiled)) {
  await import(compiled.href);
} else {
  console.error('commerce: dist/commerce.js is missing and tsx is not installed: run `npm ci && npm run build` first');
  process.exit(1);
}
