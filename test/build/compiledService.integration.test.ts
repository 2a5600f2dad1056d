import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { cleanEnv, tempDataDir } from '../helpers/serverProcess.ts';

/*
 * What `npm start` and the Docker image run: the service compiled by `npm run build`, here into a
 * temporary folder, started under a hook that fails any import of esbuild, tsx or typescript (a
 * production install has none of them). It must answer, and serve the prebuilt SDK and page scripts.
 */

const ROOT = resolve(import.meta.dirname, '../..');
const HOOK = join(import.meta.dirname, 'forbidDevPackages.mjs');
const run = promisify(execFile);

let out: string;
let child: ReturnType<typeof spawn> | undefined;
let output = '';
let url: string;
let dataDir: string;

beforeAll(async () => {
  out = mkdtempSync(join(tmpdir(), 'commerce-build-'));
  await run(process.execPath, ['bin/run-ts.js', 'scripts/build.ts', '--outdir', join(out, 'dist')], { cwd: ROOT, timeout: 120_000 });
  // The packages, as a production install would have them beside dist/ (the hook hides the dev ones).
  symlinkSync(join(ROOT, 'node_modules'), join(out, 'node_modules'));
  dataDir = tempDataDir();
  child = spawn(process.execPath, ['--import', HOOK, join(out, 'dist', 'commerce.js'), 'serve'], {
    cwd: out,
    env: { ...cleanEnv(), NODE_ENV: 'production', DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  url = await new Promise<string>((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`compiled server did not start within 30 s:\n${output}`)), 30_000);
    child!.stdout!.on('data', () => {
      const match = /listening on (http:\/\/[\d.:]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        res(match[1]!);
      }
    });
    child!.once('exit', (code) => {
      clearTimeout(timer);
      rej(new Error(`compiled server exited (${code}):\n${output}`));
    });
  });
}, 180_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child!.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  }
  if (out) rmSync(out, { recursive: true, force: true });
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('the compiled service (dist/)', () => {
  test('answers /healthz', async () => {
    const response = await fetch(`${url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  test('serves the SDK scripts the build wrote, byte for byte', async () => {
    for (const [path, file] of [
      ['/sdk.js', 'sdk.js'],
      ['/sdk.mjs', 'sdk.mjs'],
    ]) {
      const response = await fetch(`${url}${path}`);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(readFileSync(join(out, 'dist', 'assets', file!), 'utf8'));
    }
  });

  test('serves the dashboard the build wrote: the shell, its script and its stylesheet, byte for byte', async () => {
    const page = await fetch(`${url}/dashboard/sales`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    const html = await page.text();
    for (const file of ['dashboard.js', 'dashboard.css']) {
      const path = new RegExp(`"(/dashboard/assets/${file.replace('.', '\\.')}\\?v=[^"]+)"`).exec(html)?.[1];
      expect(path, file).toBeTruthy();
      const response = await fetch(`${url}${path}`);
      expect(response.status).toBe(200);
      expect(await response.text()).toBe(readFileSync(join(out, 'dist', 'assets', file), 'utf8'));
    }
    expect(output).not.toContain('dev dependency');
  });

  test("serves the hosted page with the page's prebuilt script inline", async () => {
    const response = await fetch(`${url}/checkout/no-such-offer`);
    expect(response.status).toBe(404);
    expect(await response.text()).toContain(readFileSync(join(out, 'dist', 'assets', 'checkout-page.js'), 'utf8').trim().slice(0, 200));
    expect(output).not.toContain('dev dependency');
  });

  test('the hook does stop an import of a dev dependency (so the tests above prove something)', async () => {
    const failed = await run(process.execPath, ['--import', HOOK, '--input-type=module', '-e', "await import('esbuild')"], { cwd: ROOT }).then(
      () => null,
      (error: { stderr: string }) => error.stderr,
    );
    expect(failed).toContain('production process imported the dev dependency esbuild');
  });
});
