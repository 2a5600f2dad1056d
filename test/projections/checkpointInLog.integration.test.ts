import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { compose } from '../../app/compose.ts';
import { loadConfig } from '../../platform/runtime/config.ts';
import { CHECKOUT_COMPLETION_CHECKPOINT, checkoutCompletionJob } from '../../modules/checkout/jobs/checkoutCompletion.ts';
import { RECEIPT_CHECKPOINT, receiptOutboxJob } from '../../modules/receipts/jobs/receiptOutbox.ts';
import { AUTOMATION_CHECKPOINT, automationJob } from '../../modules/automation/jobs/workflowRunner.ts';
import type { EventStore } from '../../platform/eventStore/eventStore.ts';
import { WEBHOOK_FANOUT_CHECKPOINT, webhooksJob } from '../../modules/webhooks/jobs/webhookJob.ts';
import { allProjections } from '../../app/allProjections.ts';
import { CheckpointAheadError } from '../../platform/es/assertCheckpointInLog.ts';
import { PROJECTION_VERSIONS, startProjections } from '../../platform/es/projectionRunner.ts';

const quiet = { error: () => undefined, info: () => undefined };
const metadata = { correlation_id: 'test', actor: { type: 'cli' as const }, organization_id: null, occurred_at: 1_700_000_000 };

async function appendOthers(store: EventStore, count: number): Promise<number> {
  let head = 0;
  for (let i = 0; i < count; i++) {
    ({ position: head } = await store.append(`load-${randomUUID()}`, [{ id: randomUUID(), type: 'LoadTested', data: {}, metadata }], 'no_stream'));
  }
  return head;
}

describe('subscriptions and their checkpoints against the log', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  const services = async () => {
    const dir = mkdtempSync(join(tmpdir(), 'checkpoint-in-log-'));
    cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
    const s = await compose(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }), { runProjections: false, logger: quiet });
    cleanup.push(() => s.close());
    return s;
  };

  it('refuses to start projections whose checkpoint is past the head (log restored, read store kept), naming the way out', async () => {
    const s = await services();
    const head = await appendOthers(s.store, 3);
    const [identity] = allProjections;
    await s.readStore.commit(identity!.name, [], { expected: null, next: head + 5000 });
    // Built by this version of its code, so the start does not rebuild it first.
    await s.readStore.upsert(PROJECTION_VERSIONS, { id: identity!.name, version: identity!.version ?? 1 });
    const started = startProjections(s.store, s.readStore, allProjections, quiet);
    // Without the check, it would start and wait for ever for position head + 5001.
    started.then((runner) => cleanup.push(() => runner.stop())).catch(() => undefined);
    await expect(started).rejects.toThrow(CheckpointAheadError);
    await expect(started).rejects.toThrow(
      new RegExp(`checkpoint ${identity!.name} is at position ${head + 5000}, past the end of the event log \\(head ${head}\\).*commerce projections rebuild ${identity!.name}`),
    );
  });

  it('refuses to start the automation from a checkpoint past the head, and from any checkpoint over an empty log', async () => {
    const s = await services();
    await s.readStore.commit(AUTOMATION_CHECKPOINT, [], { expected: null, next: 42 });
    const started = automationJob.start(s, quiet);
    started.then((job) => cleanup.push(() => job.stop())).catch(() => undefined);
    await expect(started).rejects.toThrow(/checkpoint automation_runner is at position 42, past the end of the event log \(empty\)/);
  });

  it('moves the automation checkpoint over long runs of other streams, so a restart does not scan them again', async () => {
    const s = await services();
    const job = await automationJob.start(s, quiet);
    cleanup.push(() => job.stop());
    const head = await appendOthers(s.store, 30);
    await vi.waitFor(async () => expect(await s.readStore.readCheckpoint(AUTOMATION_CHECKPOINT)).toBe(head), { timeout: 10_000, interval: 50 });
  });

  // Every subscriber with a checkpoint of its own follows the log through followFromCheckpoint.
  it.each([
    [CHECKOUT_COMPLETION_CHECKPOINT, checkoutCompletionJob],
    [RECEIPT_CHECKPOINT, receiptOutboxJob],
    [WEBHOOK_FANOUT_CHECKPOINT, webhooksJob],
  ])('the %s job refuses a checkpoint past the head and moves it over other streams', async (checkpoint, job) => {
    const s = await services();
    await s.readStore.commit(checkpoint, [], { expected: null, next: 42 });
    const refused = job.start(s, quiet);
    refused.then((j) => cleanup.push(() => j.stop())).catch(() => undefined);
    await expect(refused).rejects.toThrow(new RegExp(`checkpoint ${checkpoint} is at position 42, past the end of the event log \\(empty\\)`));

    const fresh = await services();
    const running = await job.start(fresh, quiet);
    cleanup.push(() => running.stop());
    const head = await appendOthers(fresh.store, 30);
    await vi.waitFor(async () => expect(await fresh.readStore.readCheckpoint(checkpoint)).toBe(head), { timeout: 10_000, interval: 50 });
  });
});
