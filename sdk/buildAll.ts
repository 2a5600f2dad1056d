/** `npm run build:sdk`: writes sdk/dist/{sdk.js, sdk.mjs, checkout-page.js} and sdk/dist/types/*.d.ts. */
import { gzipSync } from 'node:zlib';
import { buildSdk } from './build.ts';

const { assets } = await buildSdk();
const kb = (s: string) => (gzipSync(s).length / 1024).toFixed(1);
console.log(`sdk/dist: sdk.js ${kb(assets.sdk)} KB gzipped, sdk.mjs ${kb(assets.esm)} KB, checkout-page.js ${kb(assets.page)} KB; types in sdk/dist/types`);
