/**
 * `npm run build`: the service compiled to JavaScript in dist/ (what `npm start` and the Docker
 * image run), and the SDK and the hosted page's script (sdk/dist/, served from dist/assets/).
 * A production process runs dist/commerce.js and reads dist/assets/: it compiles and bundles nothing.
 */
import { copyFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';
import { buildDashboard } from '../dashboard/build.ts';
import { buildSdk } from '../sdk/build.ts';

const root = resolve(import.meta.dirname, '..');
// --outdir: elsewhere than dist/ (a test builds into a temporary folder).
const { outdir } = parseArgs({ options: { outdir: { type: 'string' } } }).values;
const dist = outdir ? resolve(outdir) : join(root, 'dist');
const started = Date.now();

rmSync(dist, { recursive: true, force: true });
const service = await esbuild.build({
  absWorkingDir: root,
  // The server's subscriber thread is started from its own file (app/thread/subscriberThread.ts finds it beside the chunks).
  entryPoints: { commerce: 'cli/main.ts', 'subscriber-thread': 'app/thread/subscriberThreadEntry.ts' },
  bundle: true,
  // node_modules stay where npm put them: native better-sqlite3, and the production install's own packages.
  packages: 'external',
  platform: 'node',
  format: 'esm',
  target: 'node20.19',
  // Keeps the lazy imports lazy (the HTTP layer for `serve` only, the EventStoreDB and MongoDB
  // clients only where configured). Every file lands in dist/ itself: the assets are found beside them.
  splitting: true,
  outdir: dist,
  sourcemap: true,
  metafile: true,
  logLevel: 'warning',
});

const sdk = await buildSdk();
mkdirSync(join(dist, 'assets'), { recursive: true });
for (const name of ['sdk.js', 'sdk.mjs', 'checkout-page.js']) copyFileSync(join(root, 'sdk', 'dist', name), join(dist, 'assets', name));
const dashboard = await buildDashboard();
for (const name of ['dashboard.js', 'dashboard.css']) copyFileSync(join(root, 'dashboard', 'dist', name), join(dist, 'assets', name));

// What `npm start` compares with: the build is stale once any of these is newer than build.json.
const inputs = [...new Set([...Object.keys(service.metafile.inputs), ...sdk.inputs.map((f) => relative(root, f)), ...dashboard.inputs.map((f) => relative(root, f)), 'package.json', 'package-lock.json', 'scripts/build.ts', 'sdk/buildAll.ts', 'sdk/build.ts', 'dashboard/build.ts'])]
  .filter((f) => !f.startsWith('node_modules/'))
  .sort();
writeFileSync(join(dist, 'build.json'), `${JSON.stringify({ builtAt: new Date().toISOString(), inputs }, null, 2)}\n`);
console.log(`${relative(root, dist) || dist}/commerce.js and assets/ built from ${inputs.length} files in ${((Date.now() - started) / 1000).toFixed(1)} s`);
