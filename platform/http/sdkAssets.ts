import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { buildSdkAssets as BuildSdkAssets } from '../../sdk/build.ts';

export type Asset = { body: string; gzip: Buffer; etag: string };
export type Assets = { sdk: Asset; esm: Asset; page: string };

const asset = (body: string): Asset => ({
  body,
  gzip: gzipSync(body),
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
});

let pending: Promise<Assets> | null = null;

/** Run from source (tsx, vitest), this module is a .ts file; compiled, it is part of dist/. */
const fromSource = import.meta.url.endsWith('.ts');
// A variable, not a literal: the compiled service must not bundle the SDK build, nor esbuild with it.
const sdkBuildModule = '../../sdk/build.ts';

/**
 * The SDK scripts and the hosted page's script, read once per process. The compiled service
 * serves the files `npm run build` wrote beside it (dist/assets/) and bundles nothing; run from
 * source, they are bundled from sdk/ on first use, so what is served is what was just edited.
 */
export function sdkAssets(): Promise<Assets> {
  pending ??= (async () => {
    let built: { sdk: string; esm: string; page: string };
    if (fromSource) {
      const { buildSdkAssets } = (await import(sdkBuildModule)) as { buildSdkAssets: typeof BuildSdkAssets };
      built = await buildSdkAssets();
    } else {
      // Every compiled file sits in dist/ itself (scripts/build.ts), so assets/ is beside this one.
      const read = (name: string) => readFileSync(fileURLToPath(new URL(`./assets/${name}`, import.meta.url)), 'utf8');
      built = { sdk: read('sdk.js'), esm: read('sdk.mjs'), page: read('checkout-page.js') };
    }
    return { sdk: asset(built.sdk), esm: asset(built.esm), page: built.page };
  })();
  pending.catch(() => {
    pending = null; // let the next request try again
  });
  return pending;
}
