import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, startServerProcess, tempDataDir, type ServerProcess } from '../helpers/serverProcess.ts';

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
    const { code, stderr } = await runCli(['serve'], { DATA_DIR: dataDir, PORT: port, HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
    expect(code).toBe(1);
    expect(stderr).toBe(`commerce: 127.0.0.1:${port} is already in use (another \`commerce serve\`?); set PORT to a free port\n`);
    // The first server is untouched.
    const ready = await fetch(`${first.url}/readyz`);
    expect(ready.status).toBe(200);
    await ready.arrayBuffer();
  }, 30_000);
});
