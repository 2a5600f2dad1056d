import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { CHROMIUM_ARGS, findChromium, type FoundChromium } from '../helpers/chromium.ts';

/*
 * The Chromium that `npm ci` brings: what a machine without CHROMIUM_PATH and without an installed
 * browser gets from findChromium. Run here whatever is installed, by leaving both out of the lookup.
 */

// The package ships a Linux x64 binary only; elsewhere findChromium never gets this far.
describe.skipIf(process.platform !== 'linux' || process.arch !== 'x64')('the bundled Chromium (Linux x64)', () => {
  let found: FoundChromium;
  let context: BrowserContext | undefined;
  let profile: string | undefined;
  let site: Server | undefined;
  let siteUrl: string;

  beforeAll(async () => {
    found = await findChromium({ env: {}, systemPaths: [] });
    profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: found.executablePath,
      env: { ...process.env, ...found.env },
      headless: true,
      args: CHROMIUM_ARGS,
      timeout: 60_000,
    });
    site = createServer((req, res) => {
      if (req.url === '/data') return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"secret":1}');
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>shop</title><p id="p">Hello</p>');
    });
    await new Promise<void>((r) => site!.listen(0, '127.0.0.1', r));
    siteUrl = `http://127.0.0.1:${(site.address() as { port: number }).port}`;
  }, 180_000);

  afterAll(async () => {
    await context?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    if (site) {
      site.closeAllConnections();
      await new Promise((r) => site!.close(r));
    }
  });

  test('is @sparticuz/chromium, unpacked into node_modules/.cache with the libraries it needs', () => {
    expect(found.source).toBe('@sparticuz/chromium');
    expect(found.executablePath).toMatch(/node_modules\/\.cache\/sparticuz-chromium-[\d.]+\/chromium$/);
    expect(existsSync(join(found.env.LD_LIBRARY_PATH!, 'libnss3.so'))).toBe(true);
  });

  test('loads and runs a page under playwright-core, with web security on', async () => {
    const page = await context!.newPage();
    await page.goto(siteUrl);
    expect(await page.textContent('#p')).toBe('Hello');
    // Another origin without CORS headers: refused, as in any browser (the package's own flags would allow it).
    const otherOrigin = siteUrl.replace('127.0.0.1', 'localhost');
    const outcome = await page.evaluate((u) => fetch(u).then(() => 'read', () => 'refused'), `${otherOrigin}/data`);
    expect(outcome).toBe('refused');
    await page.close();
  });
});
