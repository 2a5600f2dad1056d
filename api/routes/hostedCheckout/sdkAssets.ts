import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export type Asset = { body: string; gzip: Buffer; etag: string };
export type Assets = { sdk: Asset; esm: Asset; page: string };

const asset = (body: string): Asset => ({
  body,
  gzip: gzipSync(body),
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
});

let pending: Promise<Assets> | null = null;

/**
 * Built once per process from sdk/ with esbuild (fresh in development, where source changes);
 * where esbuild is not installed (production without dev dependencies) the files that
 * `npm run build:sdk` wrote to sdk/dist/ are served.
 */
export function sdkAssets(): Promise<Assets> {
  pending ??= (async () => {
    let built: { sdk: string; esm: string; page: string };
    try {
      const { buildSdkAssets } = await import('../../../sdk/build.ts');
      built = await buildSdkAssets();
    } catch (error) {
      const dist = (name: string) => readFileSync(fileURLToPath(new URL(`../../../sdk/dist/${name}`, import.meta.url)), 'utf8');
      try {
        built = { sdk: dist('sdk.js'), esm: dist('sdk.mjs'), page: dist('checkout-page.js') };
      } catch {
        throw error;
      }
    }
    return { sdk: asset(built.sdk), esm: asset(built.esm), page: built.page };
  })();
  pending.catch(() => {
    pending = null; // let the next request try again
  });
  return pending;
}
