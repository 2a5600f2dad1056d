import { execFile } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';

/**
 * Where the browser tests get Chromium, in this order: `CHROMIUM_PATH`; a Chromium or Chrome
 * installed on the system; the Chromium that `npm ci` brings in `@sparticuz/chromium` (Linux x64
 * only). So `npm ci && npm test` needs no apt and no system browser.
 */
export type FoundChromium = {
  executablePath: string;
  /** Where it came from, for messages: `CHROMIUM_PATH`, `system`, `@sparticuz/chromium`. */
  source: string;
  /** What the browser process needs in its environment besides ours (the bundled one's libraries and fonts). */
  env: Record<string, string>;
};

export const NO_CHROMIUM =
  'No Chromium for the browser tests: set CHROMIUM_PATH to a Chromium or Chrome executable, or install one (Debian/Ubuntu: apt-get install chromium; macOS: Google Chrome); the Chromium that npm ci brings (@sparticuz/chromium) runs on Linux x64 only';

/** Installed browsers, first found wins; the names are also looked up on PATH. */
const SYSTEM_PATHS = [
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome',
  '/usr/bin/google-chrome-stable',
  '/snap/bin/chromium',
  '/Applications/Google Chrome.app/Contents/MacOS/Google Chrome',
  '/Applications/Chromium.app/Contents/MacOS/Chromium',
];
const SYSTEM_COMMANDS = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

export function systemChromiumCandidates(env: NodeJS.ProcessEnv = process.env): string[] {
  const onPath = (env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .flatMap((dir) => SYSTEM_COMMANDS.map((name) => join(dir, name)));
  return [...new Set([...SYSTEM_PATHS, ...onPath])];
}

const isExecutableFile = (path: string): boolean => {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
};

/**
 * The lookup itself; every part is injectable so its order can be tested on a machine that has a
 * system Chromium. Throws one line (NO_CHROMIUM) when no browser can be had.
 */
export async function findChromium(
  options: {
    env?: NodeJS.ProcessEnv;
    systemPaths?: string[];
    bundled?: () => Promise<FoundChromium | null>;
  } = {},
): Promise<FoundChromium> {
  const env = options.env ?? process.env;
  const configured = env.CHROMIUM_PATH;
  if (configured) {
    // A path someone set on purpose and got wrong is an error, not a cue to run another browser.
    if (!isExecutableFile(configured)) throw new Error(`CHROMIUM_PATH=${configured} is not an executable file; ${NO_CHROMIUM}`);
    return { executablePath: configured, source: 'CHROMIUM_PATH', env: {} };
  }
  const system = (options.systemPaths ?? systemChromiumCandidates(env)).find(isExecutableFile);
  if (system) return { executablePath: system, source: 'system', env: {} };
  const bundled = await (options.bundled ?? sparticuzChromium)();
  if (bundled) return bundled;
  throw new Error(NO_CHROMIUM);
}

const ROOT = resolve(import.meta.dirname, '../..');

/**
 * `@sparticuz/chromium`'s binary (brotli-compressed inside the package), extracted once into
 * node_modules/.cache. Its executablePath() inflates into os.tmpdir() without a lock and answers
 * any file already there, even half written; so it runs in a child process whose TMPDIR is a fresh
 * directory, renamed into place when complete (two test workers racing both extract, one wins).
 * AWS_EXECUTION_ENV makes it also unpack the NSS and expat libraries it was built against, so it
 * needs nothing from the system but glibc.
 */
export async function sparticuzChromium(
  o: { platform?: string; arch?: string; cacheRoot?: string } = {},
): Promise<FoundChromium | null> {
  if ((o.platform ?? process.platform) !== 'linux' || (o.arch ?? process.arch) !== 'x64') return null;
  let entry: string;
  try {
    entry = createRequire(import.meta.url).resolve('@sparticuz/chromium');
  } catch {
    return null; // installed without dev dependencies
  }
  // Its exports map hides package.json; the entry is <package>/build/cjs/index.cjs.
  const { version } = JSON.parse(readFileSync(resolve(entry, '../../../package.json'), 'utf8')) as { version: string };
  const dir = join(o.cacheRoot ?? join(ROOT, 'node_modules', '.cache'), `sparticuz-chromium-${version}`);
  const executablePath = join(dir, 'chromium');
  if (!existsSync(executablePath)) {
    const work = `${dir}.partial-${process.pid}-${Date.now()}`;
    mkdirSync(work, { recursive: true });
    try {
      const script = `const m = await import('@sparticuz/chromium'); console.log(await m.default.executablePath());`;
      await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], {
        cwd: ROOT,
        env: { ...process.env, TMPDIR: work, AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x' },
        timeout: 120_000,
      });
      // The fonts' own fonts.conf names /tmp/fonts; ours names where they are, and the system's.
      writeFileSync(
        join(work, 'fonts.conf'),
        `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${join(dir, 'fonts', 'fonts')}</dir>\n  <dir>/usr/share/fonts</dir>\n  <dir>/usr/local/share/fonts</dir>\n  <cachedir>${join(dir, 'fonts-cache')}</cachedir>\n</fontconfig>\n`,
      );
      mkdirSync(dirname(dir), { recursive: true });
      try {
        renameSync(work, dir);
      } catch (error) {
        if (!existsSync(executablePath)) throw error; // else another worker finished first
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  return {
    executablePath,
    source: '@sparticuz/chromium',
    env: { LD_LIBRARY_PATH: join(dir, 'al2023', 'lib'), FONTCONFIG_FILE: join(dir, 'fonts.conf') },
  };
}

/** Flags for every launch. Not the bundled package's own list: it turns off web security and site isolation and forces one process, which the SDK's cross-origin frames must not run under. */
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];
