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

// Each CLI run starts TypeScript through tsx: 1 to 3 s on a quiet machine, 5 to 14 s measured on
// a loaded two-core one. The story below ran eleven of them in one test, 35 s beside a full run and
// past 120 s under more load; it is three tests now, each with room for its few runs.
describe('commerce CLI: demo, trigger, sequence, promo, workflow', { timeout: 120_000 }, () => {
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));
  type Demo = { token: string; catch_url: string; trigger_id: number; promo: { slug: string }; products: string[] };
  let demo: Demo;
  let answerId = 0;

  it('demo prints a working catch URL, trigger id and promo; a webhook to it runs the workflow', async () => {
    demo = JSON.parse(await cli('demo', '--json')) as Demo;
    expect(demo).toMatchObject({ trigger_id: expect.any(Number), promo: { slug: 'demo-launch' }, organization: { id: 'org_demo' } });
    expect(demo.catch_url).toMatch(/^http:\/\/127\.0\.0\.1:3999\/hooks\/catch\/[\w-]{22,}\/[\w-]{22,}$/);
    const again = JSON.parse(await cli('demo', '--json')) as Demo;
    expect(again.catch_url).toBe(demo.catch_url);

    const server = await startTestServer({ dataDir });
    const path = new URL(demo.catch_url).pathname;
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
  });

  it('workflow show, promo list, sequence list and trigger list report what the webhook did', async () => {
    expect(answerId).toBeGreaterThan(0);
    const shown = JSON.parse(await cli('workflow', 'show', String(answerId), '--json')) as Record<string, unknown>;
    expect(shown).toMatchObject({ workflow_id: answerId, status: 'completed', steps: [{ step: 0, action: 'enrol_in_promo', status: 'succeeded', result: { email: 'fan@example.com', reference: 'c1' } }] });
    expect(JSON.parse(await cli('promo', 'list', '--json'))).toMatchObject([{ slug: 'demo-launch', state: 'active', participants_count: 1, current_tier: 'Early bird' }]);
    expect(JSON.parse(await cli('sequence', 'list', '--json'))).toMatchObject([{ status: 'active', actions: [{ type: 'enrol_in_promo', promo: 'demo-launch' }] }]);
    const listed = JSON.parse(await cli('trigger', 'list', '--json')) as Array<{ trigger_id: number; catch_url: string; received_count: number }>;
    expect(listed).toMatchObject([{ trigger_id: demo.trigger_id, catch_url: demo.catch_url, received_count: 1 }]);
  });

  it('trigger replace retires the old catch URL; sequence pause makes the new one skip', async () => {
    const path = new URL(demo.catch_url).pathname;
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
  });

  it('workflow show refuses an unknown id', async () => {
    await expect(cli('workflow', 'show', '999999')).rejects.toMatchObject({ stderr: expect.stringContaining('Workflow not found.') });
  });
});
