import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { compose } from '../../app/compose.ts';
import { loadConfig } from '../../platform/runtime/config.ts';
import { createMetrics } from '../../platform/runtime/metrics.ts';
import { reportedProjections } from '../../app/thread/reportedProjections.ts';
import { startSubscriberThread, type SubscriberThread } from '../../app/thread/subscriberThread.ts';
import { createOrganization } from '../../modules/identity/identityCommands.ts';

/** The subscriber thread ending unexpectedly (an uncaught error, an out-of-memory): started again from the stored checkpoints. */
describe('a subscriber thread that ends unexpectedly', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'commerce-thread-restart-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is started again, and its projections go on from where they were', { timeout: 60_000 }, async () => {
    const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    const reported = reportedProjections();
    const metrics = createMetrics();
    const errors: string[] = [];
    const log = { error: (_o: object, m: string) => void errors.push(m), warn: () => undefined, info: () => undefined };
    let thread: SubscriberThread | null = null;
    const services = await compose(config, { runProjections: false, lazyCheckpoints: true, projections: reported, onAppended: () => thread?.appended(), metrics, logger: log });
    const workers: Worker[] = [];
    try {
      thread = await startSubscriberThread(config, { runJobs: false, metrics, log: () => log, projections: reported, onSpawn: (w) => workers.push(w) });
      const ctx = () => ({ store: services.store, metadata: { correlation_id: 'restart', actor: { type: 'cli' as const }, organization_id: null, occurred_at: Math.floor(Date.now() / 1000) } });
      await createOrganization(ctx(), { name: 'Before', timezone: 'UTC' });
      const before = (await services.store.headPosition())!;
      expect(await reported.waitFor(before, 20_000)).toBe(true);

      // Ended as a crash would end it: no stop, no checkpoint at the head.
      await workers[0]!.terminate();
      await expect.poll(() => errors, { timeout: 10_000 }).toContain('the subscriber thread ended; starting it again from the stored checkpoints');
      await expect.poll(() => workers.length, { timeout: 20_000 }).toBe(2);

      await createOrganization(ctx(), { name: 'After', timezone: 'UTC' });
      const after = (await services.store.headPosition())!;
      expect(await reported.waitFor(after, 20_000)).toBe(true);
      const orgs = await services.readStore.find<{ id: string; name: string }>('organizations', {});
      expect(orgs.map((o) => o.name).sort()).toEqual(['After', 'Before']);
    } finally {
      await thread?.stop();
      await services.close();
    }
  });
});
