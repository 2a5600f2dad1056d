import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSequence, createTrigger } from '../../modules/automation/automationCommands.ts';
import { publishOffer, upsertOffer } from '../../modules/checkout/offerCommands.ts';
import type { RecordedEvent } from '../../platform/eventStore/eventStore.ts';
import { openSqliteEventStore } from '../../platform/eventStore/sqlite/sqliteEventStore.ts';
import { openSqliteReadStore } from '../../platform/readStore/sqlite/sqliteReadStore.ts';
import { allProjections } from '../../app/allProjections.ts';
import { rebuildProjection } from '../../platform/es/projectionRunner.ts';
import { servedReadModels } from '../../platform/es/readModelGenerations.ts';
import { offerContent } from '../checkout/checkoutFixtures.ts';
import { answerOkAfter, eventually, startReceiver } from '../helpers/receiver.ts';
import { seedIdentity, startServerProcess, tempDataDir, withServices, type ServerProcess } from '../helpers/serverProcess.ts';

const CARD = { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' };
const ENV = {
  LOG_LEVEL: 'warn',
  CHECKOUT_RATE_LIMIT: '1000000',
  CATCH_RATE_LIMIT_MAX: '1000000',
  WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
  WEBHOOK_RETRY_BASE_MS: '20',
  WEBHOOK_TIMEOUT_MS: '2000',
  // The restart's automation waits out the killed process's lease: 3 s, not the default 15 s.
  LEASE_TTL_MS: '3000',
};

type Acknowledged = { kind: string; requestId: string; status: number; body: Record<string, unknown> };

/**
 * Kill -9 in the middle of a write load, restart on the same files, and check that nothing a
 * client was told succeeded is lost, that the read models equal a rebuild from the log, and
 * that no workflow step was delivered twice except the one a crash interrupted (at least once).
 */
describe('crash: SIGKILL under load, then restart on the same data', () => {
  const dataDir = tempDataDir('commerce-crash-');
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let token: string;
  let catchPath: string;
  let proc: ServerProcess | undefined;

  beforeAll(async () => {
    // A receiver that takes its time, so steps are in flight when the process dies.
    receiver = await startReceiver(answerOkAfter(15));
    let organizationId: string;
    ({ token, organizationId } = await seedIdentity(dataDir, 'Crash Org'));
    catchPath = await withServices(dataDir, async (_s, ctx) => {
      const offer = await upsertOffer(ctx(organizationId), { organizationId, slug: 'crash-offer', ...offerContent() });
      await publishOffer(ctx(organizationId), offer.uuid);
      const action = (n: number) => ({
        type: 'send_webhook' as const,
        url: `${receiver.url}/step${n}`,
        method: 'POST' as const,
        payload: '{"email":"{{webhook_payload.email}}"}',
        headers: {},
        signing_secret: null,
      });
      const sequence = await createSequence(ctx(organizationId), { organizationId, name: 'Crash', actions: [action(0), action(1)] });
      const trigger = await createTrigger(ctx(organizationId), { organizationId, sequenceId: sequence.id, name: 'Crash' });
      return `/hooks/catch/${sequence.route_key}/${trigger.route_key}`;
    });
  }, 60_000);
  afterAll(async () => {
    if (proc && proc.child.exitCode === null) proc.child.kill('SIGKILL');
    await proc?.exited;
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps every acknowledged write, converges read models and runs no step twice', async () => {
    proc = await startServerProcess({ dataDir, env: ENV });
    const url = proc.url;
    const acknowledged: Acknowledged[] = [];
    let stop = false;
    const call = async (kind: string, path: string, body: unknown): Promise<Record<string, unknown> | null> => {
      try {
        const response = await fetch(`${url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify(body),
        });
        const json = (await response.json()) as Record<string, unknown>;
        if (response.ok) acknowledged.push({ kind, requestId: response.headers.get('x-request-id')!, status: response.status, body: json });
        return response.ok ? json : null;
      } catch {
        return null; // The process died under this request: it was never acknowledged.
      }
    };
    const buyer = async () => {
      while (!stop) {
        const created = await call('session', '/api/checkout/sessions', { offer: 'crash-offer' });
        const id = (created?.session as { id?: string } | undefined)?.id;
        if (!id) continue;
        if (!(await call('start', `/api/checkout/sessions/${id}/start`, {}))) continue;
        await call('pay', `/api/checkout/sessions/${id}/pay`, { card: CARD });
      }
    };
    let leads = 0;
    const sender = async () => {
      while (!stop) await call('catch', catchPath, { email: `lead${leads++}@example.com` });
    };
    const load = [buyer(), buyer(), buyer(), sender(), sender(), sender()];
    // Kill once enough has been acknowledged and workflow deliveries are under way.
    await eventually(async () => acknowledged.length >= 60 && receiver.calls.length >= 5, 30_000);
    proc.child.kill('SIGKILL');
    expect((await proc.exited).signal).toBe('SIGKILL');
    stop = true;
    await Promise.all(load);
    const killedAt = await withServices(dataDir, async (s) => (await s.store.headPosition()) ?? 0);

    // Restart on the same files; let the automation worker and projections finish. The automation
    // starts once the killed process's lease on it has run out (LEASE_TTL_MS).
    proc = await startServerProcess({ dataDir, env: ENV });
    const workflowIds = acknowledged.filter((a) => a.kind === 'catch').map((a) => a.body.workflow_id as number);
    expect(workflowIds.every((id) => Number.isInteger(id))).toBe(true);
    // Every workflow in the log finishes, acknowledged or not (read straight from the log, as a second process may).
    const reader = openSqliteEventStore({ file: join(dataDir, 'commerce.db') });
    try {
      await eventually(async () => {
        const log = await reader.readAll({ after: null, limit: 10_000_000 });
        const started = log.filter((e) => e.type === 'WebhookReceived' && (e.data as { outcome?: { status: string } }).outcome?.status === 'started').length;
        const finished = log.filter((e) => e.type === 'WorkflowCompleted' || e.type === 'WorkflowFailed').length;
        return started > 0 && started === finished;
      }, 30_000);
    } finally {
      await reader.close();
    }
    for (const id of workflowIds) {
      const r = await fetch(`${proc.url}/api/automation/workflows/${id}`, { headers: { authorization: `Bearer ${token}` } });
      expect(((await r.json()) as { status: string }).status).toBe('completed');
    }
    await eventually(async () => (await fetch(`${proc!.url}/readyz`)).status === 200, 10_000);
    // Every paid session reads completed through the restarted server.
    for (const paid of acknowledged.filter((a) => a.kind === 'pay')) {
      const id = (paid.body.session as { id: string }).id;
      const r = await fetch(`${proc.url}/api/checkout/sessions/${id}`);
      expect(((await r.json()) as { session: { status: string } }).session.status).toBe('completed');
    }
    proc.child.kill('SIGTERM');
    expect((await proc.exited).code).toBe(0);

    await withServices(dataDir, async (services) => {
      const log: RecordedEvent[] = await services.store.readAll({ after: null, limit: 10_000_000 });
      // 1. Every acknowledged request is in the log, under the request id it answered with.
      const correlations = new Set(log.map((e) => e.metadata.correlation_id));
      const lost = acknowledged.filter((a) => !correlations.has(a.requestId));
      expect(lost, `acknowledged but not in the log: ${JSON.stringify(lost.slice(0, 3))}`).toEqual([]);

      // 2. Read models equal a rebuild from the log into a fresh store.
      const dir = mkdtempSync(join(tmpdir(), 'commerce-crash-rebuild-'));
      const fresh = openSqliteReadStore({ file: join(dir, 'fresh.db') });
      // The rebuilt read models as readers see them (the generation a rebuild switched to).
      const rebuilt = servedReadModels(fresh, allProjections, 0);
      try {
        for (const projection of allProjections) {
          await rebuildProjection(services.store, fresh, projection);
          expect(await services.readStore.readCheckpoint(projection.name)).toBe(await rebuilt.readCheckpoint(projection.name));
          for (const collection of projection.collections) {
            expect(await services.readStore.find(collection), `${projection.name}/${collection}`).toEqual(await rebuilt.find(collection));
          }
        }
      } finally {
        await fresh.close();
        rmSync(dir, { recursive: true, force: true });
      }

      // 3. Each step completed once in the log; a step delivered twice must be one the crash interrupted.
      const completed = log.filter((e) => e.type === 'WorkflowStepCompleted');
      const keys = completed.map((e) => {
        const d = e.data as { workflow_id: number; step: number };
        return `wf_${d.workflow_id}_step_${d.step}`;
      });
      expect(new Set(keys).size).toBe(keys.length);
      // Workflows the log started: the acknowledged ones, plus any whose answer the crash cut off.
      const started = log
        .filter((e) => e.type === 'WebhookReceived')
        .flatMap((e) => ((e.data as { outcome?: { workflow_id?: number } }).outcome?.workflow_id ?? []) as number[]);
      for (const id of workflowIds) expect(started).toContain(id);
      expect(completed.length).toBe(started.length * 2);
      const deliveries = new Map<string, number>();
      for (const c of receiver.calls) {
        const key = String(c.headers['idempotency-key']);
        deliveries.set(key, (deliveries.get(key) ?? 0) + 1);
      }
      expect([...deliveries.keys()].sort()).toEqual([...keys].sort());
      const completedAfterCrash = new Set(completed.filter((e) => e.position > killedAt).map((e) => keys[completed.indexOf(e)]));
      const twice = [...deliveries].filter(([, n]) => n > 1).map(([k]) => k);
      for (const key of twice) expect(completedAfterCrash.has(key), `${key} delivered twice though completed before the crash`).toBe(true);
      console.log(
        `crash: ${acknowledged.length} acknowledged writes (${workflowIds.length} workflows) all in the log; ${log.length} events; ${twice.length} step(s) redelivered after the crash (same idempotency key)`,
      );
    });
  }, 120_000);
});
