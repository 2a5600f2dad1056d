/**
 * Bundles the seller's dashboard (dashboard/src) with esbuild: one script and one stylesheet, no
 * code from a CDN. Run from source (development, tests) the API calls buildDashboardAssets() on
 * first use; the compiled service serves what buildDashboard() wrote (`npm run build`, `npm run build:sdk`).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export type DashboardAssets = { js: string; css: string };

const here = dirname(fileURLToPath(import.meta.url));

/** The two bundles; the absolute paths of the files they were made of go into `inputs` when given. */
export async function buildDashboardAssets(inputs?: Set<string>): Promise<DashboardAssets> {
  const esbuild = await import('esbuild');
  const out = await esbuild.build({
    entryPoints: { app: join(here, 'src', 'main.tsx'), style: join(here, 'src', 'styles.css') },
    absWorkingDir: here,
    bundle: true,
    write: false,
    outdir: join(here, 'dist'),
    minify: true,
    format: 'esm',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
    legalComments: 'none',
    logLevel: 'silent',
    metafile: true,
    define: { 'process.env.NODE_ENV': '"production"' },
  });
  for (const input of Object.keys(out.metafile.inputs)) inputs?.add(resolve(here, input));
  const text = (suffix: string) => out.outputFiles.find((f) => f.path.endsWith(suffix))!.text;
  return { js: text('app.js'), css: text('style.css') };
}

export function writeDashboardAssets(assets: DashboardAssets, dir = join(here, 'dist')): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'dashboard.js'), assets.js);
  writeFileSync(join(dir, 'dashboard.css'), assets.css);
}

/** dashboard/dist/: the script and the stylesheet. */
export async function buildDashboard(): Promise<{ assets: DashboardAssets; inputs: string[] }> {
  const inputs = new Set<string>();
  const assets = await buildDashboardAssets(inputs);
  writeDashboardAssets(assets);
  return { assets, inputs: [...inputs] };
}
