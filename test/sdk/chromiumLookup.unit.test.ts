import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test, vi } from 'vitest';
import { findChromium, NO_CHROMIUM, sparticuzChromium, systemChromiumCandidates, type FoundChromium } from '../helpers/chromium.ts';

/** The order in which the browser tests find Chromium, with stand-in files for the installed browsers. */

const dir = mkdtempSync(join(tmpdir(), 'chromium-lookup-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function executable(name: string): string {
  const path = join(dir, name);
  writeFileSync(path, '#!/bin/sh\n');
  chmodSync(path, 0o755);
  return path;
}
const bundledBrowser: FoundChromium = { executablePath: '/bundled/chromium', source: '@sparticuz/chromium', env: {} };

describe('findChromium', () => {
  test('CHROMIUM_PATH comes first: neither the system nor the bundled browser is looked at', async () => {
    const mine = executable('my-chrome');
    const bundled = vi.fn(async () => bundledBrowser);
    const found = await findChromium({ env: { CHROMIUM_PATH: mine }, systemPaths: [executable('system-chromium')], bundled });
    expect(found).toEqual({ executablePath: mine, source: 'CHROMIUM_PATH', env: {} });
    expect(bundled).not.toHaveBeenCalled();
  });

  test('a CHROMIUM_PATH that is not an executable is an error naming it, not a quiet fallback', async () => {
    const notExecutable = join(dir, 'plain-file');
    writeFileSync(notExecutable, '');
    const system = executable('system-chromium-2');
    await expect(findChromium({ env: { CHROMIUM_PATH: join(dir, 'missing') }, systemPaths: [system] })).rejects.toThrow(`CHROMIUM_PATH=${join(dir, 'missing')} is not an executable file`);
    await expect(findChromium({ env: { CHROMIUM_PATH: notExecutable }, systemPaths: [system] })).rejects.toThrow('is not an executable file');
  });

  test('an empty CHROMIUM_PATH counts as unset', async () => {
    const system = executable('system-chromium-3');
    expect(await findChromium({ env: { CHROMIUM_PATH: '' }, systemPaths: [system] })).toMatchObject({ executablePath: system, source: 'system' });
  });

  test('then the first installed browser in the list that is an executable file, before the bundled one', async () => {
    const plain = join(dir, 'not-executable');
    writeFileSync(plain, '');
    const second = executable('google-chrome');
    const third = executable('chromium-browser');
    const bundled = vi.fn(async () => bundledBrowser);
    const found = await findChromium({ env: {}, systemPaths: [join(dir, 'absent'), plain, dir, second, third], bundled });
    expect(found).toEqual({ executablePath: second, source: 'system', env: {} });
    expect(bundled).not.toHaveBeenCalled();
  });

  test('then the bundled one, when nothing is installed', async () => {
    expect(await findChromium({ env: {}, systemPaths: [join(dir, 'absent')], bundled: async () => bundledBrowser })).toBe(bundledBrowser);
  });

  test('with none at all it fails with one line that says how to get one', async () => {
    const error = await findChromium({ env: {}, systemPaths: [], bundled: async () => null }).catch((e: unknown) => e as Error);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).toBe(NO_CHROMIUM);
    expect(NO_CHROMIUM).not.toContain('\n');
    expect(NO_CHROMIUM).toMatch(/set CHROMIUM_PATH/);
  });

  test('the installed browsers are /usr/bin/chromium first, then Chrome, then the same names on PATH', () => {
    const candidates = systemChromiumCandidates({ PATH: '/opt/a:/opt/b' });
    expect(candidates[0]).toBe('/usr/bin/chromium');
    expect(candidates.indexOf('/usr/bin/google-chrome')).toBeGreaterThan(0);
    expect(candidates).toContain('/opt/a/chromium');
    expect(candidates.indexOf('/opt/a/google-chrome')).toBeLessThan(candidates.indexOf('/opt/b/chromium'));
    expect(candidates.indexOf('/usr/bin/google-chrome-stable')).toBeLessThan(candidates.indexOf('/opt/a/chromium'));
  });

  test('the bundled browser exists only on Linux x64', async () => {
    expect(await sparticuzChromium({ platform: 'darwin', arch: 'arm64' })).toBeNull();
    expect(await sparticuzChromium({ platform: 'linux', arch: 'arm64' })).toBeNull();
  });
});
