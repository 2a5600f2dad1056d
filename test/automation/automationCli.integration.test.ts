import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer } from '../helpers/testServer.ts';
import { eventually } from '../helpers/receiver.ts';

const run = promisify(execFile);
const dataDir = mkdtempSync(join(tmpdir(), 'commerce-cli-'));
// vitest sets BASE_URL=/ for its own use; the CLI must not see it.
const { BASE_URL: _vitestBase, ...env } = process.env;
const cli = async (...args: string[]) => {
  const { stdout } = await run(process.execPath, ['bin/commerce.js', ...args], { env: { ...env, DATA_DIR: dataDir, PORT: '3999', LOG_LEVEL: 'silent' } });
  return stdout;
};

describe('commerce CLI: demo, trigger, sequence, promo, workflow', () => {
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('demo prints a working catch URL, trigger id and promo; the commands manage them', async () => {
    const demo = JSON.parse(await cli('demo', '--json')) as { token: string; catch_url: string; trigger_id: number; promo: { slug: string }; products: string[] };
    expect(demo).toMatchObject({ trigger_id: expect.any(Number), promo: { slug: 'demo-launch' }, organization: { id: 'org_demo' } });
    expect(demo.catch_url).toMatch(/^http:\/\/127\.0\.0\.1:3999\/hooks\/catch\/[\w-]{22,}\/[\w-]{22,}$/);
    const again = JSON.parse(await cli('demo', '--json')) as typeof demo;
    expect(again.catch_url).toBe(demo.catch_url);

    const server = await startTestServer({ dataDir });
    const path = new URL(demo.catch_url).pathname;
    let answerId = 0;
    try {
      const answer = (await (await server.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":"fan@example.com","ref":"c1"}' })).json()) as {
        workflow_id: number;
      };
      expect(answer.workflow_id).toEqual(expect.any(Number));
      answerId = answer.workflow_id;
      await eventually(async () => {
        const r = await server.fetch(`/api/automation/workflows/${answer.workflow_id}`, { token: demo.token });
        return r.status === 200 && ((await r.json()) as { status: string }).status === 'completed';
      });
      const promo = (await (await server.fetch('/api/promos/demo-launch')).json()) as { participants_count: number };
      expect(promo.participants_count).toBe(1);
    } finally {
      await server.close();
    }

    const shown = JSON.parse(await cli('workflow', 'show', String(answerId), '--json')) as Record<string, unknown>;
    expect(shown).toMatchObject({ workflow_id: answerId, status: 'completed', steps: [{ step: 0, action: 'enrol_in_promo', status: 'succeeded', result: { email: 'fan@example.com', reference: 'c1' } }] });
    expect(JSON.parse(await cli('promo', 'list', '--json'))).toMatchObject([{ slug: 'demo-launch', state: 'active', participants_count: 1, current_tier: 'Early bird' }]);
    expect(JSON.parse(await cli('sequence', 'list', '--json'))).toMatchObject([{ status: 'active', actions: [{ type: 'enrol_in_promo', promo: 'demo-launch' }] }]);
    const listed = JSON.parse(await cli('trigger', 'list', '--json')) as Array<{ trigger_id: number; catch_url: string; received_count: number }>;
    expect(listed).toMatchObject([{ trigger_id: demo.trigger_id, catch_url: demo.catch_url, received_count: 1 }]);
    const replaced = JSON.parse(await cli('trigger', 'replace', String(demo.trigger_id), '--json')) as { catch_url: string };
    expect(replaced.catch_url).not.toBe(demo.catch_url);
    expect(JSON.parse(await cli('sequence', 'pause', '1', '--json'))).toMatchObject({ status: 'paused', changed: true });

    const restarted = await startTestServer({ dataDir });
    try {
      expect((await restarted.fetch(path, { method: 'POST' })).status).toBe(404);
      const skipped = await restarted.fetch(new URL(replaced.catch_url).pathname, { method: 'POST' });
      expect(await skipped.json()).toEqual({ success: true, message: 'Webhook received but trigger was skipped', workflow_id: null });
    } finally {
      await restarted.close();
    }
    // Each CLI run starts TypeScript through tsx (about 2 s on a busy machine).
  }, 120_000);

  it('workflow show refuses an unknown id', async () => {
    await expect(cli('workflow', 'show', '999999')).rejects.toMatchObject({ stderr: expect.stringContaining('Workflow not found.') });
  });
});
