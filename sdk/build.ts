/**
 * Bundles the SDK (IIFE for <script>, ESM for bundlers) and the hosted page's script with esbuild.
 * The API calls buildSdkAssets() once on demand; `npm run build:sdk` runs this file to write
 * sdk/dist/ (plus the .d.ts declarations that tsc emits next to them).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export type SdkAssets = { sdk: string; esm: string; page: string };

const here = dirname(fileURLToPath(import.meta.url));

async function bundle(entry: string, format: 'iife' | 'esm'): Promise<string> {
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
  });
  return out.outputFiles[0]!.text;
}

export async function buildSdkAssets(): Promise<SdkAssets> {
  const [sdk, esm, page] = await Promise.all([bundle('index.ts', 'iife'), bundle('esm.ts', 'esm'), bundle('checkoutPage/page.ts', 'iife')]);
  return { sdk, esm, page };
}

export function writeSdkAssets(assets: SdkAssets, dir = join(here, 'dist')): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'sdk.js'), assets.sdk);
  writeFileSync(join(dir, 'sdk.mjs'), assets.esm);
  writeFileSync(join(dir, 'checkout-page.js'), assets.page);
}

