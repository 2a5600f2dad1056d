import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ENV } from '../automation/fixtures.ts';
import { eventually, startReceiver } from '../helpers/receiver.ts';
import { signedInPerson, type ManageClient } from '../helpers/manageClient.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

type Workflow = { id: number; status: string; steps: Array<{ step: number; status: string }> };

describe('re-running a failed workflow', () => {
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let failing = true;
  let owner: ManageClient;
  let stranger: ManageClient;
  beforeAll(async () => {
    server = await startTestServer({ env: TEST_ENV });
    receiver = await startReceiver((call, res: ServerResponse) => {
      const ok = call.url === '/first' || !failing;
      res.writeHead(ok ? 200 : 500, { 'content-type': 'application/json' });
      res.end(ok ? '{"ok":true}' : '{"ok":false}');
    });
    owner = (await signedInPerson(server)).client;
    stranger = (await signedInPerson(server)).client;
  });
  afterAll(async () => {
    await receiver.close();
    await server.close({ remove: true });
  });

  it('runs again from the failed step (the steps before it are not repeated), once the receiver recovers', async () => {
    const created = await owner.json<{ triggers: Array<{ catch_url: string }> }>('POST', '/manage/api/sequences', {
      key: 'two-steps',
      name: 'Two steps',
      actions: [
        { type: 'send_webhook', url: `${receiver.url}/first`, payload: '{}' },
        { type: 'send_webhook', url: `${receiver.url}/second`, payload: '{}' },
      ],
      triggers: [{ key: 'form', name: 'Form' }],
    });
    const caught = await server.fetch(new URL(created.body.triggers[0]!.catch_url).pathname, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    const { workflow_id: id } = (await caught.json()) as { workflow_id: number };
    const failed = await eventually(async () => {
      await server.settle();
      const w = await owner.json<Workflow>('GET', `/manage/api/workflows/${id}`);
      return w.body.status === 'failed' ? w.body : null;
    }, 30_000);
    expect(failed.steps.map((s) => s.status)).toEqual(['succeeded', 'failed']);
    expect((await stranger.json('POST', `/manage/api/workflows/${id}/rerun`)).status).toBe(404);
    expect(await stranger.json('POST', `/manage/api/workflows/${id}/rerun`)).toEqual(await stranger.json('POST', '/manage/api/workflows/99999999/rerun'));

    failing = false;
    const firstCalls = receiver.calls.filter((c) => c.url === '/first').length;
    const rerun = await owner.json('POST', `/manage/api/workflows/${id}/rerun`);
    expect(rerun).toEqual({ status: 202, body: { workflow_id: id, from_step: 1 } });
    const completed = await eventually(async () => {
      await server.settle();
      const w = await owner.json<Workflow>('GET', `/manage/api/workflows/${id}`);
      return w.body.status === 'completed' ? w.body : null;
    }, 30_000);
    expect(completed.steps.map((s) => s.status)).toEqual(['succeeded', 'succeeded']);
    expect(receiver.calls.filter((c) => c.url === '/first')).toHaveLength(firstCalls);
    expect((await owner.json('POST', `/manage/api/workflows/${id}/rerun`)).body).toMatchObject({ code: 'workflow_not_failed' });
  });
});
