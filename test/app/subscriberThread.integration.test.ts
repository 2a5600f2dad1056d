import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSequence, createTrigger } from '../../modules/automation/automationCommands.ts';
import { allProjections } from '../../app/allProjections.ts';
import { eventually, startReceiver } from '../helpers/receiver.ts';
import { caughtUp, seedIdentity, startServerProcess, tempDataDir, withServices, type ServerProcess } from '../helpers/serverProcess.ts';

/** The value of one series in a Prometheus exposition, or 0 when absent. */
function sample(text: string, name: string, labels: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

/**
 * `commerce serve` with its projections and background jobs on the subscriber thread, and in its
 * own thread (a machine with one core): the same behaviour from outside either way.
 */
describe.each(['true', 'false'])('serve with SUBSCRIBER_THREAD=%s', (mode) => {
  const dataDir = tempDataDir('commerce-thread-');
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let proc: ServerProcess;
  let token: string;
  let catchPath: string;
  beforeAll(async () => {
    receiver = await startReceiver();
    let organizationId: string;
    ({ organizationId, token } = await seedIdentity(dataDir, 'Thread Org'));
    catchPath = await withServices(dataDir, async (_s, ctx) => {
      const action = { type: 'send_webhook' as const, url: `${receiver.url}/hook`, method: 'POST' as const, payload: '{"email":"{{webhook_payload.email}}"}', headers: {}, signing_secret: null };
      const sequence = await createSequence(ctx(organizationId), { organizationId, name: 'Thread', actions: [action] });
      const trigger = await createTrigger(ctx(organizationId), { organizationId, sequenceId: sequence.id, name: 'Thread' });
      return `/hooks/catch/${sequence.route_key}/${trigger.route_key}`;
    });
    proc = await startServerProcess({ dataDir, env: { LOG_LEVEL: 'info', SUBSCRIBER_THREAD: mode, WEBHOOK_ALLOW_HOSTS: '127.0.0.1' } });
  }, 60_000);
  afterAll(async () => {
    await proc?.stop();
    await receiver?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('says where its subscribers run', async () => {
    // Its jobs log taking their leases after the line that says where they run.
    await eventually(async () => proc.output().includes('lease taken'), 20_000);
    expect(proc.output().includes('projections and background jobs run on the subscriber thread')).toBe(mode === 'true');
  });

  it.runIf(process.platform === 'linux')('gives the subscriber thread, alone, a lower priority than the thread that answers requests', () => {
    // The 19th field of a task's stat is its nice value; the process's own task is its main thread.
    const niceOf = (tid: string) => Number(readFileSync(`/proc/${proc.child.pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
    const main = niceOf(String(proc.child.pid));
    const others = readdirSync(`/proc/${proc.child.pid}/task`).map(niceOf);
    // Five steps below the main thread (the test may itself run under nice), at most 19.
    expect(others.filter((n) => n !== main)).toEqual(mode === 'true' && main < 19 ? [Math.min(19, main + 5)] : []);
  });

  it('runs the workflow a webhook starts, projects it, and counts what the subscribers did in /metrics', async () => {
    const caught = await fetch(`${proc.url}${catchPath}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":"thread@example.com"}' });
    expect(caught.status).toBe(200);
    const { workflow_id: workflowId } = (await caught.json()) as { workflow_id: number };
    // The background job called the receiver…
    await eventually(async () => receiver.calls.find((c) => c.body.includes('thread@example.com')), 20_000);
    // …and the projections applied what it recorded, read through the API's own read store.
    const workflow = await eventually(async () => {
      const response = await fetch(`${proc.url}/api/automation/workflows/${workflowId}`, { headers: { authorization: `Bearer ${token}` } });
      const body = response.status === 200 ? ((await response.json()) as { status: string }) : null;
      return body?.status === 'completed' ? body : null;
    }, 20_000);
    expect(workflow.status).toBe('completed');
    // The job's outbound call and the events it appended are in the server's figures.
    const metrics = await eventually(async () => {
      const text = await (await fetch(`${proc.url}/metrics`)).text();
      return sample(text, 'outbound_webhooks_total', 'result="success"') >= 1 && sample(text, 'events_appended_total', 'type="WorkflowCompleted"') >= 1 ? text : null;
    }, 20_000);
    expect(sample(metrics, 'events_appended_total', 'type="WebhookReceived"')).toBeGreaterThanOrEqual(1);
    await caughtUp(proc.url);
  }, 60_000);

  it('stops on SIGTERM with every projection at the head of the log', async () => {
    await proc.stop();
    expect((await proc.exited).code).toBe(0);
    await withServices(dataDir, async (services) => {
      const head = await services.store.headPosition();
      for (const p of allProjections) expect(await services.readStore.readCheckpoint(p.name), p.name).toBe(head);
    });
  }, 60_000);
});

describe('a subscriber thread that cannot start', () => {
  it('fails the start of serve with its reason (a checkpoint past the log), rather than serving without projections', async () => {
    const dataDir = tempDataDir('commerce-thread-fail-');
    try {
      await seedIdentity(dataDir, 'Restored Org');
      const head = await withServices(dataDir, async (services) => {
        const at = (await services.store.headPosition())!;
        const [identity] = allProjections;
        await services.readStore.commit(identity!.name, [], { expected: at, next: at + 5000 });
        return at;
      });
      const started = startServerProcess({ dataDir, env: { LOG_LEVEL: 'warn', SUBSCRIBER_THREAD: 'true' } });
      const failure = await started.then(
        async (proc) => {
          await proc.stop();
          return 'it started';
        },
        (error: Error) => error.message,
      );
      expect(failure).toContain(`past the end of the event log (head ${head})`);
      expect(failure).toMatch(/server exited \(1\)/);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 60_000);
});
