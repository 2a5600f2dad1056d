/** `npm run build:sdk`: writes sdk/dist/{sdk.js, sdk.mjs, checkout-page.js} and sdk/dist/types/*.d.ts. */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { buildSdkAssets, writeSdkAssets } from './build.ts';

const here = dirname(fileURLToPath(import.meta.url));
const assets = await buildSdkAssets();
writeSdkAssets(assets);
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(here, 'tsconfig.build.json')], { stdio: 'inherit' });
// Declarations keep the source's .ts specifiers; consumers resolve .js to the .d.ts beside it.
const typesDir = join(here, 'dist', 'types');
for (const file of readdirSync(typesDir)) {
  const path = join(typesDir, file);
  writeFileSync(path, readFileSync(path, 'utf8').replace(/from '(\.\.?\/[^']+)\.ts'/g, "from '$1.js'"));
}
const kb = (s: string) => (gzipSync(s).length / 1024).toFixed(1);
console.log(`sdk/dist: sdk.js ${kb(assets.sdk)} KB gzipped, sdk.mjs ${kb(assets.esm)} KB, checkout-page.js ${kb(assets.page)} KB; types in sdk/dist/types`);
