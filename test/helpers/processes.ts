import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../bin/commerce.js', import.meta.url));

/** The test runner's environment, less what it sets for itself (vite sets BASE_URL=/). */
function baseEnv(): NodeJS.ProcessEnv {
  const { BASE_URL: _baseUrl, DATA_DIR: _dataDir, PORT: _port, ...rest } = process.env;
  return rest;
}

export type CliRun = { code: number | null; stdout: string; stderr: string };

/** Runs the real `commerce` CLI as a child process. */
export function runCli(args: string[], env: Record<string, string>, input?: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...baseEnv(), LOG_LEVEL: 'silent', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}

export type ServerProcess = { url: string; child: ChildProcess; stop(): Promise<void> };

/** Starts `commerce serve` as a child process on a free port and waits for its address. */
export function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, 'serve'], {
      env: { ...baseEnv(), LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1', ...env },
    });
    let out = '';
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`server did not start: ${out} ${err}`));
    }, 20_000);
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const match = /listening on (http:\/\/\S+?) /.exec(out);
      if (!match) return;
      clearTimeout(timer);
      const exited = new Promise<void>((r) => child.once('exit', () => r()));
      resolve({
        url: match[1]!,
        child,
        async stop() {
          if (child.exitCode === null) child.kill('SIGTERM');
          await exited;
        },
      });
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${err}`));
    });
  });
}

/** Polls until `check` passes or the time runs out (then its last error is thrown). */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
