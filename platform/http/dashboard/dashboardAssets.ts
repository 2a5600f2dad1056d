import type { buildDashboardAssets as BuildDashboardAssets } from '../../../dashboard/build.ts';
import { asset, fromSource, loadOnce, readBuiltAsset, type Asset } from '../sdkAssets.ts';

export type DashboardFiles = { js: Asset; css: Asset };

// A variable, not a literal: the compiled service must not bundle the dashboard's build, nor esbuild with it.
const buildModule = '../../../dashboard/build.ts';

/** The dashboard's script and stylesheet, loaded as the SDK's are (sdkAssets): bundled from dashboard/src when run from source. */
export const dashboardAssets = loadOnce(async (): Promise<DashboardFiles> => {
  const built = fromSource
    ? await ((await import(buildModule)) as { buildDashboardAssets: typeof BuildDashboardAssets }).buildDashboardAssets()
    : { js: readBuiltAsset('dashboard.js'), css: readBuiltAsset('dashboard.css') };
  return { js: asset(built.js), css: asset(built.css) };
});
