import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTestClock } from '../../modules/subscriptions/testClockCommands.ts';
import { runCli } from '../helpers/serverProcess.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { waitFor } from './clockApp.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

// The real `commerce` CLI beside a running service on the same data directory; each case starts
// several CLI processes, seconds each on a busy machine.
describe('commerce test-clocks', { timeout: 120_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'commerce-clock-cli-'));
  const commerce = (...args: string[]) => runCli(args, { DATA_DIR: dataDir });
  let server: TestServer;
  let org: string;

  beforeAll(async () => {
    const created = await commerce('org', 'create', '--name', 'Clock shop', '--json');
    expect(created.code, created.stderr).toBe(0);
    org = (JSON.parse(created.stdout) as Body).id;
    server = await startTestServer({ dataDir });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates, advances (the service finishes it), shows and deletes a clock', async () => {
    const created = await commerce('test-clocks', 'create', '--org', org, '--frozen-time', '2027-01-31', '--name', 'Renewals', '--json');
    expect(created.code, created.stderr).toBe(0);
    const clock = JSON.parse(created.stdout) as Body;
    expect(clock).toMatchObject({ id: expect.stringMatching(/^clock_/), name: 'Renewals', frozen_time: Date.UTC(2027, 0, 31) / 1000, status: 'ready' });

    const advanced = await commerce('test-clocks', 'advance', clock.id, '--org', org, '--frozen-time', '2027-02-28T12:00:00Z');
    expect(advanced.code, advanced.stderr).toBe(0);
    expect(advanced.stdout).toContain(`test clock advancing: ${clock.id} (Renewals)  advancing  frozen at 2027-02-28T12:00:00Z`);
    // The running service's advance job finishes what the CLI began.
    await waitFor('the service to finish the advance', () => loadTestClock(server.services, clock.id), (c) => c?.status === 'ready');
    const shown = await commerce('test-clocks', 'show', clock.id, '--org', org, '--json');
    expect(JSON.parse(shown.stdout)).toMatchObject({ id: clock.id, status: 'ready', frozen_time: Date.UTC(2027, 1, 28, 12) / 1000 });

    const backwards = await commerce('test-clocks', 'advance', clock.id, '--org', org, '--frozen-time', '2027-01-01');
    expect(backwards.code).not.toBe(0);
    expect(backwards.stderr).toContain('A test clock only moves forward');
    const deleted = await commerce('test-clocks', 'delete', clock.id, '--org', org);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toContain(`test clock ${clock.id} deleted`);
    const gone = await commerce('test-clocks', 'show', clock.id, '--org', org);
    expect(gone.code).not.toBe(0);
    expect(gone.stderr).toContain('Test clock not found.');
  });

  it('refuses a time it cannot read exactly, and another organization’s clock', async () => {
    for (const time of ['2027-01-31T09:00:00', 'tomorrow', '1.5']) {
      const refused = await commerce('test-clocks', 'create', '--org', org, '--frozen-time', time);
      expect(refused.code, time).toBe(2);
      expect(refused.stderr).toContain('--frozen-time takes Unix seconds');
    }
    const clock = JSON.parse((await commerce('test-clocks', 'create', '--org', org, '--frozen-time', '1800000000', '--json')).stdout) as Body;
    const other = await commerce('test-clocks', 'show', clock.id, '--org', 'org_someoneelse');
    expect(other.stderr).toContain('Test clock not found.');
  });
});
