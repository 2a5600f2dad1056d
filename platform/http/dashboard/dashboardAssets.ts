import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { buildDashboardAssets as BuildDashboardAssets } from '../../../dashboard/build.ts';
import type { Asset } from '../sdkAssets.ts';

export type DashboardFiles = { js: Asset; css: Asset };

const asset = (body: string): Asset => ({
  body,
  gzip: gzipSync(body),
  etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`,
});

let pending: Promise<DashboardFiles> | null = null;

const fromSource = import.meta.url.endsWith('.ts');
// A variable, not a literal: the compiled service must not bundle the dashboard's build, nor esbuild with it.
const buildModule = '../../../dashboard/build.ts';

/**
 * The dashboard's script and stylesheet, read once per process: the compiled service reads what
 * `npm run build` put in dist/assets/; run from source, they are bundled from dashboard/src on first use.
 */
export function dashboardAssets(): Promise<DashboardFiles> {
  pending ??= (async () => {
    let built: { js: string; css: string };
    if (fromSource) {
      const { buildDashboardAssets } = (await import(buildModule)) as { buildDashboardAssets: typeof BuildDashboardAssets };
      built = await buildDashboardAssets();
    } else {
      const read = (name: string) => readFileSync(fileURLToPath(new URL(`./assets/${name}`, import.meta.url)), 'utf8');
      built = { js: read('dashboard.js'), css: read('dashboard.css') };
    }
    return { js: asset(built.js), css: asset(built.css) };
  })();
  pending.catch(() => {
    pending = null; // let the next request try again
  });
  return pending;
}
