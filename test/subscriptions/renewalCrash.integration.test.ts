import Database from 'better-sqlite3';
import { createHash } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionDecider, subscriptionStream, type SubscriptionCreatedData } from '../../modules/subscriptions/domain/subscription.ts';
import { asArray } from '../../platform/domain/decider.ts';
import { toNewEvent } from '../../platform/es/handleCommand.ts';
import { openEventStoreAt } from '../../app/compose.ts';
import { eventuallyPasses, seedIdentity, startServerProcess, tempDataDir, type ServerProcess } from '../helpers/serverProcess.ts';

const N = 5000;
const DAY = 86_400;
const T0 = 1_798_761_600;
const CLOCK = 'clock_crashtest';

/** Counts and rows read straight from the log, beside the running service (WAL readers never block it). */
function query<T>(dataDir: string, sql: string, ...params: unknown[]): T[] {
  const db = new Database(join(dataDir, 'commerce.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).all(...params) as T[];
  } finally {
    db.close();
  }
}
const countOf = (dataDir: string, type: string) => query<{ n: number }>(dataDir, 'SELECT count(*) AS n FROM events WHERE type = ?', type)[0]!.n;

/**
 * SIGKILL in the middle of a clock advance over 5,000 due subscriptions, then a restart: the
 * advance is finished, every subscription renewed exactly once, and every charge is the one its
 * invoice's first attempt key names (a repeated charge carries the same key: the same charge).
 */
describe('subscriptions: a renewal run killed and restarted', () => {
  const dataDir = tempDataDir('commerce-renewal-crash-');
  let token: string;
  let proc: ServerProcess | undefined;

  beforeAll(async () => {
    const seeded = await seedIdentity(dataDir, 'Renewal crash');
    token = seeded.token;
    // Straight into the log: the service's projections catch up with it once, when it starts.
    const store = await openEventStoreAt(dataDir);
    try {
      const metadata = { correlation_id: 'test-seed', actor: { type: 'cli' as const }, organization_id: seeded.organizationId, occurred_at: T0 };
      await store.append(
        `test_clock-${CLOCK}`,
        [toNewEvent({ type: 'TestClockCreated', data: { id: CLOCK, organization_id: seeded.organizationId, name: 'crash', frozen_time: T0, created_at: T0 } }, metadata)],
        'no_stream',
      );
      for (let start = 0; start < N; start += 1000) {
        const appends = [];
        for (let i = start; i < start + 1000; i++) {
          const sub: Omit<SubscriptionCreatedData, 'created_at'> = {
            id: `sub_crash${i}`,
            organization_id: seeded.organizationId,
            mode: 'test',
            customer: { email: null, name: null, user_id: null },
            offer: { uuid: 'u', id: 'o', slug: 'crash', name: 'Crash plan' },
            plan: { product_id: 'p', plan_id: 'monthly', plan_name: 'Monthly', renew_interval: 'P1M', invoice_interval: 'P1M' },
            currency: 'EUR',
            lines: [{ name: 'Monthly', amount: 500 }],
            amount: 500,
            session_id: `cs_crash${i}`,
            payment_method: { id: 'pm_card_visa', provider: 'test', card: { brand: 'visa', last4: '4242' }, exp_month: 12, exp_year: 2040 },
            billing_cycle_anchor: T0 - 31 * DAY,
            current_period_start: T0 - 31 * DAY,
            current_period_end: T0,
            trial_start: null,
            trial_end: null,
            first_invoice: null,
            test_clock: CLOCK,
          };
          const events = asArray(subscriptionDecider.decide({ type: 'CreateSubscription', subscription: sub, now: T0 - 31 * DAY }, subscriptionDecider.initialState()));
          appends.push({ stream: subscriptionStream(sub.id), events: events.map((e) => toNewEvent(e, metadata)), expected: 'no_stream' as const });
        }
        await store.appendMany(appends);
      }
    } finally {
      await store.close();
    }
  }, 120_000);
  afterAll(async () => {
    if (proc && proc.child.exitCode === null) proc.child.kill('SIGKILL');
    await proc?.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  const clock = (url: string) => fetch(`${url}/api/test_clocks/${CLOCK}`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.json() as Promise<{ status: string }>);

  it('renews every subscription exactly once with one charge each', async () => {
    proc = await startServerProcess({ dataDir, env: { LOG_LEVEL: 'warn' } });
    const advanced = await fetch(`${proc.url}/api/test_clocks/${CLOCK}/advance`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ frozen_time: T0 + DAY }),
    });
    expect(advanced.status).toBe(200);
    // Killed once part of the run is recorded.
    await eventuallyPasses(async () => expect(countOf(dataDir, 'SubscriptionInvoicePaid')).toBeGreaterThan(200), 120_000);
    proc.child.kill('SIGKILL');
    await proc.exited;
    const before = countOf(dataDir, 'SubscriptionInvoicePaid');
    expect(before).toBeLessThan(N);

    proc = await startServerProcess({ dataDir, env: { LOG_LEVEL: 'warn' } });
    const url = proc.url;
    await eventuallyPasses(async () => expect((await clock(url)).status).toBe('ready'), 240_000);

    const perSubscription = query<{ stream: string; n: number }>(
      dataDir,
      "SELECT stream, count(*) AS n FROM events WHERE type = 'SubscriptionInvoiceCreated' GROUP BY stream",
    );
    expect(perSubscription).toHaveLength(N);
    expect(perSubscription.every((r) => r.n === 1)).toBe(true);
    const paid = query<{ stream: string; data: string }>(dataDir, "SELECT stream, data FROM events WHERE type = 'SubscriptionInvoicePaid'");
    expect(paid).toHaveLength(N);
    for (const row of paid) {
      const d = JSON.parse(row.data) as { invoice_id: string; attempt: number; charge_id: string };
      expect(d.attempt).toBe(1);
      // The test provider's charge id is a function of the key: one key, one charge.
      expect(d.charge_id).toBe(`ch_test_${createHash('sha256').update(`${d.invoice_id}_a1`).digest('hex').slice(0, 24)}`);
    }
    // And each invoice stream records one payment.
    await eventuallyPasses(async () => expect(countOf(dataDir, 'InvoicePaid')).toBe(N), 120_000);
  }, 600_000);
});
