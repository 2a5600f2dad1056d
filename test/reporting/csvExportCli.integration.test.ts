import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrganization } from '../../modules/identity/identityCommands.ts';
import { GOOD_CARD, json, makeOffer } from '../checkout/checkoutFixtures.ts';
import { runCli } from '../helpers/serverProcess.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

describe('commerce export', { timeout: 120_000 }, () => {
  let server: TestServer;
  let org: { organizationId: string; token: string };
  const out = mkdtempSync(join(tmpdir(), 'commerce-export-'));

  beforeAll(async () => {
    server = await startTestServer();
    org = await server.identity('Export CLI');
    await makeOffer(server, org.organizationId, { slug: 'cli-export' });
    for (const email of ['a@example.com', 'b@example.com']) {
      const created = await server.fetch('/api/checkout/sessions', json({ offer: 'cli-export' }));
      const id = ((await created.json()) as { session: { id: string } }).session.id;
      expect((await server.fetch(`/api/checkout/sessions/${id}/pay`, json({ card: GOOD_CARD, email }))).status).toBe(200);
    }
    await server.settle();
  });
  afterAll(async () => {
    await server.close({ remove: true });
    rmSync(out, { recursive: true, force: true });
  });

  it('writes the file the API answers, without --org when there is one organization', async () => {
    const file = join(out, 'sales.csv');
    const run = await runCli(['export', 'sales', '--from', '2000-01-01', '--out', file], { DATA_DIR: server.dataDir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(`wrote 2 sales of ${org.organizationId} to ${file}`);
    const api = await (await server.fetch('/api/exports/sales.csv?from=2000-01-01', { token: org.token })).text();
    expect(readFileSync(file, 'utf8')).toBe(api);
    expect(api.split('\r\n')).toHaveLength(4);
  });

  it('asks for --org once there are several, and refuses a bad date as a usage error', async () => {
    await createOrganization(server.cliContext(), { name: 'Second', timezone: 'UTC' });
    await server.settle();
    const file = join(out, 'invoices.csv');
    const ambiguous = await runCli(['export', 'invoices', '--out', file], { DATA_DIR: server.dataDir });
    expect(ambiguous.code).toBe(2);
    expect(ambiguous.stderr).toContain('export invoices: --org is required, as there are several organizations');
    const badDate = await runCli(['export', 'invoices', '--org', org.organizationId, '--from', 'last week', '--out', file], { DATA_DIR: server.dataDir });
    expect(badDate.code).toBe(2);
    expect(badDate.stderr).toContain('--from: The from must be a date (YYYY-MM-DD) or Unix seconds.');
    const named = await runCli(['export', 'invoices', '--org', org.organizationId, '--out', file, '--json'], { DATA_DIR: server.dataDir });
    expect(named.code, named.stderr).toBe(0);
    expect(JSON.parse(named.stdout)).toMatchObject({ kind: 'invoices', rows: 2, file });
  });
});
