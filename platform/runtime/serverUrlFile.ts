import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isProductionProfile, type Config } from './config.ts';

/**
 * `serve` of the embedded profile writes the base URL it answers on here, so the CLI beside it
 * prints links that work (a server on PORT=3971 while the CLI's own environment says 3000).
 */
const FILE = 'server.json';

type Recorded = { url: string; pid: number };

/** A host as it goes into a URL: the unspecified address becomes loopback (0.0.0.0 is no place to send a browser). */
function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '[::1]';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}

/** The URL a server with this configuration answers on, for people to open: BASE_URL, else HOST and the port. */
export function baseUrlFor(config: Config, port: number = config.PORT): string {
  return config.BASE_URL ?? `http://${urlHost(config.HOST)}:${port}`;
}

/**
 * Records the server's base URL in DATA_DIR (embedded profile only: on the production profile API
 * processes run on many machines and BASE_URL names the public one). Returns the undo, which
 * removes the record only while it is still this process's (another `serve` may have replaced it).
 * Best effort: a data directory that cannot take the file costs only the nicer links.
 */
export function recordServerUrl(config: Config, port: number): () => void {
  if (isProductionProfile(config)) return () => undefined;
  const file = join(resolve(config.DATA_DIR), FILE);
  const record: Recorded = { url: baseUrlFor({ ...config, BASE_URL: undefined }, port), pid: process.pid };
  try {
    const draft = `${file}.${process.pid}`;
    writeFileSync(draft, `${JSON.stringify(record)}\n`, { mode: 0o600 });
    renameSync(draft, file);
  } catch {
    return () => undefined;
  }
  return () => {
    if (readRecord(file)?.pid === process.pid) rmSync(file, { force: true });
  };
}

function readRecord(file: string): Recorded | null {
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<Recorded>;
    return typeof parsed.url === 'string' && /^https?:\/\//.test(parsed.url) && Number.isSafeInteger(parsed.pid) ? (parsed as Recorded) : null;
  } catch {
    return null;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it runs, under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Where the service answers, as the CLI tells people: BASE_URL when set; else the URL the running
 * `serve` of this data directory recorded; else HOST and PORT of this environment (what a `serve`
 * started with it would answer on). A record left by a server that died is ignored.
 */
export function serviceBaseUrl(config: Config): string {
  if (config.BASE_URL) return config.BASE_URL;
  if (!isProductionProfile(config)) {
    const record = readRecord(join(resolve(config.DATA_DIR), FILE));
    if (record && isRunning(record.pid)) return record.url;
  }
  return baseUrlFor(config);
}
