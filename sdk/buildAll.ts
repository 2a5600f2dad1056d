/** `npm run build:sdk`: writes sdk/dist/{sdk.js, sdk.mjs, checkout-page.js}, sdk/dist/types/*.d.ts, and the dashboard's dashboard/dist/{dashboard.js, dashboard.css}. */
import { gzipSync } from 'node:zlib';
import { buildDashboard } from '../dashboard/build.ts';
import { buildSdk } from './build.ts';

const { assets } = await buildSdk();
const kb = (s: string) => (gzipSync(s).length / 1024).toFixed(1);
console.log(`sdk/dist: sdk.js ${kb(assets.sdk)} KB gzipped, sdk.mjs ${kb(assets.esm)} KB, checkout-page.js ${kb(assets.page)} KB; types in sdk/dist/types`);
const dashboard = await buildDashboard();
console.log(`dashboard/dist: dashboard.js ${kb(dashboard.assets.js)} KB gzipped, dashboard.css ${kb(dashboard.assets.css)} KB`);
