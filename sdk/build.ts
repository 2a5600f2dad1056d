/**
 * Bundles the SDK (IIFE for <script>, ESM for bundlers) and the hosted page's script with esbuild.
 * Run from source (development, tests), the API calls buildSdkAssets() once on demand; the
 * compiled service serves what buildSdk() wrote (`npm run build`, `npm run build:sdk`).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export type SdkAssets = { sdk: string; esm: string; page: string };

const here = dirname(fileURLToPath(import.meta.url));

async function bundle(entry: string, format: 'iife' | 'esm', inputs?: Set<string>): Promise<string> {
  const esbuild = await import('esbuild');
  const out = await esbuild.build({
    entryPoints: [join(here, entry)],
    bundle: true,
    write: false,
    minify: true,
    format,
    target: ['es2020', 'chrome90', 'firefox90', 'safari15'],
    legalComments: 'none',
    logLevel: 'silent',
    metafile: true,
  });
  for (const input of Object.keys(out.metafile.inputs)) inputs?.add(resolve(input));
  return out.outputFiles[0]!.text;
}

/** The three bundles; the absolute paths of the files they were made of go into `inputs` when given. */
export async function buildSdkAssets(inputs?: Set<string>): Promise<SdkAssets> {
  const [sdk, esm, page] = await Promise.all([
    bundle('index.ts', 'iife', inputs),
    bundle('esm.ts', 'esm', inputs),
    bundle('checkoutPage/page.ts', 'iife', inputs),
  ]);
  return { sdk, esm, page };
}

/** sdk/dist/: the three bundles, and the .d.ts declarations of the ESM entry (tsc). */
export async function buildSdk(): Promise<{ assets: SdkAssets; inputs: string[] }> {
  const inputs = new Set<string>();
  const assets = await buildSdkAssets(inputs);
  const dist = join(here, 'dist');
  mkdirSync(dist, { recursive: true });
  writeFileSync(join(dist, 'sdk.js'), assets.sdk);
  writeFileSync(join(dist, 'sdk.mjs'), assets.esm);
  writeFileSync(join(dist, 'checkout-page.js'), assets.page);
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '-p', join(here, 'tsconfig.build.json')], { stdio: 'inherit' });
  // Declarations keep the source's .ts specifiers; consumers resolve .js to the .d.ts beside it.
  const typesDir = join(dist, 'types');
  for (const file of readdirSync(typesDir)) {
    const path = join(typesDir, file);
    writeFileSync(path, readFileSync(path, 'utf8').replace(/from '(\.\.?\/[^']+)\.ts'/g, "from '$1.js'"));
  }
  return { assets, inputs: [...inputs] };
}
