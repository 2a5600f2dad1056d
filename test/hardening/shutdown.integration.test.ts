import { request as httpRequest } from 'node:http';
import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSequence, createTrigger } from '../../modules/automation/automationCommands.ts';
import { join } from 'node:path';
import { createOrganization } from '../../modules/identity/identityCommands.ts';
import { openSqliteEventStore } from '../../platform/eventStore/sqlite/sqliteEventStore.ts';
import { allProjections } from '../../app/allProjections.ts';
import { identityProjection } from '../../modules/identity/identityProjection.ts';
import { openSqliteReadStore } from '../../platform/readStore/sqlite/sqliteReadStore.ts';
import { eventually } from '../helpers/receiver.ts';
import { seedIdentity, startServerProcess, tempDataDir, withServices, type ServerProcess } from '../helpers/serverProcess.ts';

/**
 * A POST whose body arrives in two halves: the first now, the rest when `finish()` is called. A
 * slow client, in flight until then.
 */
function slowPost(url: string, path: string, body: string): { answer: Promise<{ status: number; body: string }>; finish(): void } {
  let finish = () => undefined as void;
  const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    const half = Math.floor(body.length / 2);
    req.write(body.slice(0, half));
    req.flushHeaders();
    finish = () => req.end(body.slice(half));
  });
  return { answer, finish: () => finish() };
}

describe('graceful shutdown of the real server process', () => {
  const dataDir = tempDataDir('commerce-shutdown-');
  let proc: ServerProcess;
  let catchPath: string;
  beforeAll(async () => {
    const { organizationId } = await seedIdentity(dataDir, 'Shutdown Org');
    catchPath = await withServices(dataDir, async (_s, ctx) => {
      const sequence = await createSequence(ctx(organizationId), { organizationId, name: 'Shutdown', actions: [] });
      const trigger = await createTrigger(ctx(organizationId), { organizationId, sequenceId: sequence.id, name: 'Shutdown' });
      return `/hooks/catch/${sequence.route_key}/${trigger.route_key}`;
    });
    proc = await startServerProcess({ dataDir, env: { LOG_LEVEL: 'info' } });
  }, 60_000);
  afterAll(async () => {
    if (proc.child.exitCode === null) proc.child.kill('SIGKILL');
    await proc.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('on SIGTERM finishes the request in flight, stops projections at the head, stores their checkpoints and exits 0', async () => {
    // Some writes before, so the projections have work at the moment of the signal.
    for (let i = 0; i < 5; i++) {
      const r = await fetch(`${proc.url}${catchPath}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"email":"early${i}@example.com"}` });
      expect(r.status).toBe(200);
      await r.arrayBuffer();
    }
    const cli = openSqliteEventStore({ file: join(dataDir, 'commerce.db') });
    // The server stores the checkpoints of projections that wrote nothing lazily: identity's
    // stays where the seeding left it, until the shutdown stores it (asserted at the end).
    const readStore = openSqliteReadStore({ file: join(dataDir, 'commerce.db') });
    try {
      expect(await readStore.readCheckpoint(identityProjection.name)).toBeLessThan((await cli.headPosition())!);
    } finally {
      await readStore.close();
    }
    // Each step waits for the server to show it got there, not for fixed delays (300 ms to hold
    // the request, 800 ms to handle the signal), which a busy machine may overrun.
    const logged = proc.output().length;
    const slow = slowPost(proc.url, catchPath, JSON.stringify({ email: 'slow@example.com', ref: 'x'.repeat(400) }));
    // The server holds the request (headers and half the body) once it logs it.
    await eventually(async () => proc.output().slice(logged).includes('incoming request'), 20_000);
    proc.child.kill('SIGTERM');
    await eventually(async () => proc.output().includes('SIGTERM: finishing in-flight requests'), 20_000);
    // Just before the slow request completes (and the server goes on to stop its subscribers),
    // another process (the CLI, say) appends: the projections have not polled these yet, and
    // must still apply them before the process exits. In the log before the request completes:
    // the server reads the head it stops at only after that.
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        createOrganization(
          { store: cli, metadata: { correlation_id: 'cli-during-shutdown', actor: { type: 'cli' }, organization_id: null, occurred_at: 1_800_000_000 } },
          { name: `Late ${i}`, timezone: 'UTC' },
        ),
      ),
    );
    slow.finish();
    const answer = await slow.answer;
    await cli.close();
    expect(answer.status, answer.body).toBe(200);
    const workflowId = (JSON.parse(answer.body) as { workflow_id: number }).workflow_id;
    expect(Number.isInteger(workflowId)).toBe(true);

    // New connections are refused once the signal is in.
    await expect(fetch(`${proc.url}/healthz`)).rejects.toThrow();
    const exit = await proc.exited;
    expect(exit.code).toBe(0);
    expect(proc.output()).toContain('SIGTERM: finishing in-flight requests');

    await withServices(dataDir, async (services) => {
      const head = await services.store.headPosition();
      for (const p of allProjections) expect(await services.readStore.readCheckpoint(p.name), p.name).toBe(head);
      const log = await services.store.readAll({ after: null, limit: 100_000 });
      // The slow request's write is in the log: the reception that started its workflow.
      expect(log.some((e) => e.type === 'WebhookReceived' && (e.data as { outcome?: { workflow_id?: number } }).outcome?.workflow_id === workflowId)).toBe(true);
    });
  }, 60_000);
});
