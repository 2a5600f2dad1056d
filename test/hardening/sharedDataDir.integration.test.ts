import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSequence, createTrigger } from '../../modules/automation/automationCommands.ts';
import { answerOkAfter, eventually, startReceiver } from '../helpers/receiver.ts';
import { seedIdentity, startServerProcess, tempDataDir, withServices, type ServerProcess } from '../helpers/serverProcess.ts';

const ENV = {
  LOG_LEVEL: 'warn',
  CATCH_RATE_LIMIT_MAX: '1000000',
  WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
  // Long enough that a holder stalled by a busy machine (its renewal is due every third of this)
  // keeps its lease: a lapse lets the other server start the same steps, by design (a lease
  // shares work; the idempotency key makes the overlap harmless), and this test counts deliveries.
  // With 1.5 s a stall of about a second would do; the takeover below waits at most this long.
  LEASE_TTL_MS: '5000',
};

/**
 * Two `serve` processes on one data directory, as a process manager's cluster mode starts them:
 * both take catch requests, but one runs the automation at a time (a lease on the job), and when
 * it dies the other takes over. Before the lease, both ran every workflow they saw, so a receiver
 * slower than the second server's poll got each step twice.
 */
describe('two servers on one data directory', () => {
  const dataDir = tempDataDir('commerce-shared-');
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let catchPath: string;
  const servers: ServerProcess[] = [];

  beforeAll(async () => {
    // Slow enough that a second runner would start the step before the first one completes it.
    receiver = await startReceiver(answerOkAfter(800));
    const { organizationId } = await seedIdentity(dataDir, 'Shared Org');
    catchPath = await withServices(dataDir, async (_s, ctx) => {
      const action = { type: 'send_webhook' as const, url: `${receiver.url}/hook`, method: 'POST' as const, payload: '{"email":"{{webhook_payload.email}}"}', headers: {}, signing_secret: null };
      const sequence = await createSequence(ctx(organizationId), { organizationId, name: 'Shared', actions: [action] });
      const trigger = await createTrigger(ctx(organizationId), { organizationId, sequenceId: sequence.id, name: 'Shared' });
      return `/hooks/catch/${sequence.route_key}/${trigger.route_key}`;
    });
    servers.push(await startServerProcess({ dataDir, env: ENV }), await startServerProcess({ dataDir, env: ENV }));
  }, 60_000);

  afterAll(async () => {
    for (const s of servers) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
    await Promise.all(servers.map((s) => s.exited));
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const send = async (server: ServerProcess, email: string): Promise<number> => {
    const response = await fetch(`${server.url}${catchPath}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
    expect(response.status).toBe(200);
    return ((await response.json()) as { workflow_id: number }).workflow_id;
  };
  /** Idempotency keys the receiver got, with how often. */
  const deliveries = () => {
    const counts = new Map<string, number>();
    for (const call of receiver.calls) {
      const key = String(call.headers['idempotency-key']);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    return counts;
  };
  const delivered = (ids: number[]) => eventually(async () => ids.every((id) => deliveries().has(`wf_${id}_step_0`)), 30_000);
  /** The pid in the owner of the automation job's lease (owners are `<host>-<pid>-<random>`). */
  const automationHolder = (): number | null => {
    const db = new Database(join(dataDir, 'commerce.db'), { readonly: true });
    try {
      const row = db.prepare<[string, number], { owner: string }>('SELECT owner FROM leases WHERE name = ? AND expires_at > ?').get('job:automation', Date.now());
      return row ? Number(/-(\d+)-[^-]+$/.exec(row.owner)?.[1]) : null;
    } finally {
      db.close();
    }
  };

  it('runs each workflow once, whichever server caught its webhook', async () => {
    const ids: number[] = [];
    for (let i = 0; i < 6; i++) ids.push(await send(servers[i % 2]!, `lead${i}@example.com`));
    await delivered(ids);
    // Time for a second delivery to show up, were another runner working on the same workflows.
    await new Promise((r) => setTimeout(r, 1500));
    const counts = deliveries();
    expect(ids.map((id) => counts.get(`wf_${id}_step_0`))).toEqual(ids.map(() => 1));
    expect(servers.map((s) => s.child.pid)).toContain(automationHolder());
  }, 60_000);

  it('the other server takes the automation over when the one running it dies', async () => {
    const holder = servers.find((s) => s.child.pid === automationHolder())!;
    const survivor = servers.find((s) => s !== holder)!;
    holder.child.kill('SIGKILL');
    await holder.exited;
    const ids = [await send(survivor, 'after1@example.com'), await send(survivor, 'after2@example.com')];
    // Within the dead holder's lease lifetime (5 s) and a renewal tick of the survivor's.
    await delivered(ids);
    expect(automationHolder()).toBe(survivor.child.pid);
    const counts = deliveries();
    expect(ids.map((id) => counts.get(`wf_${id}_step_0`))).toEqual([1, 1]);
  }, 60_000);
});
