import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { buildSdkAssets as BuildSdkAssets } from '../../sdk/build.ts';

export type Asset = { body: string; gzip: Buffer; etag: string };
export type Assets = { sdk: Asset; esm: Asset; page: string };

export const asset = (body: string): Asset => ({
  body,
  gzip: gzipSync(body),
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
});

/** Run from source (tsx, vitest), this module is a .ts file; compiled, it is part of dist/. */
export const fromSource = import.meta.url.endsWith('.ts');

/** A file `npm run build` wrote to dist/assets/: every compiled file sits in dist/ itself (scripts/build.ts). */
export const readBuiltAsset = (name: string) => readFileSync(fileURLToPath(new URL(`./assets/${name}`, import.meta.url)), 'utf8');

/** `load` run once per process for every caller; after a failure the next call tries again. */
export function loadOnce<T>(load: () => Promise<T>): () => Promise<T> {
  let pending: Promise<T> | null = null;
  return () => {
    pending ??= load();
    pending.catch(() => {
      pending = null;
    });
    return pending;
  };
}

// A variable, not a literal: the compiled service must not bundle the SDK build, nor esbuild with it.
const sdkBuildModule = '../../sdk/build.ts';

/**
 * The SDK scripts and the hosted page's script. The compiled service serves the files `npm run
 * build` wrote beside it and bundles nothing; run from source, they are bundled from sdk/ on first
 * use, so what is served is what was just edited.
 */
export const sdkAssets = loadOnce(async (): Promise<Assets> => {
  const built = fromSource
    ? await ((await import(sdkBuildModule)) as { buildSdkAssets: typeof BuildSdkAssets }).buildSdkAssets()
    : { sdk: readBuiltAsset('sdk.js'), esm: readBuiltAsset('sdk.mjs'), page: readBuiltAsset('checkout-page.js') };
  return { sdk: asset(built.sdk), esm: asset(built.esm), page: built.page };
});
