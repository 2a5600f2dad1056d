/**
 * The webhook dispatcher's page query under a backlog, on a real SQLite read store with the
 * webhooks projection's indexes: `--due` pending deliveries due now (and as many again sent, as a
 * busy shop has), nine in ten of them to one endpoint. Each pass of the dispatcher reads a page of
 * 1,000 (dueDeliveries), with that endpoint left out while it is busy (a receiver that hangs).
 *
 * The reference, in the same run: the same number of documents read by their ids (a page's
 * worth, by primary key), the least a page of documents costs. Medians of `--runs` (7).
 *
 *   node bin/run-ts.js bench/webhookDueQuery.ts [--due 100000] [--runs 7]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { WEBHOOK_DELIVERIES, webhookProjection, type DeliveryDoc } from '../modules/webhooks/webhookProjection.ts';
import type { WriteOp } from '../platform/readStore/readStore.ts';
import { compose } from '../app/compose.ts';
import { loadConfig } from '../platform/runtime/config.ts';
import { ensureIndexes } from '../platform/es/projectionRunner.ts';
import { dueDeliveries } from '../modules/webhooks/jobs/webhookDispatch.ts';
import { median } from './processes.ts';

const PAGE = 1000;
const HANGING = 'we_hanging';

const { values } = parseArgs({ options: { due: { type: 'string', default: '100000' }, runs: { type: 'string', default: '7' } } });
const due = Number(values.due);
const runs = Number(values.runs);

const dir = mkdtempSync(join(tmpdir(), 'commerce-bench-due-'));
// The embedded profile's read store (SQLite), with nothing running on it.
const services = await compose(loadConfig({ DATA_DIR: dir, LOG_LEVEL: 'silent' }), { runProjections: false, logger: { error: () => undefined, info: () => undefined } });
const store = services.readStore;
try {
  await ensureIndexes(store, [webhookProjection]);
  const now = 1_800_000_000;
  const ops: WriteOp[] = [];
  for (let i = 0; i < due * 2; i++) {
    const pending = i % 2 === 0;
    const doc: DeliveryDoc = {
      id: `wd_${i}`,
      endpoint_id: Math.floor(i / 2) % 10 === 9 ? `we_${i % 50}` : HANGING,
      organization_id: 'org_bench',
      event_id: `evt_${i}`,
      event_type: 'checkout.session.completed',
      resource: `checkout_session-cs_${i}`,
      status: pending ? 'pending' : 'succeeded',
      attempts: 1,
      // Due over the last hours, a few each second, as retries fall due.
      next_attempt_at: pending ? now - due + Math.floor(i / 2) : null,
      created_at: now - due,
      updated_at: now - due,
      position: i,
    };
    ops.push({ op: 'upsert', collection: WEBHOOK_DELIVERIES, doc });
  }
  await store.commit('bench', ops, { expected: null, next: 1 });
  const ids = Array.from({ length: PAGE }, (_, k) => `wd_${k * 2 * Math.floor(due / PAGE)}`);

  const timed = async (read: () => Promise<unknown[]>) => {
    const ms: number[] = [];
    let found = 0;
    for (let r = 0; r < runs; r++) {
      const started = performance.now();
      found = (await read()).length;
      ms.push(performance.now() - started);
    }
    return { ms: median(ms), found };
  };
  const reference = await timed(() => store.find(WEBHOOK_DELIVERIES, { filter: { id: { $in: ids } } }));
  const all = await timed(() => dueDeliveries(store, now, [], PAGE));
  const busy = await timed(() => dueDeliveries(store, now, [HANGING], PAGE));
  console.log(`${due} deliveries due (9 in 10 to one endpoint), ${due} sent; a page of ${PAGE}, medians of ${runs} runs:`);
  console.log(`  reference, ${reference.found} documents read by id: ${reference.ms.toFixed(1)} ms`);
  console.log(`  the dispatcher's page: ${all.ms.toFixed(1)} ms (${all.found} found), ${(all.ms / reference.ms).toFixed(1)}× the reference`);
  console.log(`  the same with the busy endpoint left out: ${busy.ms.toFixed(1)} ms (${busy.found} found), ${(busy.ms / reference.ms).toFixed(1)}× the reference`);
} finally {
  await services.close();
  rmSync(dir, { recursive: true, force: true });
}
