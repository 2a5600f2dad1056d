import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanEnv, startServerProcess, tempDataDir, type ServerProcess } from '../helpers/serverProcess.ts';

describe('serve on a port another process holds', () => {
  const dataDir = tempDataDir('commerce-port-');
  let first: ServerProcess;
  beforeAll(async () => {
    first = await startServerProcess({ dataDir, env: { LOG_LEVEL: 'warn' } });
  }, 60_000);
  afterAll(async () => {
    if (first.child.exitCode === null) first.child.kill('SIGTERM');
    await first.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('exits 1 with a line naming the port, instead of living on with its projections running', async () => {
    const port = new URL(first.url).port;
    const second = spawn(process.execPath, ['bin/commerce.js', 'serve'], {
      cwd: new URL('../..', import.meta.url),
      env: { ...cleanEnv(), DATA_DIR: dataDir, PORT: port, HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    second.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => second.once('exit', (code) => resolve(code)));
    const timer = setTimeout(() => second.kill('SIGKILL'), 20_000);
    const code = await exited;
    clearTimeout(timer);
    expect(code).toBe(1);
    expect(stderr).toBe(`commerce: 127.0.0.1:${port} is already in use (another \`commerce serve\`?); set PORT to a free port\n`);
    // The first server is untouched.
    const ready = await fetch(`${first.url}/readyz`);
    expect(ready.status).toBe(200);
    await ready.arrayBuffer();
  }, 30_000);
});
