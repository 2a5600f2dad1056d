import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { AUTOMATION_CHECKPOINT } from '../../modules/automation/jobs/workflowRunner.ts';
import { openSqliteEventStore } from '../../platform/eventStore/sqlite/sqliteEventStore.ts';
import { webhookReceptionStream } from '../../modules/automation/domain/webhookReception.ts';
import { newEvent } from '../contracts/eventStoreContract.ts';
import { eventually, startReceiver } from '../helpers/receiver.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { automationFixture, TEST_ENV, webhookAction } from './fixtures.ts';

const run = promisify(execFile);
const dirs: string[] = [];
const servers: TestServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

type Workflow = { workflow_id: number; trigger_id: number; status: string; steps: Array<{ status: string }> };

async function workflow(server: TestServer, token: string, id: number): Promise<Workflow | null> {
  const response = await server.fetch(`/api/automation/workflows/${id}`, { token });
  return response.status === 200 ? ((await response.json()) as Workflow) : null;
}

/** Waits until the automation subscriber has handled every reception in the log (and so run whatever it would run). */
async function automationCaughtUp(server: TestServer): Promise<void> {
  const log = await server.services.store.readAll({ after: null, limit: 100_000, streamPrefixes: ['automation_webhook-'] });
  const last = log[log.length - 1]!.position;
  await eventually(async () => ((await server.services.readStore.readCheckpoint(AUTOMATION_CHECKPOINT)) ?? 0) >= last, 30_000);
}

describe('workflow ids after `commerce events copy`', () => {
  it('mean the same workflows in the copy: none runs again, each id finds its workflow, new ids go on above', async () => {
    const receiver = await startReceiver();
    const source = await startTestServer({ env: TEST_ENV });
    servers.push(source);
    dirs.push(source.dataDir);
    const me = await source.identity();
    const f = await automationFixture(source, me.organizationId, [webhookAction(`${receiver.url}/hook`)]);

    // A reception recorded before receptions carried their outcome: WebhookReceived, then
    // WorkflowStarted, whose log position was the workflow's id.
    const legacy = await source.services.store.append(
      webhookReceptionStream('legacy-1'),
      [
        newEvent('WebhookReceived', {
          trigger_id: f.trigger.id,
          sequence_id: f.sequence.id,
          organization_id: me.organizationId,
          method: 'POST',
          webhook_payload: { email: 'legacy@example.com' },
          webhook_query: {},
          headers: {},
          received_at: 1_700_000_000,
          dedupe_key: null,
        }),
        newEvent('WorkflowStarted', {
          trigger_id: f.trigger.id,
          sequence_id: f.sequence.id,
          organization_id: me.organizationId,
          actions: [webhookAction(`${receiver.url}/legacy`)],
          started_at: 1_700_000_000,
        }),
      ],
      'no_stream',
    );
    const ids = [legacy.position];
    for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) {
      const response = await source.fetch(f.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
      ids.push(((await response.json()) as { workflow_id: number }).workflow_id);
    }
    expect(new Set(ids).size).toBe(4);
    for (const id of ids) expect(Number.isSafeInteger(id)).toBe(true);
    const before = await Promise.all(
      ids.map((id) => eventually(async () => {
        const w = await workflow(source, me.token, id);
        return w?.status === 'completed' ? w : null;
      }, 30_000)),
    );
    expect(receiver.calls).toHaveLength(4);
    const keys = receiver.calls.map((c) => c.headers['idempotency-key']).sort();
    expect(keys).toEqual(ids.map((id) => `wf_${id}_step_0`).sort());
    const samples = async (server: TestServer) =>
      ((await (await server.fetch(`/api/automation/triggers/${f.trigger.id}/test`, { token: me.token })).json()) as { samples: Array<{ id: string }> }).samples;
    const samplesBefore = await samples(source);
    expect(samplesBefore).toHaveLength(4);
    await source.close();

    // The copy's log numbers its events differently (EventStoreDB's positions are byte offsets;
    // here the target already holds an event of its own), and its read store starts empty.
    const target = mkdtempSync(join(tmpdir(), 'commerce-copy-target-'));
    dirs.push(target);
    const seeded = openSqliteEventStore({ file: join(target, 'commerce.db') });
    await seeded.append('note-1', [newEvent('NoteWritten')], 'no_stream');
    await seeded.close();
    await run(process.execPath, ['bin/commerce.js', 'events', 'copy', '--from', source.dataDir, '--to', target], {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: target },
    });

    const copy = await startTestServer({ dataDir: target, env: TEST_ENV });
    servers.push(copy);
    await automationCaughtUp(copy);
    await copy.settle();
    // No receiver got a second call: every workflow was recognised as the one already run.
    expect(receiver.calls).toHaveLength(4);
    for (const [i, id] of ids.entries()) expect(await workflow(copy, me.token, id)).toEqual(before[i]);
    // The trigger test's samples keep their ids too (they were log positions).
    expect(await samples(copy)).toEqual(samplesBefore);

    // A webhook received by the copy starts a workflow under a new id, above the old ones.
    const response = await copy.fetch(f.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":"d@example.com"}' });
    const next = ((await response.json()) as { workflow_id: number }).workflow_id;
    expect(next).toBeGreaterThan(Math.max(...ids));
    const finished = await eventually(async () => {
      const w = await workflow(copy, me.token, next);
      return w?.status === 'completed' ? w : null;
    }, 30_000);
    expect(finished.trigger_id).toBe(f.trigger.id);
    expect(receiver.calls).toHaveLength(5);
    expect(receiver.calls[4]!.headers['idempotency-key']).toBe(`wf_${next}_step_0`);
    await receiver.close();
  }, 120_000);
});
